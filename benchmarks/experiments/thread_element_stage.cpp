// Experiment (session 39, 2026-11-29; not built by CMake, not used by rtdg): a fused LSERK stage of
// 3D Maxwell (upwind, eps = mu = 1, PEC walls) with one element per thread (T = 1) or one field of
// one element per thread (T = 2, E rows and H rows of the same element on neighbouring lanes,
// the other field's jump taken by a shuffle), the state element-fastest,
//     q[(c Np + i) K + k],
// so that every load and store of an element's own values is one fully coalesced warp access
// (32 elements' node i of component c) and no shared memory or barrier is used at all. The
// question for issue 10: the generated winners at orders 2-4 are held by the L1/shared-memory
// pipe (151 shared wavefronts per element at double order 2, session 38); this design has none,
// at the price of neighbour gathers that touch about 79 lines per element instead of 36
// (gather_lines.cpp's count with this layout) and of registers for the Np x 6 accumulators.
//
// Operators are literals (zeros dropped), generated from rtdg's own element. The answer is checked
// against rtdg's solver (its default plan, the same backend) through rhs(); the time is compared in
// the same run with a plan the caller names (the tuned winner), on the same mesh and boundaries,
// and against the roofline measured in the run.
//
// Measured on the H200 (benchmarks/results/dg-experiments-h200-2026-11-29-session39.log, results
// README, session 39): correct everywhere, but only order 1 gained (0.0780 against 0.1038 ms per
// stage); the best order-2 shape (T = 6, 2 rounds) was 1.27x behind the winner, latency-bound with
// the L1 pipe 49 % busy, and orders 3-4 were 2-6x behind. Its loads and stores alone (TE_SKELETON,
// session 40, benchmarks/results/dg-skeleton-element-fastest-h200-2026-11-29-session40.log) reach
// 48.6 / 41.8 / 32.5 % of the memory bound at double orders 2-4 and 34.6 / 34.3 / 30.9 % in float:
// no more than the element-major winners reach with all their arithmetic (47 / 44 / 44 %, 37 / 39 /
// 38 % in the same runs).
//
// Build against a configured build tree (the link line of apps/rtdg): see thread_element_stage.sh.
//   thread_element_stage <config.toml> <mesh.h5> <N> <double|float> <T: 1|2|6> <block> [plan text | db:<tuning.json>]
// T = 6 takes TE_ROWS (row groups, default 1) and TE_ROUNDS (1, 2 or 4); TE_MINB (every T) a register
// cap for that many blocks per SM; TE_BACKEND=host runs T = 1 on the host backend (the check only);
// TE_DUMP=<file> writes the kernel's source; TE_SKELETON=1 (T = 1) times the loads and stores
// alone (no arithmetic; the check then fails by design). Debugging the check: TE_PARTS = 1 (volume term only,
// against a host volume term), 2 (surface only, against the solver's rhs less it), | 4 (a host
// surface term from vmapM / vmapP instead); TE_POLY = 1 a smooth state (no jumps).
#include <dg/solver.hpp>
#include <dg/tuning.hpp>
#include <rtcg/backend.hpp>
#include <rtcg/module.hpp>
#include <rtcg/roofline.hpp>
#include <rtcg/tuner.hpp>
#include <runner/problem.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace rtdg;

