// Session 38 (host only): how many distinct 128-byte lines and 32-byte sectors of the state each
// warp instruction of prefetch = async's neighbour copies touches, per element, on a real mesh.
//   A: today's generator: a thread per face-node slot (e, m), its NCOMP copies one instruction
//      per component, so a warp's 32 lanes read one component of the neighbours of ~5 faces;
//   B: copies ordered (element, face, component, node), 32 per instruction;
//   C: session38-face-aligned-gather.diff: full warps take floor(32 / Nfp) whole faces, copies
//      ordered (face, component, node) (B's locality with a warp-local index shuffle);
//   D: (session 39, thread_element_stage.cpp) the state element-fastest, q[(c Np + i) K + k], a
//      lane per element of 32 consecutive ones, one load per face node and component.
// Element-major state, `bytes` per real. It predicted 35.8 -> 21.2 lines per element at double order 2
// (8 elements, 80 threads); the A/B on the H200 lost 8-19 % anyway (benchmarks/results/README.md).
// Build against a build tree's static libraries, e.g. (build-tests, MPI HDF5):
//   g++ -std=c++20 -O2 -I dg/include -I mesh/include -I core/rtcg/include -I core/h5/include ...
//     ... -I /usr/include/eigen3 benchmarks/experiments/gather_lines.cpp build-tests/dg/librtdg_dg.a ...
//     ... build-tests/mesh/librtdg_mesh.a build-tests/core/h5/librtdg_h5.a build-tests/core/rtcg/librtcg.a ...
//     ... -L/usr/lib/x86_64-linux-gnu/hdf5/openmpi -lhdf5 -lgmsh -lfmt -lspdlog -lmetis -o /tmp/gather_lines
//   /tmp/gather_lines .deps/meshes/sphere_200k.h5 N elements_per_block threads [bytes per real]
#include <dg/discretization.hpp>
#include <mesh/load.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <set>

using namespace rtdg;

namespace {

// Distinct lines and sectors of one warp instruction, summed over the instructions that copy.
struct Count {
  double instructions = 0, lines = 0, sectors = 0;
  std::set<long> line, sector;
  void add(long byte) {
    line.insert(byte / 128);
    sector.insert(byte / 32);
  }
  void end_instruction() {
    if (line.empty()) return;
    instructions += 1;
    lines += static_cast<double>(line.size());
    sectors += static_cast<double>(sector.size());
    line.clear();
    sector.clear();
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: %s mesh.h5 N elements_per_block threads [bytes per real]\n", argv[0]);
    return 2;
  }
  const mesh::Mesh m = mesh::load_mesh(argv[1]);
  const int N = std::atoi(argv[2]), NE = std::atoi(argv[3]), T = std::atoi(argv[4]);
  const int C = 6, bytes = argc > 5 ? std::atoi(argv[5]) : 8;  // Maxwell: 6 components
  const dg::Discretization d = dg::discretize(m, N);
  const int Np = d.element.Np, Nfp = d.element.Nfp, Nf = d.element.Nfaces, NFN = Nf * Nfp, K = d.K;
  // Byte offset of component c of flat node p (k Np + i) in the element-major state.
  auto byte = [&](int p, int c) { return (static_cast<long>(p / Np) * C + c) * Np * bytes + (p % Np) * bytes; };
  auto interior = [&](int k, int mm) { return d.vmapP(mm, k) != d.vmapM(mm, k); };
  // Adds copy (element e of the block, face node mm, component c) to the instruction, if it copies.
  auto copy = [&](Count& n, int k0, int ne, int e, int mm, int c) {
    if (e < ne && interior(k0 + e, mm)) n.add(byte(d.vmapP(mm, k0 + e), c));
  };
  Count a, b, f, soa;
  long copies = 0;
  for (int k0 = 0; k0 < K; k0 += NE) {
    const int ne = std::min(NE, K - k0);
    for (int e = 0; e < ne; ++e)
      for (int mm = 0; mm < NFN; ++mm) copies += interior(k0 + e, mm) ? C : 0;
    // A: slot s = (e, m), thread s % T; per pass of T slots, a warp's 32 slots, one component each.
    for (int j0 = 0; j0 < NE * NFN; j0 += T)
      for (int w0 = j0; w0 < std::min(j0 + T, NE * NFN); w0 += 32)
        for (int c = 0; c < C; ++c) {
          for (int s = w0; s < std::min({w0 + 32, j0 + T, NE * NFN}); ++s) copy(a, k0, ne, s / NFN, s % NFN, c);
          a.end_instruction();
        }
    // B: copy u = (e, face, c, node), 32 per instruction.
    for (int w0 = 0; w0 < NE * NFN * C; w0 += 32) {
      for (int u = w0; u < std::min(w0 + 32, NE * NFN * C); ++u) {
        const int r = u % (NFN * C), face = r / (C * Nfp);
        copy(b, k0, ne, u / (NFN * C), face * Nfp + r % Nfp, (r % (C * Nfp)) / Nfp);
      }
      b.end_instruction();
    }
    // C: a warp item of floor(32 / Nfp) faces, its copies t = (face, c, node), 32 per instruction.
    const int F = 32 / Nfp;
    for (int g0 = 0; g0 < ne * Nf; g0 += F)
      for (int t0 = 0; t0 < F * Nfp * C; t0 += 32) {
        for (int t = t0; t < std::min(t0 + 32, F * Nfp * C); ++t) {
          const int g = g0 + t / (C * Nfp);
          if (g < ne * Nf) copy(f, k0, ne, g / Nf, (g % Nf) * Nfp + t % Nfp, (t / Nfp) % C);
        }
        f.end_instruction();
      }
  }
  // D: element-fastest state, element k0 + lane on lane `lane`.
  for (int k0 = 0; k0 < K; k0 += 32)
    for (int mm = 0; mm < NFN; ++mm)
      for (int c = 0; c < C; ++c) {
        for (int e = k0; e < std::min(K, k0 + 32); ++e)
          if (interior(e, mm)) {
            const long p = d.vmapP(mm, e);
            soa.add(((static_cast<long>(c) * Np + p % Np) * K + p / Np) * bytes);
          }
        soa.end_instruction();
      }
  const double k = K;
  std::printf("N=%d NE=%d T=%d K=%d, per element (%.1f copies): A %.1f instructions %.1f lines %.1f sectors | "
              "B %.1f %.1f %.1f | C %.1f %.1f %.1f | D %.1f %.1f %.1f\n",
              N, NE, T, K, static_cast<double>(copies) / k, a.instructions / k, a.lines / k, a.sectors / k,
              b.instructions / k, b.lines / k, b.sectors / k, f.instructions / k, f.lines / k, f.sectors / k,
              soa.instructions / k, soa.lines / k, soa.sectors / k);
}
