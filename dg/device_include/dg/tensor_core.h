// The tensor-core helpers of the fused stage kernel (dg/src/kernels/fused/): the mma wrappers
// (FP64 m8n8k4, m16n8k4, m16n8k16; TF32 m16n8k8 and its three-product form), the TF32 split,
// and on the host the products they stand for, as loops in double. Nothing here depends on the
// law, the order or the plan's sizes: a generated program defines those first and includes this
// header where its tile products begin (inside its extern "C++" block).
//
// The includer defines:
//   real             float or double, the kernel's real type
//   RTDG_TILE_ROWS   8 or 16: the rows of a tensor-core tile (rtdg_dmma: m8n8k4 or m16n8k4)
//   RTDG_ACC         2 or 4: the accumulator entries per lane of a tile
//   RTDG_TF32        0 or 1: whether the TF32 helpers are wanted (Products::tf32x3)
//   NCOLP            on the host: the block's (padded) column count, the products' width
// Fragments: lane = 4 g + t of a warp (g = lane / 4, t = lane % 4) holds row g at k = t of an
// 8 x 4 operator fragment; the operators' fragments are laid out so (mma_fragment_reals,
// dg/kernels.hpp), 32 reals per fragment, 8-row fragment rows of TKS fragments each.
#ifndef RTDG_TENSOR_CORE_H
#define RTDG_TENSOR_CORE_H

#include <rtcg/kernel.h>

#if !defined(RTDG_TILE_ROWS) || !defined(RTDG_ACC) || !defined(RTDG_TF32)
#error "dg/tensor_core.h: define RTDG_TILE_ROWS, RTDG_ACC and RTDG_TF32 (and real) before including it"
#endif

#if RTCG_CUDA
// d += a b on one 8 x 8 (m8n8k4) or 16 x 8 (m16n8k4, sm_90: twice the rate on Hopper) tile;
// a1 is the second 8-row fragment's entry (m16n8k4 only).
RTCG_DEVICE void rtdg_dmma(double (&d)[RTDG_ACC], double a0, double a1, double b) {
#if RTDG_TILE_ROWS == 16
  asm volatile("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};"
               : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3]) : "d"(a0), "d"(a1), "d"(b));
#else
  (void)a1;
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};"
               : "+d"(d[0]), "+d"(d[1]) : "d"(a0), "d"(b));
#endif
}
#if RTDG_TF32
// Products::tf32x3: x = hi + lo, hi = x rounded to TF32, lo = the rest rounded to TF32.
RTCG_DEVICE void rtdg_tf32_split(float x, unsigned& hi, unsigned& lo) {
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(hi) : "f"(x));
  const float rest = x - __uint_as_float(hi);
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(lo) : "f"(rest));
}
// d += a b on a 16 x 8 tile over 8 k (m16n8k8, TF32 in, float sums): a0, a1 rows g, g + 8 at
// k = t; a2, a3 the same at k = t + 4; b0, b1 at k = t, t + 4 (g = lane / 4, t = lane % 4).
RTCG_DEVICE void rtdg_mma_tf32(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
  asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
// d += a b in three TF32 products, the small ones first.
RTCG_DEVICE void rtdg_mma_3xtf32(float (&d)[4], const unsigned (&ah)[4], const unsigned (&al)[4], float b0, float b1) {
  unsigned bh0, bl0, bh1, bl1;
  rtdg_tf32_split(b0, bh0, bl0);
  rtdg_tf32_split(b1, bh1, bl1);
  rtdg_mma_tf32(d, al, bh0, bh1);
  rtdg_mma_tf32(d, ah, bl0, bl1);
  rtdg_mma_tf32(d, ah, bh0, bh1);
}
#endif
#if RTDG_TILE_ROWS == 16
// d += a b on a 16 x 8 tile over 16 k (m16n8k16): a[2j], a[2j+1] rows g, g + 8 at k = t + 4j;
// b_j at k = t + 4j (g = lane / 4, t = lane % 4).
RTCG_DEVICE void rtdg_dmma16(double (&d)[4], const double (&a)[8], double b0, double b1, double b2, double b3) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5, %6, %7, %8, %9, %10, %11}, "
               "{%12, %13, %14, %15}, {%0, %1, %2, %3};"
               : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
               : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]), "d"(a[7]),
                 "d"(b0), "d"(b1), "d"(b2), "d"(b3));
}
#endif
// d += a b on a 16 x 8 tile: a0, a1 columns g, g + 8 at k = t; b operator row g at k = t (m16n8k4
// on sm_90; below, two m8n8k4).
RTCG_DEVICE void rtdg_dmma_columns(double (&d)[4], double a0, double a1, double b) {
#if __CUDA_ARCH__ >= 900
  asm volatile("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};"
               : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3]) : "d"(a0), "d"(a1), "d"(b));
