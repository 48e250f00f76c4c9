// Argument lists of generated kernels, as PyCUDA's ElementwiseKernel takes them:
// "double a, const double* x, double* y". Parsed and validated before anything is generated,
// so a generator only ever writes known types and checked identifiers into source.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace rtcg {

// Element types generated kernels may take. Each is written into source with a spelling that
// means the same on NVRTC and on the host compiler (no <cstdint> needed on either).
enum class ScalarType { f32, f64, i32, i64, u32, u64 };

const char* c_type(ScalarType type);       // "float", "double", "int", "long long", ...
const char* short_name(ScalarType type);   // "f32", "f64", "i32", "i64", "u32", "u64"
std::size_t size_of(ScalarType type);
bool is_floating(ScalarType type);

template <class T>
constexpr ScalarType scalar_type_of() {
  using U = std::remove_cv_t<T>;
  if constexpr (std::is_same_v<U, float>) return ScalarType::f32;
  else if constexpr (std::is_same_v<U, double>) return ScalarType::f64;
  else if constexpr (std::is_integral_v<U> && std::is_signed_v<U> && sizeof(U) == 4) return ScalarType::i32;
  else if constexpr (std::is_integral_v<U> && std::is_signed_v<U> && sizeof(U) == 8) return ScalarType::i64;
  else if constexpr (std::is_integral_v<U> && std::is_unsigned_v<U> && sizeof(U) == 4) return ScalarType::u32;
  else if constexpr (std::is_integral_v<U> && std::is_unsigned_v<U> && sizeof(U) == 8) return ScalarType::u64;
  else static_assert(sizeof(U) == 0, "no generated-kernel scalar type for this C++ type");
}

// One declaration of an argument list: a scalar ("double a") or a pointer to elements
// ("const double* x").
struct ArgumentDecl {
  ScalarType type = ScalarType::f64;
  bool pointer = false;
  bool is_const = false;  // only meaningful for pointers: the kernel only reads through it
  std::string name;

  // As written into generated source: "const double* x", "double a".
  std::string declaration() const;
};

// Parses a comma-separated argument list. Accepted types: float, double, int, int32_t,
// long long, int64_t, unsigned, unsigned int, uint32_t, unsigned long long, uint64_t; a
// pointer may be const-qualified ("const double* x"). Names must be C identifiers, distinct,
// not keywords, not `i` or `n` (the index and size every generated kernel defines) and not
// starting with `rtcg_` (the generators' own names). Throws rtcg::Error naming the offending
// declaration and saying what is wrong with it.
std::vector<ArgumentDecl> parse_arguments(std::string_view text);

bool is_identifier(std::string_view text);
// Throws rtcg::Error when `name` is not an identifier a generator may write into source;
// `what` says what the name is for ("kernel name", "argument").
void verify_identifier(std::string_view name, std::string_view what);

// User text placed into a generated skeleton (an operation, an expression): rejects what
// would break out of the skeleton rather than just fail to compile — unbalanced brackets,
// preprocessor lines, an empty text. Throws rtcg::Error saying what `what` contained.
void verify_snippet(std::string_view text, std::string_view what);

}  // namespace rtcg
