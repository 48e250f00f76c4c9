// The plans array operations use: RTDG_TUNE decides between the built-in default, the tuning
// database and tuning at first use.
#include <rtcg/array_tuning.hpp>
#include <rtcg/log.hpp>
#include <rtcg/tuning_db.hpp>

#include "array/op_families.hpp"

#include <map>
#include <mutex>

namespace rtcg {
namespace {

struct PlanCache {
  std::mutex mutex;
  std::map<std::string, tune::Point> plans;
  std::map<const Backend*, tune::DeviceFingerprint> devices;
};

PlanCache& plan_cache() {
  static PlanCache cache;
  return cache;
}

}  // namespace

tune::Point array_plan(Backend& backend, const std::string& family_name, ScalarType type, std::size_t n) {
  const detail::OpFamily& family = detail::op_family(family_name);
  const tune::ProblemClass problem = tune::array_problem(type, n);
  const std::string key = std::to_string(reinterpret_cast<std::uintptr_t>(&backend)) + "/" + family.name + "/" +
                          problem.kind + "/" + std::to_string(problem.size_class);
  PlanCache& cache = plan_cache();
  std::lock_guard lock(cache.mutex);
  if (auto it = cache.plans.find(key); it != cache.plans.end()) return it->second;

  const tune::Point fallback = detail::default_point(family, backend.kind());
  tune::Point point;
  switch (tune::tune_mode()) {
    case tune::TuneMode::off:
      point = fallback;
      log().info("tuning: {} ({}): RTDG_TUNE=off, built-in default {}", family.name, problem.describe(),
                 tune::to_string(point));
      break;
    case tune::TuneMode::automatic: {
      auto device = cache.devices.find(&backend);
      if (device == cache.devices.end())
        device = cache.devices.emplace(&backend, tune::DeviceFingerprint::of(backend)).first;
      point = tune::global_tuning_db()
                  .lookup(device->second, family.name, detail::family_template_hash(family, type), problem, fallback)
                  .point;
      break;
    }
    case tune::TuneMode::force: {
      log().info("tuning: {} ({}): RTDG_TUNE=force, tuning now on {} elements", family.name, problem.describe(), n);
      const tune::Job job = make_array_tuning_job(family.name, backend, type, n);
      const tune::Tuner tuner(backend);
      point = tune::tune_or_reuse(tuner, tune::global_tuning_db(), job, tune::TuneMode::force).point;
      break;
    }
  }
  cache.plans.emplace(key, point);
  return point;
}

void reset_array_plans() {
  PlanCache& cache = plan_cache();
  std::lock_guard lock(cache.mutex);
  cache.plans.clear();
  cache.devices.clear();
}

}  // namespace rtcg
