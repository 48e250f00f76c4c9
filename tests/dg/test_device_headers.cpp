// dg's device headers (dg/device_include/dg) as written: the host helpers of dg/tensor_core.h
// against plain loops over the operator (the fragment layout from its definition: lane 4 g + t
// holds row g at k = t of an 8 x 4 fragment), the host TF32 split against rounding in double,
// and the header compiled by NVRTC (sm_90, sm_80) and the host compiler in the configurations
// the generator includes it with.
#include <dg/kernels.hpp>
#include <rtcg/compiler.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

// The header's includer's part (as a generated program has it): double reals, 8-row tiles, the
// TF32 helpers, three columns per block.
using real = double;
#define RTDG_TILE_ROWS 8
#define RTDG_ACC 2
#define RTDG_TF32 1
#define NCOLP 3
#include <dg/tensor_core.h>
#undef NCOLP
#include <dg/bernstein_stencil.h>

#include <dg/bernstein.hpp>
#include <dg/element.hpp>

#include "kernels/fused/fused.hpp"  // stencil_table: the table the generator writes

namespace {

constexpr int kColumns = 3;  // NCOLP above

// Operator M (rows x k, row-major) in fragment order: TKS fragments per 8-row fragment row, 32
// reals per fragment, entry (row, k) at lane 4 (row % 8) + k % 4.
std::vector<double> fragments(const std::vector<double>& M, int rows, int ks, int tks) {
  std::vector<double> A(static_cast<std::size_t>((rows + 7) / 8 * tks * 32), 0.0);
  for (int r = 0; r < rows; ++r)
    for (int k = 0; k < ks; ++k)
      A[static_cast<std::size_t>(((r / 8) * tks + k / 4) * 32 + 4 * (r % 8) + k % 4)] = M[static_cast<std::size_t>(r * ks + k)];
  return A;
}

std::vector<double> random_values(std::size_t n, unsigned seed) {
  std::mt19937 generator(seed);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  std::vector<double> out(n);
  for (double& v : out) v = value(generator);
  return out;
}

TEST(DeviceHeaders, HostProductsAreTheOperatorProducts) {
  // Y = A B + A2 B2: A 16 x 8 (TM = 2, TK = 2), A2 16 x 4 (TK2 = 1); columns of 11 and 5 reals.
  constexpr int TM = 2, TK = 2, TLDB = 11, TK2 = 1, TLDB2 = 5, TLDY = 17;
  const std::vector<double> M = random_values(16 * 8, 1), M2 = random_values(16 * 4, 2);
  const std::vector<double> B = random_values(kColumns * TLDB, 3), B2 = random_values(kColumns * TLDB2, 4);
  const std::vector<double> A = fragments(M, 16, 8, TK), A2 = fragments(M2, 16, 4, TK2);
  std::vector<double> Y(kColumns * TLDY, -7.0);
  rtdg_host_products<TM, TK, TLDB, TK2, TLDB2, TLDY>(A.data(), B.data(), A2.data(), B2.data(), Y.data());
  for (int col = 0; col < kColumns; ++col)
    for (int row = 0; row < 16; ++row) {
      double expected = 0;
      for (int k = 0; k < 8; ++k) expected += M[static_cast<std::size_t>(row * 8 + k)] * B[static_cast<std::size_t>(col * TLDB + k)];
      for (int k = 0; k < 4; ++k) expected += M2[static_cast<std::size_t>(row * 4 + k)] * B2[static_cast<std::size_t>(col * TLDB2 + k)];
      EXPECT_NEAR(Y[static_cast<std::size_t>(col * TLDY + row)], expected, 1e-14) << row << ", " << col;
    }
  // Rows past TM * 8 of each column are not written.
  EXPECT_EQ(Y[16], -7.0);
}

TEST(DeviceHeaders, HostAccumulateReadsAWindowOfTheOperator) {
  // An 8 x 12 operator (3 fragments per row, TKS = 3); the product of its k = 4 .. 11 (TK = 2,
  // A pointing at the second fragment), added to what acc holds.
  constexpr int TM = 1, TK = 2, TKS = 3, TLDB = 9;
  const std::vector<double> M = random_values(8 * 12, 5), B = random_values(kColumns * TLDB, 6);
  const std::vector<double> A = fragments(M, 8, 12, TKS);
  std::vector<double> acc(kColumns * 8, 1.0);
  rtdg_host_accumulate<TM, TK, TKS, TLDB>(A.data() + 32, B.data(), acc.data());
  for (int col = 0; col < kColumns; ++col)
    for (int row = 0; row < 8; ++row) {
      double expected = 1.0;
      for (int k = 0; k < 8; ++k) expected += M[static_cast<std::size_t>(row * 12 + 4 + k)] * B[static_cast<std::size_t>(col * TLDB + k)];
      EXPECT_NEAR(acc[static_cast<std::size_t>(col * 8 + row)], expected, 1e-14);
    }
}

float as_float(unsigned bits) {
  float x;
  std::memcpy(&x, &bits, sizeof x);
  return x;
}

// x rounded to 11 significant bits, ties away from zero (cvt.rna.tf32.f32), in double.
double tf32_reference(float x) {
  if (x == 0.0f) return 0.0;
  int exponent = 0;
  const double mantissa = std::frexp(static_cast<double>(x), &exponent);  // [0.5, 1)
  return std::ldexp(std::round(mantissa * 2048.0) / 2048.0, exponent);
}

TEST(DeviceHeaders, HostTf32SplitRoundsAsTheDeviceDoes) {
  std::vector<float> values = {1.0f, 1.0f / 3.0f, 3.14159265f, -2.7e-5f, 1.0e30f, -123456.789f};
  // Ties: 1 + 2^-11 lies halfway between TF32 neighbours and rounds away from zero; one float
  // below it rounds down.
  values.push_back(as_float(0x3f801000u));
  values.push_back(as_float(0x3f800fffu));
  values.push_back(as_float(0xbf801000u));
  for (const float x : values) {
    unsigned hi = 0, lo = 0;
    rtdg_tf32_split(x, hi, lo);
    EXPECT_EQ(hi & 0x1fffu, 0u) << x;
    EXPECT_EQ(lo & 0x1fffu, 0u) << x;
    EXPECT_EQ(static_cast<double>(as_float(hi)), tf32_reference(x)) << x;
    const double sum = static_cast<double>(as_float(hi)) + static_cast<double>(as_float(lo));
    EXPECT_LE(std::abs(sum - static_cast<double>(x)), std::ldexp(std::abs(static_cast<double>(x)), -21)) << x;
  }
  EXPECT_EQ(as_float([] { unsigned hi = 0, lo = 0; rtdg_tf32_split(as_float(0x3f801000u), hi, lo); return hi; }()),
            1.0f + 1.0f / 1024.0f);
  // Infinity stays.
  unsigned hi = 0, lo = 0;
  rtdg_tf32_split(INFINITY, hi, lo);
  EXPECT_EQ(as_float(hi), INFINITY);
}

// A kernel calling every helper of dg/tensor_core.h in one configuration (real, tile rows,
// accumulator, TF32), so that each is compiled, not only parsed.
rtcg::Program probe_program(const std::string& real_type, int tile_rows, bool tf32) {
  rtcg::Program program;
  program.name = "dg_tensor_core_probe";
  program.source = "typedef " + real_type + " real;\n#define NCOLP 8\n#define RTDG_TILE_ROWS " + std::to_string(tile_rows) +
                   "\n#define RTDG_ACC " + std::to_string(tile_rows == 16 ? 4 : 2) + "\n#define RTDG_TF32 " +
                   (tf32 ? "1" : "0") + "\nextern \"C++\" {\n#include <dg/tensor_core.h>\n}\n" + R"(
RTCG_KERNEL(probe)(const real* RTCG_RESTRICT A, const real* RTCG_RESTRICT B, real* RTCG_RESTRICT Y) {
#if RTCG_CUDA
  const int lane = static_cast<int>(threadIdx.x) & 31;
  double d[RTDG_ACC] = {};
  double c[4] = {};
  rtdg_dmma_columns(c, A[lane], A[lane + 32], B[lane]);
#if RTDG_TF32
  // TF32 plans take no FP64 row tiles (their 16-row tiles are TF32 ones on every architecture).
#else
  rtdg_dmma(d, A[lane], A[lane + 32], B[lane]);
#if RTDG_TILE_ROWS == 16
  double a[8];
  for (int j = 0; j < 8; ++j) a[j] = A[lane + 32 * j];
  rtdg_dmma16(c, a, B[0], B[1], B[2], B[3]);
#endif
#endif
#if RTDG_TF32
  unsigned ah[4], al[4];
  for (int j = 0; j < 4; ++j) rtdg_tf32_split(float(A[lane + 32 * j]), ah[j], al[j]);
  float f[4] = {};
  rtdg_mma_3xtf32(f, ah, al, float(B[lane]), float(B[lane + 32]));
  c[0] += f[0];
#endif
  Y[lane] = real(d[0] + c[0]);
#else
  rtdg_host_products<1, 1, 4, 0, 1, 8>(A, B, A, B, Y);
  double acc[NCOLP * 8] = {};
  rtdg_host_accumulate<1, 1, 1, 4>(A, B, acc);
  Y[0] += real(acc[0]);
#endif
}
)";
  return program;
}

