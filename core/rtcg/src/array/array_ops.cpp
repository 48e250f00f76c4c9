// Array operations: a cached kernel per backend, family, element type and plan.
#include <rtcg/array_ops.hpp>
#include <rtcg/array_tuning.hpp>
#include <rtcg/elementwise.hpp>
#include <rtcg/reduction.hpp>

#include "array/op_families.hpp"

#include <map>
#include <memory>
#include <mutex>

namespace rtcg::detail {
namespace {

template <class Engine, class Params>
std::shared_ptr<const Engine> cached(Backend& backend, const OpFamily& family, ScalarType type, const Params& params) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const Engine>> engines;
  const std::string key = std::to_string(reinterpret_cast<std::uintptr_t>(&backend)) + "/" + family.name + "/" +
                          short_name(type) + "/" + params.describe();
  std::lock_guard lock(mutex);
  auto& engine = engines[key];
  if (!engine) {
    if constexpr (std::is_same_v<Engine, ElementwiseKernel>)
      engine = std::make_shared<const ElementwiseKernel>(backend, elementwise_spec(family, type), params);
    else
      engine = std::make_shared<const ReductionEngine>(backend, reduction_spec(family, type), params);
  }
  return engine;
}

template <class T>
bool overlap(ArrayView<const T> a, ArrayView<const T> b) {
  return !a.empty() && !b.empty() && a.data() < b.data() + b.size() && b.data() < a.data() + a.size();
}

template <ArrayElement T>
void reduce(const char* family_name, ArrayView<const T> x, const ArrayView<const T>* y, ArrayView<T> result) {
  RTCG_VERIFY(result.size() >= 1, family_name << ": the result view is empty");
  Backend& backend = result.backend();
  RTCG_VERIFY(x.empty() || &x.backend() == &backend, family_name << ": the array and the result are on different backends");
  const OpFamily& family = op_family(family_name);
  const ScalarType type = scalar_type_of<T>();
  const auto params = reduction_params(array_plan(backend, family.name, type, x.size()));
  const auto engine = cached<ReductionEngine>(backend, family, type, params);
  ArgumentBinder binder(backend, engine->arguments(), engine->spec().name);
  binder.bind(x);
  if (y) binder.bind(*y);
  binder.finish();
  const std::size_t n = binder.common_array_size();
  engine->run(n, binder, result.data());
}

}  // namespace

template <ArrayElement T>
void axpy(T a, ArrayView<const T> x, ArrayView<T> y) {
  RTCG_VERIFY(x.size() == y.size(), "axpy: x has " << x.size() << " elements, y " << y.size());
  if (y.empty()) return;
  Backend& backend = y.backend();
  const ScalarType type = scalar_type_of<T>();
  auto params = elementwise_params(array_plan(backend, "axpy", type, y.size()));
  // restrict promises x and y never alias; axpy(a, x, x) or overlapping views break that.
  if (overlap<T>(x, y)) params.restrict_pointers = false;
  cached<ElementwiseKernel>(backend, op_family("axpy"), type, params)->operator()(a, x, y);
}

template <ArrayElement T>
void scale(T a, ArrayView<T> x) {
  if (x.empty()) return;
  Backend& backend = x.backend();
  const ScalarType type = scalar_type_of<T>();
  const auto params = elementwise_params(array_plan(backend, "scale", type, x.size()));
  cached<ElementwiseKernel>(backend, op_family("scale"), type, params)->operator()(a, x);
}

template <ArrayElement T>
void sum_into(ArrayView<const T> x, ArrayView<T> result) {
  reduce<T>("sum", x, nullptr, result);
}
template <ArrayElement T>
void dot_into(ArrayView<const T> x, ArrayView<const T> y, ArrayView<T> result) {
  RTCG_VERIFY(x.size() == y.size(), "dot: x has " << x.size() << " elements, y " << y.size());
  reduce<T>("dot", x, &y, result);
}
template <ArrayElement T>
void max_into(ArrayView<const T> x, ArrayView<T> result) {
  reduce<T>("max", x, nullptr, result);
}
template <ArrayElement T>
void norm2_into(ArrayView<const T> x, ArrayView<T> result) {
  reduce<T>("norm2", x, nullptr, result);
}

template <ArrayElement T>
T read_scalar(ArrayView<const T> result) {
  T value{};
  result.view(0, 1).copy_to_host(std::span<T>(&value, 1));
  return value;
}

template <ArrayElement T>
Array<T> scalar_array(Backend& backend) {
  return Array<T>(backend, 1);
}

#define RTCG_INSTANTIATE_ARRAY_OPS(T)                                               \
  template void axpy<T>(T, ArrayView<const T>, ArrayView<T>);                       \
  template void scale<T>(T, ArrayView<T>);                                          \
  template void sum_into<T>(ArrayView<const T>, ArrayView<T>);                      \
  template void dot_into<T>(ArrayView<const T>, ArrayView<const T>, ArrayView<T>);  \
  template void max_into<T>(ArrayView<const T>, ArrayView<T>);                      \
  template T read_scalar<T>(ArrayView<const T>);                                    \
  template Array<T> scalar_array<T>(Backend&);
RTCG_INSTANTIATE_ARRAY_OPS(float)
RTCG_INSTANTIATE_ARRAY_OPS(double)
RTCG_INSTANTIATE_ARRAY_OPS(std::int32_t)
RTCG_INSTANTIATE_ARRAY_OPS(std::int64_t)
#undef RTCG_INSTANTIATE_ARRAY_OPS
template void norm2_into<float>(ArrayView<const float>, ArrayView<float>);
template void norm2_into<double>(ArrayView<const double>, ArrayView<double>);

}  // namespace rtcg::detail