#else
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};"
               : "+d"(d[0]), "+d"(d[1]) : "d"(a0), "d"(b));
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};"
               : "+d"(d[2]), "+d"(d[3]) : "d"(a1), "d"(b));
#endif
}
#else
#if RTDG_TF32
// Products::tf32x3 on the host, as cvt.rna.tf32.f32 on the device: hi = x rounded to TF32 (10
// mantissa bits, ties away from zero; a float's bit pattern with the low 13 bits zero), lo = the
// rest x - hi rounded so, so that x = hi + lo to within 2^-22 |x|. Infinities and NaNs stay as they are.
static inline unsigned rtdg_tf32_round(float x) {
  unsigned bits;
  __builtin_memcpy(&bits, &x, sizeof bits);
  if ((bits & 0x7f800000u) == 0x7f800000u) return bits;
  return (bits + 0x1000u) & 0xffffe000u;
}
static inline float rtdg_tf32_value(unsigned bits) {
  float x;
  __builtin_memcpy(&x, &bits, sizeof x);
  return x;
}
static inline void rtdg_tf32_split(float x, unsigned& hi, unsigned& lo) {
  hi = rtdg_tf32_round(x);
  lo = rtdg_tf32_round(x - rtdg_tf32_value(hi));
}
#endif
#ifdef NCOLP
// sum_k A(row, k) B[col * TLDB + k] over TK * 4 k, A in fragment order with TKS fragments per
// fragment row (A points at the first one used), in double whatever `real` is.
template <int TK, int TKS, int TLDB>
static inline double rtdg_host_dot(const real* A, int row, const real* B, int col) {
  double sum = 0;
  for (int k = 0; k < TK * 4; ++k) sum += double(A[((row / 8) * TKS + k / 4) * 32 + 4 * (row % 8) + k % 4]) * double(B[col * TLDB + k]);
  return sum;
}
// Y[col * TLDY + row] = A B + A2 B2 (the second product only when TK2 > 0) over TM * 8 rows. A
// column is written once it is computed, columns in order: Y may lie over B when TLDY <= TLDB
// (the CUDA alias_y).
template <int TM, int TK, int TLDB, int TK2, int TLDB2, int TLDY>
static inline void rtdg_host_products(const real* A, const real* B, const real* A2, const real* B2, real* Y) {
  for (int col = 0; col < NCOLP; ++col) {
    double column[TM * 8u];
    for (int row = 0; row < TM * 8; ++row)
      column[row] = rtdg_host_dot<TK, TK, TLDB>(A, row, B, col) + rtdg_host_dot<TK2, TK2, TLDB2>(A2, row, B2, col);
    for (int row = 0; row < TM * 8; ++row) Y[col * TLDY + row] = real(column[row]);
  }
}
// acc[col * TM * 8 + row] += A B over TM * 8 rows (A as for rtdg_host_dot).
template <int TM, int TK, int TKS, int TLDB>
static inline void rtdg_host_accumulate(const real* A, const real* B, double* acc) {
  for (int col = 0; col < NCOLP; ++col)
    for (int row = 0; row < TM * 8; ++row) acc[col * TM * 8 + row] += rtdg_host_dot<TK, TKS, TLDB>(A, row, B, col);
}
#endif
#endif

#endif  // RTDG_TENSOR_CORE_H