// D_a u at every node from the stencil functions against the dense Bernstein derivative
// (BernsteinOperators::derivative, built from the multi-indices by other code), for triangles
// and tetrahedra at orders 1-6.
template <int DIM>
void check_stencil(int N) {
  using rtdg::dg::Shape;
  const rtdg::dg::Element element = rtdg::dg::make_element(DIM == 2 ? Shape::triangle : Shape::tetrahedron, N);
  const rtdg::dg::BernsteinOperators b = rtdg::dg::make_bernstein(element);
  const std::vector<int> words = rtdg::dg::kernels::fused::stencil_words(element);
  const std::vector<double> u = random_values(static_cast<std::size_t>(element.Np), 11u + static_cast<unsigned>(N));
  const Eigen::Map<const Eigen::VectorXd> column(u.data(), element.Np);
  for (int a = 0; a < DIM; ++a) {
    const Eigen::VectorXd expected = b.derivative(a) * column;
    for (int i = 0; i < element.Np; ++i) {
      int sw[4];
      rtdg_stencil_words(words.data(), i, sw);
      int nb[12];  // DIM (DIM + 1) used
      double al[4];  // DIM + 1 used
      rtdg_stencil_unpack<DIM>(sw, nb, al);
      const double d0 = rtdg_stencil_d0<DIM>(u.data(), i, nb, al);
      const double d = a == 0 ? rtdg_stencil_d<DIM, 1>(u.data(), i, nb, al, d0)
                       : a == 1 ? rtdg_stencil_d<DIM, 2>(u.data(), i, nb, al, d0)
                                : rtdg_stencil_d<DIM, (DIM > 2 ? 3 : 1)>(u.data(), i, nb, al, d0);
      EXPECT_NEAR(d, expected(i), 1e-12 * (1 + std::abs(expected(i)))) << "DIM " << DIM << " N " << N << " a " << a
                                                                         << " node " << i;
    }
  }
}

