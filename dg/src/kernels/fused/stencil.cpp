// The Bernstein lattice stencil (Operators::stencil): the neighbour table and D_a u at a node.
#include "kernels/fused/fused.hpp"

namespace rtdg::dg::kernels::fused {

// Operators::stencil: the Bernstein lattice of the element, one column per coefficient n
// (coalesced for the threads of consecutive nodes): rows j * DIM + (k < j ? k : k - 1) the index
// of alpha(n) - e_k + e_j, row DIM (DIM + 1) alpha(n) packed 8 bits per component (alpha_0
// lowest). [DIM (DIM + 1) + 1][NP] ints, which write_stencil_table packs for the kernel.
//
// Where alpha_k = 0 that neighbour does not exist and its weight alpha_k is zero, so any node of
// the element will do: the table names the one that the nearest node with alpha_k > 0 reads in
// the same row. Consecutive threads take consecutive nodes, so that is mostly
// the address of a nearby lane of the same warp, a broadcast in shared memory. Naming n itself
// instead put a second address in the bank of n's own column: counted over the lattice at orders
// 4-7 (2-4 elements per block, 32-bank model), the node phase's shared reads of neighbour state
// took 1.4-1.7x the conflict-free wavefronts in float and 1.0-1.3x in double; with the nearby
// lane's address, 1.2-1.5x and 0.9-1.1x.
std::vector<int> stencil_table(const Element& element) {
  const BernsteinOperators b = make_bernstein(element);
  const int dim = b.dim, Np = b.Np, slots = dim * (dim + 1);
  std::map<std::array<int, 4>, int> index;
  for (int n = 0; n < Np; ++n) index[b.alpha[static_cast<std::size_t>(n)]] = n;
  std::vector<int> table(static_cast<std::size_t>((slots + 1) * Np), 0);
  for (int n = 0; n < Np; ++n) {
    const std::array<int, 4>& alpha = b.alpha[static_cast<std::size_t>(n)];
    int packed = 0;
    // Bytes suffice: scratch_of refuses stencil plans above max_stencil_nodes (so alpha_k <= 21).
    for (int k = 0; k <= dim; ++k) packed |= alpha[static_cast<std::size_t>(k)] << (8 * k);
    table[static_cast<std::size_t>(slots * Np + n)] = packed;
  }
  // alpha(m) - e_k + e_j, or -1 where alpha_k(m) = 0.
  auto neighbour = [&](int m, int j, int k) {
    std::array<int, 4> moved = b.alpha[static_cast<std::size_t>(m)];
    if (moved[static_cast<std::size_t>(k)] == 0) return -1;
    --moved[static_cast<std::size_t>(k)];
    ++moved[static_cast<std::size_t>(j)];
    return index.at(moved);
  };
  for (int j = 0; j <= dim; ++j)
    for (int k = 0; k <= dim; ++k) {
      if (k == j) continue;
      const int row = j * dim + (k < j ? k : k - 1);
      for (int n = 0; n < Np; ++n) {
        int read = neighbour(n, j, k);
        // Absent: the nearest node's read in this row (the lower one first at equal distance).
        for (int distance = 1; read < 0 && distance < Np; ++distance)
          for (const int m : {n - distance, n + distance})
            if (read < 0 && m >= 0 && m < Np) read = neighbour(m, j, k);
        table[static_cast<std::size_t>(row * Np + n)] = read < 0 ? n : read;
      }
    }
  return table;
}

// The table of stencil_table as 4 ints per node, so that a thread reads its node's in one 16-byte
// load instead of DIM (DIM + 1) + 1 loads of 4 bytes: word q holds rows 4q .. 4q + 3 (the
// neighbours' indices, 8 bits each, row 4q lowest; DIM (DIM + 1) <= 12 rows), word 3 the packed
// multi-index. In global memory: the threads of a warp read different entries, which constant
// memory would serialize. A warp's 32 loads of 16 bytes are 4 wavefronts of the L1 instead of 13
// of 4 bytes, and the L1/TEX pipe is what limits the stencil kernels (tuning.md).
std::vector<int> stencil_words(const Element& element) {
  const std::vector<int> table = stencil_table(element);
  const int slots = element.dim * (element.dim + 1), Np = element.Np;
  std::vector<int> words(static_cast<std::size_t>(4 * Np), 0);
  for (int n = 0; n < Np; ++n) {
    unsigned word[4] = {0, 0, 0, static_cast<unsigned>(table[static_cast<std::size_t>(slots * Np + n)])};
    for (int x = 0; x < slots; ++x)
      word[x / 4] |= static_cast<unsigned>(table[static_cast<std::size_t>(x * Np + n)]) << (8 * (x % 4));
    for (int q = 0; q < 4; ++q) words[static_cast<std::size_t>(4 * n + q)] = static_cast<int>(word[q]);
  }
  return words;
}

void write_stencil_table(rtcg::SourceWriter& w, const Element& element) {
  const std::vector<int> packed = stencil_words(element);
  const int Np = element.Np;
  std::string values, words;
  for (int n = 0; n < Np; ++n) {
    std::string node;
    for (int q = 0; q < 4; ++q) node += (q ? "," : "") + std::to_string(packed[static_cast<std::size_t>(4 * n + q)]);
    values += (n ? "," : "") + node;
    words += std::string(n ? "," : "") + "{" + node + "}";
  }
  // The table's layout and the functions that read it: dg/bernstein_stencil.h.
  register_device_headers();
  w.line("#include <dg/bernstein_stencil.h>");
  w.line("// The Bernstein lattice for the derivative stencil (Operators::stencil): [NP] nodes of 4 words");
  w.line("// (dg/bernstein_stencil.h).");
  w.line("#if RTCG_CUDA");
  w.line("__device__ const int4 rtdg_stencil[" + str(Np) + "] = {" + words + "};");
  w.line("#else");
  w.line("static const int rtdg_stencil[" + str(4 * Np) + "] = {" + values + "};");
  w.line("#endif");
  w.line();
}

// Operators::stencil, in the node phase (node i of element e, se its state columns, g its
// dr_a/dx_d [DIM][DIM]): rhs = -sum_d d/dx_d F_d(u) with (D_a u_c)(i) from the lattice,
// d/dr_a = (d_(a+1) - d_0) / 2 with (d_j c)_alpha = sum_k alpha_k c_(alpha - e_k + e_j)
// (dg/bernstein.hpp): (DIM + 1)^2 multiply-adds per component instead of the up to 7 DIM entries
// of the sparse D rows, the neighbours' indices shared by the components. The flux is linear
// (Derivative::state), so d/dx_d F_d(u) = sum_a g[a][d] F_d(D_a u): one flux evaluation per
// reference direction a on the column D_a u, weighted into rhs (its zero entries skipped). That
// is the flops of transforming the gradient first (write_flux_of_gradient), but only the NCOMP
// values of one direction are live at a time instead of the NCOMP x DIM of the gradient: in
// double with prefetch_update = off, 72 registers at orders 4-6 instead of 96 (nvcc 13, sm_90).
void write_stencil_flux(rtcg::SourceWriter& w, const KernelSpec& spec, const Pieces& pieces) {
  const int dim = spec.element->dim;
  const int components = static_cast<int>(spec.law->state_components());
  const int slots = dim * (dim + 1);
  w.line("// D_a u by the Bernstein lattice stencil (operators = stencil), one direction a at a time.");
  w.line("int sw[4];");
  w.line("rtdg_stencil_words(rtdg_stencil, i, sw);");
  w.line("int nb[" + str(slots) + "];");
  w.line("real al[DIM + 1];");
  w.line("rtdg_stencil_unpack<DIM>(sw, nb, al);");
  w.line("real d0[NCOMP];  // (d_0 u_c)(i)");
  w.line("for (int c = 0; c < NCOMP; ++c) d0[c] = rtdg_stencil_d0<DIM>(se + c * LDQ, i, nb, al);");
  w.line("for (int c = 0; c < NCOMP; ++c) rhs[c] = 0;");
  for (int a = 0; a < dim; ++a) {
    const std::string j = str(a + 1);
    auto direction = w.block("");
    w.line("real du[NCOMP];  // (D_" + str(a) + " u_c)(i)");
    w.line("for (int c = 0; c < NCOMP; ++c) du[c] = rtdg_stencil_d<DIM, " + j + ">(se + c * LDQ, i, nb, al, d0[c]);");
    w.line("real Fa[NCOMP * DIM];");
    emit_piece(w, pieces.flux, "Fa", "va" + str(a) + "_", spec.scalar,
               [](std::size_t c) { return "du[" + std::to_string(c) + "]"; });
    for (int c = 0; c < components; ++c)
      for (int d = 0; d < dim; ++d) {
        const std::size_t out = static_cast<std::size_t>(c * dim + d);
        if (pieces.flux.dag.is_constant(pieces.flux.outputs[out], 0.0)) continue;
        w.line("rhs[" + str(c) + "] -= g[" + str(a * dim + d) + "] * Fa[" + str(static_cast<int>(out)) + "];");
      }
  }
}

}  // namespace rtdg::dg::kernels::fused