namespace {

std::string literal(double v, bool single) {
  char text[64];
  std::snprintf(text, sizeof text, single ? "%.9ef" : "%.17e", v);
  return text;
}

// G_{c,a} = sum_d g[a][d] F_{d,c}(u) of (Ex Ey Ez Hx Hy Hz) = u0 ... u5, F from rtdg's maxwell3d
// law (eps = mu = 1), g0 ... g8 = r_x r_y r_z s_x ... t_z (see the volume term in stage_source).
const char* const maxwell_G[6][3] = {{"g1 * u5 - g2 * u4", "g4 * u5 - g5 * u4", "g7 * u5 - g8 * u4"},
                                     {"-g0 * u5 + g2 * u3", "-g3 * u5 + g5 * u3", "-g6 * u5 + g8 * u3"},
                                     {"g0 * u4 - g1 * u3", "g3 * u4 - g4 * u3", "g6 * u4 - g7 * u3"},
                                     {"-g1 * u2 + g2 * u1", "-g4 * u2 + g5 * u1", "-g7 * u2 + g8 * u1"},
                                     {"g0 * u2 - g2 * u0", "g3 * u2 - g5 * u0", "g6 * u2 - g8 * u0"},
                                     {"-g0 * u1 + g1 * u0", "-g3 * u1 + g4 * u0", "-g6 * u1 + g7 * u0"}};

// The stage kernel's source. Arguments: q, res (read), qn, resn (written), geo (25 x K:
// r_x r_y r_z s_x s_y s_z t_x t_y t_z, then per face nx ny nz Fscale), P (Nfaces Nfp x K: the
// exterior twin's offset iP K + kP, or -1 on a PEC face), a, b, dt, K.
std::string stage_source(const dg::Element& el, bool single, int T, int block) {
  const int Np = el.Np, Nfp = el.Nfp, Nf = el.Nfaces;
  const int parts = std::getenv("TE_PARTS") ? std::atoi(std::getenv("TE_PARTS")) : 3;  // 1 volume, 2 surface
  std::ostringstream s;
  s << "typedef " << (single ? "float" : "double") << " real;\n";
  s << "#define NP " << Np << "\n";
  // TE_MINB with T = 1 or 2 (CUDA only: the host backend finds kernels by RTCG_KERNEL(name)):
  // __launch_bounds__(block, TE_MINB), a register cap for that many blocks per SM.
  const int min_blocks = std::getenv("TE_MINB") ? std::atoi(std::getenv("TE_MINB")) : 0;
  s << "RTCG_KERNEL("
    << (min_blocks > 0 ? "__launch_bounds__(" + std::to_string(block) + ", " + std::to_string(min_blocks) + ") " : std::string())
    << "te_stage)(const real* RTCG_RESTRICT q, const real* RTCG_RESTRICT res, real* RTCG_RESTRICT qn,\n"
       "  real* RTCG_RESTRICT resn, const real* RTCG_RESTRICT geo, const int* RTCG_RESTRICT P, real a, real b, real dt,\n"
       "  int K) {\n";
  const int C = T == 1 ? 6 : 3;  // rows (components) per thread
  if (T == 1 && std::getenv("TE_SKELETON")) {
    // The loads and stores of T = 1 without its arithmetic (session 40): the geometry, the face
    // map, the element's own face traces and the neighbours' (the gather), res and q, then qn and
    // resn; a sum of everything loaded stands in for the right-hand side so that no load is
    // dropped. What this layout's data movement alone reaches (session 36 measured the same for
    // the element-major staging: 66-69 % of the bound at order 2 on the H200).
    s << "RTCG_GLOBAL_LOOP(kk, K) {\n const int k = (int)kk;\n const long long KK = K;\n real sum = 0;\n";
    for (int x = 0; x < 9 + 4 * Nf; ++x) s << " sum += geo[" << x << " * KK + k];\n";
    for (int f = 0; f < Nf; ++f)
      for (int m = 0; m < Nfp; ++m) {
        const int iM = el.Fmask(m, f), fm = f * Nfp + m;
        s << " { const int p = P[" << fm << " * KK + k];\n";
        for (int c = 0; c < 6; ++c)
          s << "  sum += q[(" << c << " * NP + " << iM << ") * KK + k] - (p >= 0 ? q[" << c << " * NP * KK + p] : (real)0);\n";
        s << " }\n";
      }
    for (int c = 0; c < 6; ++c)
      for (int i = 0; i < Np; ++i) {
        const std::string at = "(" + std::to_string(c) + " * NP + " + std::to_string(i) + ") * KK + k";
        s << " { const real u = q[" << at << "]; const real r = a * res[" << at << "] + dt * (u + sum); resn[" << at
          << "] = r; qn[" << at << "] = u + b * r; }\n";
      }
    s << "}\n}\n";
    return s.str();
  }
  if (T == 1) {
    s << "RTCG_GLOBAL_LOOP(kk, K) {\n const int k = (int)kk;\n";
  } else {
    // Lanes 2e and 2e + 1: element e's E rows (h = 0) and H rows (h = 1). Every lane of the warp
    // takes part in the shuffles, so lanes past the last element compute element K - 1 and do not
    // store.
    s << "#if RTCG_CUDA\n"
         " const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
         " const int h = (int)(t & 1);\n"
         " const bool valid = (t >> 1) < K;\n"
         " const int k = valid ? (int)(t >> 1) : K - 1;\n"
         " const real sgn = h ? (real)-1 : (real)1;\n"
         " const int own = 3 * h, other = 3 - 3 * h;\n"
         " {\n"
         "#else\n"
         " #error T = 2 needs CUDA\n"
         "#endif\n";
  }
  s << " const long long KK = K;\n";
  for (int x = 0; x < 9; ++x) s << " const real g" << x << " = geo[" << x << " * KK + k];\n";
  s << " real acc[" << C << "][NP];\n";
  for (int c = 0; c < C; ++c)
    for (int i = 0; i < Np; ++i) s << " acc[" << c << "][" << i << "] = 0;\n";
  // Volume: rhs_c = -sum_d d/dx_d F_{c,d}(u) = -sum_a D_a (sum_d g[a][d] F_{c,d}). The law's
  // Maxwell flux is antisymmetric in (c, d): F_{c,d} = -F_{d,c}; the G below are sum_d g[a][d]
  // F_{d,c} (the curl read column-wise), so acc_c(i) += sum_a D_a(i, j) G_{c,a}.
  for (int j = 0; j < ((parts & 1) ? Np : 0); ++j) {
    s << " {\n";
    // Directions whose column j of D_a has a non-zero entry: the others' G are not formed.
    bool used[3] = {false, false, false};
    for (int i = 0; i < Np; ++i) {
      used[0] = used[0] || el.Dr(i, j) != 0;
      used[1] = used[1] || el.Ds(i, j) != 0;
      used[2] = used[2] || el.Dt(i, j) != 0;
    }
    if (T == 1) {
      for (int c = 0; c < 6; ++c) s << "  const real u" << c << " = q[(" << c << " * NP + " << j << ") * KK + k];\n";
      for (int c = 0; c < 6; ++c)
        for (int a = 0; a < 3; ++a)
          if (used[a]) s << "  const real G" << c << a << " = " << maxwell_G[c][a] << ";\n";
    } else {
      // The other field v (H for E rows, E for H rows): the E rows' formulas, negated for H.
      for (int c = 0; c < 3; ++c)
        s << "  const real v" << c << " = q[((other + " << c << ") * NP + " << j << ") * KK + k];\n";
      const char* G[3][3] = {{"g1 * v2 - g2 * v1", "g4 * v2 - g5 * v1", "g7 * v2 - g8 * v1"},
                             {"-g0 * v2 + g2 * v0", "-g3 * v2 + g5 * v0", "-g6 * v2 + g8 * v0"},
                             {"g0 * v1 - g1 * v0", "g3 * v1 - g4 * v0", "g6 * v1 - g7 * v0"}};
      for (int c = 0; c < 3; ++c)
        for (int a = 0; a < 3; ++a)
          if (used[a]) s << "  const real G" << c << a << " = sgn * (" << G[c][a] << ");\n";
    }
    for (int i = 0; i < Np; ++i) {
      const double d[3] = {el.Dr(i, j), el.Ds(i, j), el.Dt(i, j)};
      if (d[0] == 0 && d[1] == 0 && d[2] == 0) continue;
      for (int c = 0; c < C; ++c) {
        s << "  acc[" << c << "][" << i << "] +=";
        bool first = true;
        for (int a = 0; a < 3; ++a) {
          if (d[a] == 0) continue;
          s << (first ? " " : " + ") << literal(d[a], single) << " * G" << c << a;
          first = false;
        }
        s << ";\n";
      }
    }
    s << " }\n";
  }
  // Surface: the upwind flux of the jump d = int - ext, f_E = 1/2 (n x (n x dE) - n x dH),
  // f_H = 1/2 (n x (n x dH) + n x dE); acc += LIFT (Fscale f).
  for (int f = 0; f < ((parts & 2) ? Nf : 0); ++f) {
    s << " {\n";
    for (int x = 0; x < 4; ++x) s << "  const real n" << x << " = geo[" << 9 + 4 * f + x << " * KK + k];\n";
    for (int m = 0; m < Nfp; ++m) {
      const int iM = el.Fmask(m, f), fm = f * Nfp + m;
      s << "  {\n   const int p = P[" << fm << " * KK + k];\n";
      if (T == 1) {
        for (int c = 0; c < 6; ++c) s << "   const real m" << c << " = q[(" << c << " * NP + " << iM << ") * KK + k];\n";
        // PEC: ext = (-E, H), so dE = 2 E, dH = 0.
        for (int c = 0; c < 6; ++c)
          s << "   const real d" << c << " = p >= 0 ? m" << c << " - q[" << c << " * NP * KK + p] : "
            << (c < 3 ? "2 * m" + std::to_string(c) : std::string("(real)0")) << ";\n";
        s << "   const real ndE = n0 * d0 + n1 * d1 + n2 * d2, ndH = n0 * d3 + n1 * d4 + n2 * d5;\n"
             "   const real hs = (real)0.5 * n3;\n"
             "   const real f0 = hs * (ndE * n0 - d0 - (n1 * d5 - n2 * d4));\n"
             "   const real f1 = hs * (ndE * n1 - d1 - (n2 * d3 - n0 * d5));\n"
             "   const real f2 = hs * (ndE * n2 - d2 - (n0 * d4 - n1 * d3));\n"
             "   const real f3 = hs * (ndH * n0 - d3 + (n1 * d2 - n2 * d1));\n"
             "   const real f4 = hs * (ndH * n1 - d4 + (n2 * d0 - n0 * d2));\n"
             "   const real f5 = hs * (ndH * n2 - d5 + (n0 * d1 - n1 * d0));\n";
      } else {
        // x: this lane's field's jump; y: the other field's, from the partner lane.
        for (int c = 0; c < 3; ++c)
          s << "   const real m" << c << " = q[((own + " << c << ") * NP + " << iM << ") * KK + k];\n";
        for (int c = 0; c < 3; ++c)
          s << "   const real x" << c << " = p >= 0 ? m" << c << " - q[(own + " << c << ") * NP * KK + p] : (h ? (real)0 : 2 * m"
            << c << ");\n";
        for (int c = 0; c < 3; ++c) s << "   const real y" << c << " = __shfl_xor_sync(0xffffffffu, x" << c << ", 1);\n";
        // f = 1/2 (n x (n x x) - sgn n x y), n x (n x x) = n (n.x) - x.
        s << "   const real nx_ = n0 * x0 + n1 * x1 + n2 * x2;\n"
             "   const real hs = (real)0.5 * n3;\n"
             "   const real f0 = hs * (nx_ * n0 - x0 - sgn * (n1 * y2 - n2 * y1));\n"
             "   const real f1 = hs * (nx_ * n1 - x1 - sgn * (n2 * y0 - n0 * y2));\n"
             "   const real f2 = hs * (nx_ * n2 - x2 - sgn * (n0 * y1 - n1 * y0));\n";
      }
      for (int i = 0; i < Np; ++i) {
        const double l = el.LIFT(i, fm);
        if (l == 0) continue;
        for (int c = 0; c < C; ++c) s << "   acc[" << c << "][" << i << "] += " << literal(l, single) << " * f" << c << ";\n";
      }
      s << "  }\n";
    }
    s << " }\n";
  }
  // LSERK update: resn = a res + dt rhs, qn = q + b resn.
  if (T == 2) s << " if (valid) {\n";
  for (int c = 0; c < C; ++c)
    for (int i = 0; i < Np; ++i) {
      const std::string at = T == 1 ? "(" + std::to_string(c) + " * NP + " + std::to_string(i) + ") * KK + k"
                                    : "((own + " + std::to_string(c) + ") * NP + " + std::to_string(i) + ") * KK + k";
      s << " { const real r = a * res[" << at << "] + dt * acc[" << c << "][" << i << "]; resn[" << at << "] = r; qn["
        << at << "] = q[" << at << "] + b * r; }\n";
    }
  if (T == 2) s << " }\n";
  s << "}\n}\n";
  return s.str();
}

// T = 6: a block of 32 elements (lane = element), its warps w = (r, c): component c = w % 6 and
// row group r = w / 6 (rows r Ri ... r Ri + Ri - 1, Ri = ceil(Np / R)). Each face node's flux (all
// six components, gathered once) is computed by one warp and kept in shared memory, element-
// fastest so that every shared access is conflict-free; after a barrier each warp lifts its
// component's fluxes into its rows, adds the volume term of its rows (loading the two components
// of the other field it needs) and updates them. The faces go in `rounds` rounds (1, 2 or 4) to
// bound the shared memory: Nfaces / rounds x Nfp x 6 x 32 reals.
std::string component_warp_source(const dg::Element& el, bool single, int R, int rounds) {
  const int Np = el.Np, Nfp = el.Nfp, Nf = el.Nfaces;
  const int Ri = (Np + R - 1) / R, per_round = Nf / rounds * Nfp, W = 6 * R;
  // The other field's components in component c's G_a (see stage_source) and their formulas.
  const int needs[6][2] = {{5, 4}, {5, 3}, {4, 3}, {2, 1}, {2, 0}, {1, 0}};
  std::ostringstream s;
  s << "typedef " << (single ? "float" : "double") << " real;\n#define NP " << Np << "\n";
  // TE_MINB: __launch_bounds__(threads, TE_MINB), a register cap for that many blocks per SM.
  const int min_blocks = std::getenv("TE_MINB") ? std::atoi(std::getenv("TE_MINB")) : 0;
  s << "#if RTCG_CUDA\n#define TE_BOUNDS " << (min_blocks > 0 ? "__launch_bounds__(" + std::to_string(32 * W) + ", " + std::to_string(min_blocks) + ")" : std::string()) << "\n#endif\n";
  s << "RTCG_KERNEL(TE_BOUNDS te_stage)(const real* RTCG_RESTRICT q, const real* RTCG_RESTRICT res, real* RTCG_RESTRICT qn,\n"
       "  real* RTCG_RESTRICT resn, const real* RTCG_RESTRICT geo, const int* RTCG_RESTRICT P, real a, real b, real dt,\n"
       "  int K) {\n#if RTCG_CUDA\n";
  s << " __shared__ real sF[" << per_round * 6 * 32 << "];\n";
  s << " const int lane = threadIdx.x & 31, w = threadIdx.x >> 5, c = w % 6, r = w / 6;\n"
       " const int k0 = blockIdx.x * 32 + lane;\n const bool valid = k0 < K;\n const int k = valid ? k0 : K - 1;\n"
       " const long long KK = K;\n";
  s << " real acc[" << Ri << "];\n";
  for (int ii = 0; ii < Ri; ++ii) s << " acc[" << ii << "] = 0;\n";
  for (int round = 0; round < rounds; ++round) {
    if (round > 0) s << " __syncthreads();\n";
    // Phase 1: the round's face nodes, node idx by warp idx % W.
    for (int idx = 0; idx < per_round; ++idx) {
      const int fm = round * per_round + idx, f = fm / Nfp, iM = el.Fmask(fm % Nfp, f);
      s << " if (w == " << idx % W << ") {\n  const int p = P[" << fm << " * KK + k];\n";
      for (int x = 0; x < 4; ++x) s << "  const real n" << x << " = geo[" << 9 + 4 * f + x << " * KK + k];\n";
      for (int cc = 0; cc < 6; ++cc) s << "  const real m" << cc << " = q[(" << cc << " * NP + " << iM << ") * KK + k];\n";
      for (int cc = 0; cc < 6; ++cc)
        s << "  const real d" << cc << " = p >= 0 ? m" << cc << " - q[" << cc << " * NP * KK + p] : "
          << (cc < 3 ? "2 * m" + std::to_string(cc) : std::string("(real)0")) << ";\n";
      s << "  const real ndE = n0 * d0 + n1 * d1 + n2 * d2, ndH = n0 * d3 + n1 * d4 + n2 * d5;\n"
           "  const real hs = (real)0.5 * n3;\n";
      const char* flux[6] = {"hs * (ndE * n0 - d0 - (n1 * d5 - n2 * d4))", "hs * (ndE * n1 - d1 - (n2 * d3 - n0 * d5))",
                             "hs * (ndE * n2 - d2 - (n0 * d4 - n1 * d3))", "hs * (ndH * n0 - d3 + (n1 * d2 - n2 * d1))",
                             "hs * (ndH * n1 - d4 + (n2 * d0 - n0 * d2))", "hs * (ndH * n2 - d5 + (n0 * d1 - n1 * d0))"};
      for (int cc = 0; cc < 6; ++cc) s << "  sF[" << (idx * 6 + cc) * 32 << " + lane] = " << flux[cc] << ";\n";
      s << " }\n";
    }
    s << " __syncthreads();\n";
    // Phase 2: per row group, the volume term (first round only) and the round's lift.
    for (int rg = 0; rg < R; ++rg) {
      s << " if (r == " << rg << ") {\n";
      if (round == 0) {
        for (int x = 0; x < 9; ++x) s << "  const real g" << x << " = geo[" << x << " * KK + k];\n";
        s << "  switch (c) {\n";
        for (int c = 0; c < 6; ++c) {
          s << "  case " << c << ": {\n";
          for (int j = 0; j < Np; ++j) {
            s << "   {\n";
            for (const int cc : needs[c]) s << "    const real u" << cc << " = q[(" << cc << " * NP + " << j << ") * KK + k];\n";
            bool used[3] = {false, false, false};
            for (int ii = 0; ii < Ri && rg * Ri + ii < Np; ++ii) {
              used[0] = used[0] || el.Dr(rg * Ri + ii, j) != 0;
              used[1] = used[1] || el.Ds(rg * Ri + ii, j) != 0;
              used[2] = used[2] || el.Dt(rg * Ri + ii, j) != 0;
            }
            for (int a = 0; a < 3; ++a)
              if (used[a]) s << "    const real G" << a << " = " << maxwell_G[c][a] << ";\n";
            for (int ii = 0; ii < Ri && rg * Ri + ii < Np; ++ii) {
              const int i = rg * Ri + ii;
              const double d[3] = {el.Dr(i, j), el.Ds(i, j), el.Dt(i, j)};
              if (d[0] == 0 && d[1] == 0 && d[2] == 0) continue;
              s << "    acc[" << ii << "] +=";
              bool first = true;
              for (int a = 0; a < 3; ++a) {
                if (d[a] == 0) continue;
                s << (first ? " " : " + ") << literal(d[a], single) << " * G" << a;
                first = false;
              }
              s << ";\n";
            }
            s << "   }\n";
          }
          s << "  } break;\n";
        }
        s << "  }\n";
      }
      for (int idx = 0; idx < per_round; ++idx) {
        const int fm = round * per_round + idx;
        s << "  { const real fl = sF[" << idx * 6 * 32 << " + c * 32 + lane];\n";
        for (int ii = 0; ii < Ri && rg * Ri + ii < Np; ++ii) {
          const double l = el.LIFT(rg * Ri + ii, fm);
          if (l != 0) s << "   acc[" << ii << "] += " << literal(l, single) << " * fl;\n";
        }
        s << "  }\n";
      }
      if (round == rounds - 1) {
        s << "  if (valid) {\n";
        for (int ii = 0; ii < Ri && rg * Ri + ii < Np; ++ii) {
          const std::string at = "(c * NP + " + std::to_string(rg * Ri + ii) + ") * KK + k";
          s << "   { const real x = a * res[" << at << "] + dt * acc[" << ii << "]; resn[" << at << "] = x; qn[" << at
            << "] = q[" << at << "] + b * x; }\n";
        }
        s << "  }\n";
      }
      s << " }\n";
    }
  }
  s << "#else\n #error T = 6 needs CUDA\n#endif\n}\n";
  return s.str();
}

template <class R>
struct Device {
  rtcg::Backend& backend;
  R* p = nullptr;
  std::size_t n = 0;
  Device(rtcg::Backend& b, std::size_t count) : backend(b), n(count) { p = static_cast<R*>(b.allocate(count * sizeof(R))); }
  ~Device() { backend.deallocate(p); }
  void put(const std::vector<R>& v) { backend.copy_to_device(p, v.data(), n * sizeof(R)); }
  std::vector<R> get() const {
    std::vector<R> v(n);
    backend.copy_to_host(v.data(), p, n * sizeof(R));
    return v;
  }
};

// Median of `runs` timed runs after two untimed ones.
double median_ms(rtcg::Backend& backend, int runs, const std::function<void()>& work) {
  for (int warm = 0; warm < 2; ++warm) work();
  backend.synchronize();
  std::vector<double> times(static_cast<std::size_t>(runs));
  for (double& time : times) time = backend.time_ms(work);
  return rtcg::tune::median(times);
}

template <class R>
int run(runner::Problem& problem, bool single, int T, int block, const std::string& plan_text) {
  const dg::Discretization& d = problem.disc;
  const dg::Element& el = d.element;
  const int Np = el.Np, Nfp = el.Nfp, Nf = el.Nfaces, K = d.K;
  rtcg::Backend& backend = rtcg::backend(problem.cfg.backend);
  dg::Solver solver(backend, d, problem.setup);

  // The state, random, in the solver's host layout [c][k][i] and element-fastest [(c Np + i) K + k].
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> uni(-1, 1);
  std::vector<double> host(static_cast<std::size_t>(6) * K * Np);
  for (double& v : host) v = uni(rng);
  if (std::getenv("TE_POLY"))  // debugging: E = 0, H a quadratic polynomial (no jumps anywhere)
    for (int c = 0; c < 6; ++c)
      for (int k = 0; k < K; ++k)
        for (int i = 0; i < Np; ++i) {
          const double x = d.x(i, k), y = d.y(i, k), z = d.z(i, k);
          const double v[6] = {0, 0, 0, y * y + z, x * z, x * y + 2 * x};
          host[(static_cast<std::size_t>(c) * K + k) * Np + i] = v[c];
        }
  if (single)
    for (double& v : host) v = static_cast<double>(static_cast<float>(v));
  auto soa = [&](int c, int k, int i) { return (static_cast<std::size_t>(c) * Np + i) * K + k; };
  std::vector<R> q(host.size()), zero(host.size(), R(0));
  for (int c = 0; c < 6; ++c)
    for (int k = 0; k < K; ++k)
      for (int i = 0; i < Np; ++i) q[soa(c, k, i)] = static_cast<R>(host[(static_cast<std::size_t>(c) * K + k) * Np + i]);
  std::vector<R> geo(static_cast<std::size_t>(25) * K);
  std::vector<int> P(static_cast<std::size_t>(Nf) * Nfp * K);
  for (int k = 0; k < K; ++k) {
    const double g[9] = {d.rx(0, k), d.ry(0, k), d.rz(0, k), d.sx(0, k), d.sy(0, k), d.sz(0, k), d.tx(0, k), d.ty(0, k), d.tz(0, k)};
    for (int x = 0; x < 9; ++x) geo[static_cast<std::size_t>(x) * K + k] = static_cast<R>(g[x]);
    for (int f = 0; f < Nf; ++f) {
      const double n[4] = {d.nx(f * Nfp, k), d.ny(f * Nfp, k), d.nz(f * Nfp, k), d.Fscale(f * Nfp, k)};
      for (int x = 0; x < 4; ++x) geo[static_cast<std::size_t>(9 + 4 * f + x) * K + k] = static_cast<R>(n[x]);
      for (int m = 0; m < Nfp; ++m) {
        const int fm = f * Nfp + m, vP = d.vmapP(fm, k);
        P[static_cast<std::size_t>(fm) * K + k] = vP == d.vmapM(fm, k) ? -1 : (vP % Np) * K + vP / Np;
      }
    }
  }
  Device<R> dq(backend, q.size()), dres(backend, q.size()), dqn(backend, q.size()), dresn(backend, q.size()),
      dgeo(backend, geo.size());
  Device<int> dP(backend, P.size());
  dq.put(q);
  dres.put(zero);
  dgeo.put(geo);
  dP.put(P);

  rtcg::Program program;
  program.name = "te_stage";
  const int row_groups = std::getenv("TE_ROWS") ? std::atoi(std::getenv("TE_ROWS")) : 1;
  const int rounds = std::getenv("TE_ROUNDS") ? std::atoi(std::getenv("TE_ROUNDS")) : 1;
  program.source = T == 6 ? component_warp_source(el, single, row_groups, rounds) : stage_source(el, single, T, block);
  if (const char* dump = std::getenv("TE_DUMP")) std::ofstream(dump) << program.source;
  if (T == 6) block = 192 * row_groups;
  auto module = backend.compile(program);
  auto kernel = module->kernel("te_stage");
  const rtcg::KernelAttributes at = kernel->attributes();
  const long long threads = T == 6 ? (static_cast<long long>(K) + 31) / 32 * block : static_cast<long long>(K) * T;
  const rtcg::LaunchShape shape{{static_cast<unsigned>((threads + block - 1) / block), 1, 1}, {static_cast<unsigned>(block), 1, 1}, 0};
  auto stage = [&](R a, R b, R dt) { (*kernel)(shape, dq.p, dres.p, dqn.p, dresn.p, dgeo.p, dP.p, a, b, dt, K); };

  // Check: a = 0, dt = 1 makes resn the right-hand side.
  stage(R(0), R(0), R(1));
  const std::vector<R> mine = dresn.get();
  solver.set_state(host);
  std::vector<double> ref = solver.rhs(0.0);
  if (const char* parts = std::getenv("TE_PARTS")) {
    // Debugging: the volume term alone on the host, -sum_a D_a G_a, against TE_PARTS = 1, or the
    // solver's rhs less it against TE_PARTS = 2.
    std::vector<double> vol(ref.size(), 0.0);
    for (int k = 0; k < K; ++k) {
      const double g[9] = {d.rx(0, k), d.ry(0, k), d.rz(0, k), d.sx(0, k), d.sy(0, k), d.sz(0, k), d.tx(0, k), d.ty(0, k), d.tz(0, k)};
      for (int j = 0; j < Np; ++j) {
        double u[6];
        for (int c = 0; c < 6; ++c) u[c] = host[(static_cast<std::size_t>(c) * K + k) * Np + j];
        // F[c][dir]
        const double F[6][3] = {{0, u[5], -u[4]}, {-u[5], 0, u[3]}, {u[4], -u[3], 0},
                                {0, -u[2], u[1]}, {u[2], 0, -u[0]}, {-u[1], u[0], 0}};
        for (int c = 0; c < 6; ++c)
          for (int a = 0; a < 3; ++a) {
            const double G = g[3 * a] * F[c][0] + g[3 * a + 1] * F[c][1] + g[3 * a + 2] * F[c][2];
            const Eigen::MatrixXd& D = a == 0 ? el.Dr : a == 1 ? el.Ds : el.Dt;
            for (int i = 0; i < Np; ++i) vol[(static_cast<std::size_t>(c) * K + k) * Np + i] += D(i, j) * G;
          }
      }
    }
    if ((std::atoi(parts) & 4) != 0) {
      // The surface term on the host from vmapM / vmapP, against TE_PARTS = 2's kernel: ref = it.
      std::vector<double> sur(ref.size(), 0.0);
      auto value_at = [&](int c, int flat) { return host[(static_cast<std::size_t>(c) * K + flat / Np) * Np + flat % Np]; };
      for (int k = 0; k < K; ++k)
        for (int fm = 0; fm < Nf * Nfp; ++fm) {
          const int vM = d.vmapM(fm, k), vP = d.vmapP(fm, k);
          double dl[6];
          for (int c = 0; c < 6; ++c) dl[c] = vM == vP ? (c < 3 ? 2 * value_at(c, vM) : 0.0) : value_at(c, vM) - value_at(c, vP);
          const double n0 = d.nx(fm, k), n1 = d.ny(fm, k), n2 = d.nz(fm, k), hs = 0.5 * d.Fscale(fm, k);
          const double ndE = n0 * dl[0] + n1 * dl[1] + n2 * dl[2], ndH = n0 * dl[3] + n1 * dl[4] + n2 * dl[5];
          const double fl[6] = {hs * (ndE * n0 - dl[0] - (n1 * dl[5] - n2 * dl[4])),
                                hs * (ndE * n1 - dl[1] - (n2 * dl[3] - n0 * dl[5])),
                                hs * (ndE * n2 - dl[2] - (n0 * dl[4] - n1 * dl[3])),
                                hs * (ndH * n0 - dl[3] + (n1 * dl[2] - n2 * dl[1])),
                                hs * (ndH * n1 - dl[4] + (n2 * dl[0] - n0 * dl[2])),
                                hs * (ndH * n2 - dl[5] + (n0 * dl[1] - n1 * dl[0]))};
          for (int c = 0; c < 6; ++c)
            for (int i = 0; i < Np; ++i) sur[(static_cast<std::size_t>(c) * K + k) * Np + i] += el.LIFT(i, fm) * fl[c];
        }
      double w = 0;
      for (std::size_t x = 0; x < ref.size(); ++x) w = std::max(w, std::abs(ref[x] - vol[x] - sur[x]));
      std::printf("host volume + surface against the solver: max difference %.3e\n", w);
      ref = sur;
    }
    if (std::atoi(parts) == 1) ref = vol;
    if (std::atoi(parts) == 2)
      for (std::size_t x = 0; x < ref.size(); ++x) ref[x] -= vol[x];
  }
  double worst = 0, scale = 0;
  for (int c = 0; c < 6; ++c)
    for (int k = 0; k < K; ++k)
      for (int i = 0; i < Np; ++i) {
        const double r = ref[(static_cast<std::size_t>(c) * K + k) * Np + i];
        const double e = std::abs(static_cast<double>(mine[soa(c, k, i)]) - r);
        if (e > worst && std::getenv("TE_PARTS")) {
          int boundary = 0;
          for (int fm = 0; fm < Nf * Nfp; ++fm) boundary += d.vmapP(fm, k) == d.vmapM(fm, k);
          std::printf("worse: c %d k %d i %d mine %g ref %g, boundary face nodes %d\n", c, k, i,
                      static_cast<double>(mine[soa(c, k, i)]), r, boundary);
        }
        worst = std::max(worst, e);
        scale = std::max(scale, std::abs(r));
      }

  const rtcg::Roofline roof = rtcg::measure_roofline(backend);
  const double bytes = dg::minimal_stage_bytes(solver);
  const double bound_ms = roof.memory_seconds(bytes) * 1e3;
  const int runs = 30;
  const double ms = median_ms(backend, runs, [&] {
    for (int s = 0; s < 5; ++s) stage(R(0.5), R(0.25), R(1e-3));
  }) / 5;
  std::printf("te_stage N=%d %s T=%d R=%d rounds=%d minb=%s block=%d: registers %d, local %d B; max |rhs - solver rhs| %.3e of %.3e (%.2e)\n",
              el.N, single ? "float" : "double", T, row_groups, rounds, std::getenv("TE_MINB") ? std::getenv("TE_MINB") : "0", block, at.registers, at.local_bytes, worst, scale, worst / scale);
  std::printf("  roofline: %s\n", roof.describe().c_str());
  std::printf("  memory bound %.4f ms per stage; te_stage %.4f ms (%.1f %% of it)\n", bound_ms, ms, 100 * bound_ms / ms);
  if (!plan_text.empty()) {
    solver.set_plan(dg::plan_from_text(plan_text));
    solver.set_state(host);
    const double gen = median_ms(backend, runs, [&] { solver.step(0.5, 1e-3); }) / 5;
    std::printf("  generated plan %.4f ms per stage (%.1f %%): %s\n", gen, 100 * bound_ms / gen, plan_text.c_str());
  }
  const double tolerance = single ? 1e-4 : 1e-11;
  return worst <= tolerance * scale ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 7) {
    std::fprintf(stderr, "usage: %s config.toml mesh.h5 N double|float T block [plan text]\n", argv[0]);
    return 2;
  }
  try {
    const std::string precision = argv[4];
    std::vector<std::string> overrides = {"mesh.file=\"" + std::string(argv[2]) + "\"", "boundary.pec=\"pec\"",
                                          "boundary.outer=\"pec\"", "discretization.order=" + std::string(argv[3]),
                                          "run.precision=\"" + precision + "\""};
    if (const char* backend = std::getenv("TE_BACKEND")) overrides.push_back("run.backend=\"" + std::string(backend) + "\"");
    auto problem = runner::load_problem(argv[1], overrides);
    const bool single = precision == "float";
    const int T = std::atoi(argv[5]), block = std::atoi(argv[6]);
    std::string plan = argc > 7 ? argv[7] : "";
    if (plan.rfind("db:", 0) == 0) {
      // The winner a tuning database holds for this order and precision (any size class).
      std::ifstream file(plan.substr(3));
      const nlohmann::json db = nlohmann::json::parse(file);
      const std::string kind = "maxwell3d/tetrahedron/N" + std::string(argv[3]) + (single ? "/f32" : "/f64") + "/lserk4";
      plan.clear();
      for (const auto& record : db["records"])
        if (record["problem"]["kind"] == kind && record.contains("winner")) {
          rtcg::tune::Point point;
          for (const auto& [name, value] : record["winner"].items()) point[name] = value.get<std::int64_t>();
          plan = dg::to_text(dg::plan_of(point));
        }
      if (plan.empty()) throw std::runtime_error("no winner for " + kind + " in " + std::string(argv[7]));
    }
    return single ? run<float>(*problem, true, T, block, plan) : run<double>(*problem, false, T, block, plan);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
