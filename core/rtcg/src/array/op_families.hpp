// The generators behind the array operations (axpy, scale, sum, dot, max, norm2): one
// elementwise or reduction spec per operation and element type, how tuning points map to
// generator parameters, the built-in defaults, the search spaces and the template hash.
// Shared by the operations (array_ops.cpp) and their tuning jobs (tuning_jobs.cpp).
// Private to src/array.
#pragma once

#include <rtcg/backend.hpp>
#include <rtcg/elementwise.hpp>
#include <rtcg/reduction.hpp>
#include <rtcg/search_space.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace rtcg::detail {

enum class OpKind { elementwise, reduction };

struct OpFamily {
  std::string name;  // "axpy": the family in the tuning database
  OpKind kind;
  bool floating_only = false;  // norm2
};

// Throws rtcg::Error listing the families for an unknown name.
const OpFamily& op_family(std::string_view name);
const std::vector<OpFamily>& op_families();

ElementwiseSpec elementwise_spec(const OpFamily& family, ScalarType type);
ReductionSpec reduction_spec(const OpFamily& family, ScalarType type);

// Tuning points: elementwise {block, items, grid, restrict}; reduction {block, items, grid,
// chunk}. `grid` is blocks per SM (0: cover the array once).
ElementwiseParams elementwise_params(const tune::Point& point);
ReductionParams reduction_params(const tune::Point& point);
tune::Point point_of(const ElementwiseParams& params);
tune::Point point_of(const ReductionParams& params);

// The built-in default point of a family on a backend (the untuned reference plan).
tune::Point default_point(const OpFamily& family, BackendKind backend);
// The space `rtdg tune <family>` searches; `wide` is the larger one (e.g. axpy-wide: 60
// points on CUDA).
tune::SearchSpace search_space(const OpFamily& family, BackendKind backend, bool wide);
// Hash of the generator's output for a canonical point: changes whenever the template does.
std::string family_template_hash(const OpFamily& family, ScalarType type);

}  // namespace rtcg::detail