TEST(DeviceHeaders, StencilDerivativesAreTheBernsteinDerivatives) {
  for (int N = 1; N <= 6; ++N) {
    check_stencil<2>(N);
    check_stencil<3>(N);
  }
}

// dg/bernstein_stencil.h included as the generator does (inside the program's extern "C").
rtcg::Program stencil_probe(const std::string& real_type) {
  rtcg::Program program;
  program.name = "dg_stencil_probe";
  // The macros a generated program defines before the include, which the header must not use
  // as names.
  program.source = "typedef " + real_type + " real;\n#define DIM 2\n#define NP 3\n#define NCOMP 3\n#include <dg/bernstein_stencil.h>\n" + R"(
#if RTCG_CUDA
__device__ const int4 table[2] = {{1, 0, 0, 0x0101}, {0, 0, 0, 0x0101}};
#else
static const int table[8] = {1, 0, 0, 0x0101, 0, 0, 0, 0x0101};
#endif
RTCG_KERNEL(stencil_probe)(const real* RTCG_RESTRICT u, real* RTCG_RESTRICT y) {
  int sw[4];
  rtdg_stencil_words(table, 0, sw);
  int nb[6];
  real al[3];
  rtdg_stencil_unpack<2>(sw, nb, al);
  const real d0 = rtdg_stencil_d0<2>(u, 0, nb, al);
  y[0] = rtdg_stencil_d<2, 1>(u, 0, nb, al, d0) + rtdg_stencil_d<2, 2>(u, 0, nb, al, d0);
}
)";
  return program;
}

TEST(DeviceHeaders, StencilHeaderCompilesWithNvrtcAndTheHostCompiler) {
  rtdg::dg::register_device_headers();
  const auto nvrtc = rtcg::make_nvrtc_compiler("sm_90");
  for (const char* real : {"double", "float"}) {
    EXPECT_NO_THROW((void)nvrtc->compile(stencil_probe(real))) << real;
    EXPECT_NO_THROW((void)rtcg::make_host_compiler()->compile(stencil_probe(real))) << real;
  }
}

TEST(DeviceHeaders, TensorCoreHeaderCompilesWithNvrtcAndTheHostCompiler) {
  rtdg::dg::register_device_headers();
  struct Configuration {
    const char* real_type;
    int tile_rows;
    bool tf32;
  };
  for (const char* arch : {"sm_90", "sm_80"}) {
    const auto nvrtc = rtcg::make_nvrtc_compiler(arch);
    for (const Configuration& c : {Configuration{"double", 8, false}, Configuration{"float", 8, false},
                                   Configuration{"double", 16, false}, Configuration{"float", 16, true}}) {
      // m16n8k4 and m16n8k16 are sm_90's (the generator takes 8-row tiles below it).
      if (c.tile_rows == 16 && !c.tf32 && std::string(arch) != "sm_90") continue;
      EXPECT_NO_THROW((void)nvrtc->compile(probe_program(c.real_type, c.tile_rows, c.tf32)))
          << arch << " " << c.real_type << " " << c.tile_rows;
    }
  }
  EXPECT_NO_THROW((void)rtcg::make_host_compiler()->compile(probe_program("float", 16, true)));
}

}  // namespace
