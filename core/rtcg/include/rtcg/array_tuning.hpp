// Tuning jobs for the array operations, and the plans the operations use.
//
// Jobs (for `rtdg tune <job>` and benchmarks): one per operation family (axpy, scale, sum,
// dot, max, norm2) plus `<family>-wide`, a larger space (axpy-wide has 60 variants on CUDA).
// A job owns fresh arrays of n elements filled with a reproducible pattern, and checks each
// variant's output against plain host loops.
#pragma once

#include <rtcg/backend.hpp>
#include <rtcg/kernel_arguments.hpp>
#include <rtcg/tuner.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace rtcg {

std::vector<std::string> array_tuning_jobs();
// The space a job searches on a backend kind (without making arrays: for listings and tests).
tune::SearchSpace array_tuning_space(const std::string& name, BackendKind backend);
// Throws rtcg::Error listing the jobs for an unknown name, or for a type the family lacks.
tune::Job make_array_tuning_job(const std::string& name, Backend& backend, ScalarType type, std::size_t n);

// The plan an array operation uses for `family` on n elements of `type` (RTDG_TUNE=off: the
// built-in default; auto: the tuning database with its fallbacks; force: tuned at first use
// in this process and stored). Remembered per process; the step is logged once.
tune::Point array_plan(Backend& backend, const std::string& family, ScalarType type, std::size_t n);
// Forgets the remembered plans (after the database changed, e.g. in tests).
void reset_array_plans();

}  // namespace rtcg
