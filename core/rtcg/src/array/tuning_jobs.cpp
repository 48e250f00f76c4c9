// Tuning jobs of the array operations: fresh arrays with a reproducible pattern, variants
// from the operation's generator, and checks against plain host loops.
#include <rtcg/array.hpp>
#include <rtcg/array_tuning.hpp>
#include <rtcg/elementwise.hpp>
#include <rtcg/reduction.hpp>

#include "array/op_families.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <sstream>

namespace rtcg {
namespace {

using detail::OpFamily;
using detail::OpKind;

// The inputs: small multiples of 1/8 (floats) or small integers, so sums and products of
// f64 inputs are exact in any order and the reference is exact too.
template <class T>
T x_value(std::size_t i) {
  const auto k = static_cast<long long>((i * 7919 + 13) % 17) - 8;
  if constexpr (std::is_floating_point_v<T>) return static_cast<T>(k) * T(0.125);
  else return static_cast<T>(k);
}
template <class T>
T y_value(std::size_t i) {
  const auto k = static_cast<long long>((i * 104729 + 7) % 13) - 6;
  if constexpr (std::is_floating_point_v<T>) return static_cast<T>(k) * T(0.25);
  else return static_cast<T>(k);
}
template <class T>
T scalar_a() {
  if constexpr (std::is_floating_point_v<T>) return T(0.5);
  else return T(3);
}

template <ArrayElement T>
Array<T> upload(Backend& backend, std::size_t n, T (*value)(std::size_t)) {
  std::vector<T> host(n);
  for (std::size_t i = 0; i < n; ++i) host[i] = value(i);
  return Array<T>::from_host(backend, host);
}

// Everything a job's variants share; lives as long as the job's closures.
template <ArrayElement T>
struct JobData {
  Backend* backend = nullptr;
  std::size_t n = 0;
  Array<T> x, y;     // inputs (elementwise: y, or x for scale, is the output)
  Array<T> initial;  // the output's initial values, for reset
  Array<T> result;   // reductions: one element
  long double reference = 0;
  long double tolerance = 0;
  // Elementwise checks: the expected output, computed once, and a host buffer for the
  // variant's output, reused: rebuilding either per variant costs about a second per GiB,
  // which dominated tuning time on 1 GiB arrays.
  std::vector<T> expected, output;
};

template <ArrayElement T>
std::string describe_mismatch(std::size_t i, T got, T expected) {
  std::ostringstream message;
  message.precision(17);
  message << "element " << i << " is " << got << ", a plain loop gives " << expected;
  return message.str();
}

template <ArrayElement T>
tune::Job elementwise_job(const OpFamily& family, Backend& backend, std::size_t n, bool wide) {
  auto data = std::make_shared<JobData<T>>();
  data->backend = &backend;
  data->n = n;
  data->x = upload<T>(backend, n, &x_value<T>);
  const bool is_axpy = family.name == "axpy";
  if (is_axpy) data->y = upload<T>(backend, n, &y_value<T>);
  data->initial = (is_axpy ? data->y : data->x).clone();

  const ScalarType type = scalar_type_of<T>();
  const ElementwiseSpec spec = detail::elementwise_spec(family, type);
  tune::Job job;
  job.family = family.name;
  job.problem = tune::array_problem(type, n);
  job.template_hash = detail::family_template_hash(family, type);
  job.space = detail::search_space(family, backend.kind(), wide);
  job.default_point = detail::default_point(family, backend.kind());
  job.bytes_per_run = static_cast<double>((is_axpy ? 3 : 2) * n * sizeof(T));
  const int multiprocessors = std::max(1, backend.device_info().multiprocessors);
  job.generate = [spec, n, multiprocessors, data, is_axpy](const tune::Point& point) {
    const ElementwiseParams params = detail::elementwise_params(point);
    tune::Variant variant;
    variant.program = elementwise_program(spec, params);
    variant.launches = {{spec.name, elementwise_shape(params, n, multiprocessors)}};
    // The kernel object compiles through the backend's memo: the module the tuner built.
    auto kernel = std::make_shared<std::unique_ptr<ElementwiseKernel>>();
    variant.run = [spec, params, data, kernel, is_axpy](const Module&) {
      if (!*kernel) *kernel = std::make_unique<ElementwiseKernel>(*data->backend, spec, params);
      const T a = scalar_a<T>();
      if (is_axpy) (**kernel)(a, std::as_const(data->x), data->y);
      else (**kernel)(a, data->x);
    };
    return variant;
  };
  job.reset = [data, is_axpy] { (is_axpy ? data->y : data->x).copy_from(data->initial.view()); };
  job.check = [data, is_axpy]() -> std::string {
    if (data->expected.empty() && data->n > 0) {
      const T a = scalar_a<T>();
      data->expected.resize(data->n);
      data->output.resize(data->n);
      for (std::size_t i = 0; i < data->n; ++i)
        data->expected[i] = is_axpy ? static_cast<T>(a * x_value<T>(i) + y_value<T>(i)) : static_cast<T>(a * x_value<T>(i));
    }
    (is_axpy ? data->y : data->x).copy_to_host(std::span<T>(data->output));
    // Bitwise first (fast, vectorised); the element loop only runs to describe a mismatch.
    if (data->n == 0 || std::memcmp(data->output.data(), data->expected.data(), data->n * sizeof(T)) == 0) return {};
    for (std::size_t i = 0; i < data->n; ++i)
      if (data->output[i] != data->expected[i]) return describe_mismatch(i, data->output[i], data->expected[i]);
    return {};
  };
  return job;
}

template <ArrayElement T>
tune::Job reduction_job(const OpFamily& family, Backend& backend, std::size_t n, bool wide) {
  auto data = std::make_shared<JobData<T>>();
  data->backend = &backend;
  data->n = n;
  data->x = upload<T>(backend, n, &x_value<T>);
  const bool is_dot = family.name == "dot";
  if (is_dot) data->y = upload<T>(backend, n, &y_value<T>);
  data->result = Array<T>(backend, 1);

  // The reference, from a plain loop in long double (exact for the f64 and integer patterns).
  long double value = 0, magnitude = 0;
  if (family.name == "max") value = static_cast<long double>(std::numeric_limits<T>::lowest());
  for (std::size_t i = 0; i < n; ++i) {
    const long double xi = static_cast<long double>(x_value<T>(i));
    if (family.name == "sum") value += xi, magnitude += std::fabs(xi);
    if (family.name == "dot") {
      const long double term = xi * static_cast<long double>(y_value<T>(i));
      value += term, magnitude += std::fabs(term);
    }
    if (family.name == "norm2") value += xi * xi, magnitude += xi * xi;
    if (family.name == "max" && xi > value) value = xi;
  }
  // The square root in T, as the device takes it: IEEE sqrt is correctly rounded, so an exact
  // sum of squares gives the same bits.
  if (family.name == "norm2") {
    value = static_cast<long double>(std::sqrt(static_cast<T>(value)));
    magnitude = std::sqrt(magnitude);
  }
  data->reference = value;
  // Rounding of float sums in another order; integers and the f64 pattern are exact.
  data->tolerance = std::is_same_v<T, float> ? 1e-5L * magnitude : 0;

  const ScalarType type = scalar_type_of<T>();
  const ReductionSpec spec = detail::reduction_spec(family, type);
  tune::Job job;
  job.family = family.name;
  job.problem = tune::array_problem(type, n);
  job.template_hash = detail::family_template_hash(family, type);
  job.space = detail::search_space(family, backend.kind(), wide);
  job.default_point = detail::default_point(family, backend.kind());
  job.bytes_per_run = static_cast<double>((is_dot ? 2 : 1) * n * sizeof(T));
  const int multiprocessors = std::max(1, backend.device_info().multiprocessors);
  const BackendKind kind = backend.kind();
  job.generate = [spec, n, multiprocessors, kind, data, is_dot](const tune::Point& point) {
    const ReductionParams params = detail::reduction_params(point);
    tune::Variant variant;
    variant.program = reduction_program(spec, params);
    LaunchShape first, second;
    first.grid.x = static_cast<unsigned>(std::max<std::size_t>(1, reduction_partials(params, n, kind, multiprocessors)));
    first.block.x = params.block_size;
    second.block.x = params.block_size;
    variant.launches = {{spec.name + "_partials", first}, {spec.name + "_combine", second}};
    auto kernel = std::make_shared<std::unique_ptr<ReductionKernel<T>>>();
    variant.run = [spec, params, data, kernel, is_dot](const Module&) {
      if (!*kernel) *kernel = std::make_unique<ReductionKernel<T>>(*data->backend, spec, params);
      if (is_dot) (*kernel)->into(data->result.view(), std::as_const(data->x), std::as_const(data->y));
      else (*kernel)->into(data->result.view(), std::as_const(data->x));
    };
    return variant;
  };
  job.check = [data]() -> std::string {
    const T got = data->result.to_host()[0];
    const long double difference = std::fabs(static_cast<long double>(got) - data->reference);
    if (difference <= data->tolerance) return {};
    std::ostringstream message;
    message.precision(17);
    message << "result " << static_cast<long double>(got) << ", a plain loop gives " << data->reference
            << " (tolerance " << data->tolerance << ")";
    return message.str();
  };
  return job;
}

template <ArrayElement T>
tune::Job make_job(const OpFamily& family, Backend& backend, std::size_t n, bool wide) {
  return family.kind == OpKind::elementwise ? elementwise_job<T>(family, backend, n, wide)
                                            : reduction_job<T>(family, backend, n, wide);
}

}  // namespace

std::vector<std::string> array_tuning_jobs() {
  std::vector<std::string> names;
  for (const auto& family : detail::op_families()) names.push_back(family.name);
  for (const auto& family : detail::op_families()) names.push_back(family.name + "-wide");
  return names;
}

namespace {
// "axpy-wide" -> the axpy family, wide.
const OpFamily& job_family(const std::string& name, bool& wide) {
  wide = name.size() > 5 && name.substr(name.size() - 5) == "-wide";
  const std::string family_name = wide ? name.substr(0, name.size() - 5) : name;
  for (const auto& f : detail::op_families())
    if (f.name == family_name) return f;
  std::string names;
  for (const auto& job : array_tuning_jobs()) names += (names.empty() ? "" : ", ") + job;
  throw Error("unknown tuning job `" + name + "`; jobs: " + names);
}
}  // namespace

tune::SearchSpace array_tuning_space(const std::string& name, BackendKind backend) {
  bool wide = false;
  const OpFamily& family = job_family(name, wide);
  return detail::search_space(family, backend, wide);
}

tune::Job make_array_tuning_job(const std::string& name, Backend& backend, ScalarType type, std::size_t n) {
  bool wide = false;
  const OpFamily* family = &job_family(name, wide);
  RTCG_VERIFY(!family->floating_only || is_floating(type),
              "tuning job `" << name << "` needs a floating-point type, not " << short_name(type));
  switch (type) {
    case ScalarType::f32: return make_job<float>(*family, backend, n, wide);
    case ScalarType::f64: return make_job<double>(*family, backend, n, wide);
    case ScalarType::i32: return make_job<std::int32_t>(*family, backend, n, wide);
    case ScalarType::i64: return make_job<std::int64_t>(*family, backend, n, wide);
    default: break;
  }
  throw Error(std::string("array tuning jobs run on f32, f64, i32 or i64 arrays, not ") + short_name(type));
}

}  // namespace rtcg
