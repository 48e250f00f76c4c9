#include "array/op_families.hpp"

#include <rtcg/error.hpp>
#include <rtcg/tuner.hpp>

namespace rtcg::detail {
namespace {

// The lowest value of a type: max's neutral element. Infinity has no literal that both
// compilers accept (NVRTC lacks __builtin_huge_val), so floats get a helper per backend.
struct Lowest {
  std::string expression;
  std::string preamble;
};
Lowest lowest(ScalarType type, const std::string& kernel_name) {
  const std::string helper = kernel_name + "_lowest";
  switch (type) {
    case ScalarType::f32:
      return {helper + "()", "RTCG_DEVICE float " + helper + "() {\n#if RTCG_CUDA\n  return __int_as_float(0xff800000);\n"
                             "#else\n  return -__builtin_huge_valf();\n#endif\n}"};
    case ScalarType::f64:
      return {helper + "()", "RTCG_DEVICE double " + helper +
                                 "() {\n#if RTCG_CUDA\n  return __longlong_as_double(0xfff0000000000000ULL);\n"
                                 "#else\n  return -__builtin_huge_val();\n#endif\n}"};
    case ScalarType::i32: return {"(-2147483647 - 1)", ""};
    case ScalarType::i64: return {"(-9223372036854775807LL - 1)", ""};
    case ScalarType::u32: return {"0u", ""};
    case ScalarType::u64: return {"0ull", ""};
  }
  return {"0", ""};
}

std::string const_pointer(ScalarType type, const char* name) { return std::string("const ") + c_type(type) + "* " + name; }

using Values = std::vector<std::int64_t>;

}  // namespace

const std::vector<OpFamily>& op_families() {
  static const std::vector<OpFamily> families = {
      {"axpy", OpKind::elementwise, false}, {"scale", OpKind::elementwise, false}, {"sum", OpKind::reduction, false},
      {"dot", OpKind::reduction, false},    {"max", OpKind::reduction, false},     {"norm2", OpKind::reduction, true},
  };
  return families;
}

const OpFamily& op_family(std::string_view name) {
  for (const auto& family : op_families())
    if (family.name == name) return family;
  std::string names;
  for (const auto& family : op_families()) names += (names.empty() ? "" : ", ") + family.name;
  throw Error("unknown array operation `" + std::string(name) + "`; known: " + names);
}

ElementwiseSpec elementwise_spec(const OpFamily& family, ScalarType type) {
  const std::string t = c_type(type);
  const std::string name = family.name + "_" + short_name(type);
  if (family.name == "axpy")
    return {name, t + " a, " + const_pointer(type, "x") + ", " + t + "* y", "y[i] = a * x[i] + y[i]", ""};
  if (family.name == "scale") return {name, t + " a, " + t + "* x", "x[i] = a * x[i]", ""};
  throw Error("internal error: `" + family.name + "` is not an elementwise operation");
}

ReductionSpec reduction_spec(const OpFamily& family, ScalarType type) {
  ReductionSpec spec;
  spec.name = family.name + "_" + short_name(type);
  spec.type = type;
  spec.neutral = "0";
  spec.reduce_expr = "a + b";
  spec.arguments = const_pointer(type, "x");
  if (family.name == "sum") {
    spec.map_expr = "x[i]";
  } else if (family.name == "dot") {
    spec.map_expr = "x[i] * y[i]";
    spec.arguments += ", " + const_pointer(type, "y");
  } else if (family.name == "norm2") {
    RTCG_VERIFY(is_floating(type), "norm2 needs a floating-point array, not " << c_type(type));
    spec.map_expr = "x[i] * x[i]";
    spec.finalize = "sqrt(a)";
  } else if (family.name == "max") {
    spec.map_expr = "x[i]";
    const Lowest neutral = lowest(type, spec.name);
    spec.neutral = neutral.expression;
    spec.preamble = neutral.preamble;
    // NaN wins: `a != a` is true only for NaN, so a NaN on either side is kept.
    spec.reduce_expr = "(a > b || a != a) ? a : b";
  } else {
    throw Error("internal error: `" + family.name + "` is not a reduction");
  }
  return spec;
}

namespace {
unsigned get(const tune::Point& point, const char* name, unsigned fallback) {
  const auto it = point.find(name);
  return it == point.end() ? fallback : static_cast<unsigned>(it->second);
}
}  // namespace

ElementwiseParams elementwise_params(const tune::Point& point) {
  ElementwiseParams params;
  params.block_size = get(point, "block", params.block_size);
  params.items_per_thread = get(point, "items", params.items_per_thread);
  params.blocks_per_sm = get(point, "grid", params.blocks_per_sm);
  params.restrict_pointers = get(point, "restrict", params.restrict_pointers ? 1u : 0u) != 0;
  return params;
}

ReductionParams reduction_params(const tune::Point& point) {
  ReductionParams params;
  params.block_size = get(point, "block", params.block_size);
  params.items_per_thread = get(point, "items", params.items_per_thread);
  params.blocks_per_sm = get(point, "grid", params.blocks_per_sm);
  params.host_chunk = get(point, "chunk", params.host_chunk);
  return params;
}

tune::Point point_of(const ElementwiseParams& params) {
  return {{"block", params.block_size},
          {"items", params.items_per_thread},
          {"grid", params.blocks_per_sm},
          {"restrict", params.restrict_pointers ? 1 : 0}};
}

tune::Point point_of(const ReductionParams& params) {
  return {{"block", params.block_size},
          {"items", params.items_per_thread},
          {"grid", params.blocks_per_sm},
          {"chunk", params.host_chunk}};
}

tune::Point default_point(const OpFamily& family, BackendKind backend) {
  if (family.kind == OpKind::elementwise) {
    ElementwiseParams params;
    // Only axpy has two pointers that restrict could tell apart.
    params.restrict_pointers = family.name == "axpy";
    if (backend == BackendKind::cuda) params.items_per_thread = 2;
    return point_of(params);
  }
  ReductionParams params;
  if (backend == BackendKind::cuda) {
    params.block_size = 512;
    params.items_per_thread = 8;
    params.blocks_per_sm = 2;
  }
  return point_of(params);
}

tune::SearchSpace search_space(const OpFamily& family, BackendKind backend, bool wide) {
  tune::SearchSpace space;
  const bool cuda = backend == BackendKind::cuda;
  if (family.kind == OpKind::elementwise) {
    // restrict only matters with two pointers (axpy); scale has one.
    const Values restrict_values = family.name == "axpy" ? (wide || !cuda ? Values{0, 1} : Values{1}) : Values{0};
    if (!cuda) {
      // The host loop is one OpenMP loop whatever the CUDA shape: only restrict changes it.
      space.parameter("block", {256}).parameter("items", {1}).parameter("grid", {0}).parameter("restrict", restrict_values);
      return space;
    }
    space.parameter("block", wide ? Values{128, 256, 512, 1024} : Values{128, 256, 512})
        .parameter("items", wide ? Values{1, 2, 4, 8} : Values{1, 2, 4})
        .parameter("grid", {0, 8})
        .parameter("restrict", restrict_values)
        .constraint("block * items <= 4096", [](const tune::Point& p) { return p.at("block") * p.at("items") <= 4096; });
    return space;
  }
  if (!cuda) {
    space.parameter("block", {256})
        .parameter("items", wide ? Values{1, 2, 4, 8, 16} : Values{1, 4, 8})
        .parameter("grid", {4})
        .parameter("chunk", wide ? Values{4096, 16384, 65536, 262144} : Values{16384, 65536});
    return space;
  }
  space.parameter("block", wide ? Values{128, 256, 512, 1024} : Values{256, 512, 1024})
      .parameter("items", wide ? Values{1, 2, 4, 8, 16} : Values{2, 4, 8, 16})
      .parameter("grid", wide ? Values{1, 2, 4, 8, 16} : Values{1, 2, 4, 8})
      .parameter("chunk", {65536})
      .constraint("block * items <= 8192", [](const tune::Point& p) { return p.at("block") * p.at("items") <= 8192; });
  return space;
}

std::string family_template_hash(const OpFamily& family, ScalarType type) {
  // A fixed canonical point, not the default, so changing defaults keeps stored records.
  if (family.kind == OpKind::elementwise)
    return tune::template_hash(elementwise_program(elementwise_spec(family, type), ElementwiseParams{}).source);
  return tune::template_hash(reduction_program(reduction_spec(family, type), ReductionParams{}).source);
}

}  // namespace rtcg::detail
