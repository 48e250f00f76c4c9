#include "kernels/geometry_arrays.hpp"

#include "dg/error.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <string>

namespace rtdg::dg {
namespace {

constexpr std::size_t flat(long long a, long long B, long long b, long long C, long long c) {
  return static_cast<std::size_t>((a * B + b) * C + c);
}
constexpr std::size_t count(long long a, long long b, long long c = 1) { return static_cast<std::size_t>(a * b * c); }

}  // namespace

void set_operators(Geometry& geometry, const Element& element) {
  const int Np = element.Np, dim = element.dim, Nfn = element.Nfaces * element.Nfp;
  const Eigen::MatrixXd* derivative[3] = {&element.Dr, &element.Ds, &element.Dt};
  geometry.D.resize(count(dim, Np, Np));
  for (int a = 0; a < dim; ++a)
    for (int i = 0; i < Np; ++i)
      for (int j = 0; j < Np; ++j) geometry.D[flat(a, Np, i, Np, j)] = (*derivative[a])(i, j);
  geometry.LIFT.resize(count(Np, Nfn));
  for (int i = 0; i < Np; ++i)
    for (int m = 0; m < Nfn; ++m) geometry.LIFT[flat(0, 0, i, Nfn, m)] = element.LIFT(i, m);
  // Transposed operators for the fused kernels: DT[a][j][i] = D_a(i, j), LT[m][i] = LIFT(i, m).
  geometry.DT.resize(count(dim, Np, Np));
  for (int a = 0; a < dim; ++a)
    for (int i = 0; i < Np; ++i)
      for (int j = 0; j < Np; ++j) geometry.DT[flat(a, Np, j, Np, i)] = (*derivative[a])(i, j);
  geometry.LT.resize(count(Nfn, Np));
  for (int m = 0; m < Nfn; ++m)
    for (int i = 0; i < Np; ++i) geometry.LT[flat(0, 0, m, Np, i)] = element.LIFT(i, m);
  geometry.AVS = mma_fragments(dim * Np, Np, [&](int row, int j) { return (*derivative[row / Np])(row % Np, j); });
  geometry.AVF = mma_fragments(Np, dim * Np, [&](int i, int col) { return -(*derivative[col / Np])(i, col % Np); });
  geometry.AL = mma_fragments(Np, Nfn, [&](int i, int m) { return element.LIFT(i, m); });
}

Geometry kernel_geometry(const Discretization& disc, std::vector<std::int32_t> codes, const std::vector<double>& parameters) {
  const Element& element = disc.element;
  const int K = disc.K, Np = element.Np, dim = disc.dim, Nfaces = element.Nfaces, Nfp = element.Nfp;
  Geometry geometry;
  geometry.bcode = std::move(codes);
  // Geometry in the kernels' layouts (see dg/kernels.hpp). Straight-sided elements: the
  // metric, normals and Fscale are constant per element and face; node 0 and a face's first
  // node stand for them.
  const Eigen::MatrixXd* metric[3][3] = {{&disc.rx, &disc.ry, &disc.rz}, {&disc.sx, &disc.sy, &disc.sz}, {&disc.tx, &disc.ty, &disc.tz}};
  geometry.drdx.resize(count(K, dim, dim));
  for (int k = 0; k < K; ++k)
    for (int a = 0; a < dim; ++a)
      for (int d = 0; d < dim; ++d) geometry.drdx[flat(k, dim, a, dim, d)] = (*metric[a][d])(0, k);
  const Eigen::MatrixXd* coordinates[3] = {&disc.x, &disc.y, &disc.z};
  geometry.xyz.resize(count(dim, K, Np));
  for (int d = 0; d < dim; ++d)
    for (int k = 0; k < K; ++k)
      for (int i = 0; i < Np; ++i) geometry.xyz[flat(d, K, k, Np, i)] = (*coordinates[d])(i, k);
  set_operators(geometry, element);
  const Eigen::MatrixXd* normals[3] = {&disc.nx, &disc.ny, &disc.nz};
  geometry.fgeo.resize(count(K, Nfaces, dim + 1));
  for (int k = 0; k < K; ++k)
    for (int f = 0; f < Nfaces; ++f) {
      double* g = &geometry.fgeo[flat(k, Nfaces, f, dim + 1, 0)];
      for (int d = 0; d < dim; ++d) g[d] = (*normals[d])(f * Nfp, k);
      g[dim] = disc.Fscale(f * Nfp, k);
    }
  geometry.vmapP.assign(disc.vmapP.data(), disc.vmapP.data() + disc.vmapP.size());
  geometry.prm = parameters;
  if (geometry.prm.empty()) geometry.prm.push_back(0.0);

  // The curved group: per-node factors and the weight-adjusted mass matrix's pieces.
  const int Kc = static_cast<int>(disc.curved.size());
  const int Nfn = Nfaces * Nfp;
  const int Nq = static_cast<int>(disc.Vq.rows());
  geometry.celem.assign(disc.curved.begin(), disc.curved.end());
  geometry.cdrdx.resize(count(Kc, Np, dim * dim));
  geometry.cfgeo.resize(count(Kc, Nfn, dim + 1));
  geometry.cwadg.resize(count(Kc, Nq));
  for (int c = 0; c < Kc; ++c) {
    const int k = disc.curved[static_cast<std::size_t>(c)];
    for (int i = 0; i < Np; ++i)
      for (int a = 0; a < dim; ++a)
        for (int d = 0; d < dim; ++d)
          geometry.cdrdx[flat(c, Np, i, dim * dim, a * dim + d)] = (*metric[a][d])(i, k);
    for (int m = 0; m < Nfn; ++m) {
      double* g = &geometry.cfgeo[flat(c, Nfn, m, dim + 1, 0)];
      for (int d = 0; d < dim; ++d) g[d] = (*normals[d])(m, k);
      g[dim] = disc.sJ(m, k);
    }
    for (int q = 0; q < Nq; ++q) geometry.cwadg[flat(0, 0, c, Nq, q)] = 1.0 / disc.Jq(q, c);
  }
  geometry.Vq.resize(count(Nq, Np));
  geometry.Pq.resize(count(Np, Nq));
  for (int q = 0; q < Nq; ++q)
    for (int i = 0; i < Np; ++i) {
      geometry.Vq[flat(0, 0, q, Np, i)] = disc.Vq(q, i);
      geometry.Pq[flat(0, 0, i, Nq, q)] = disc.Pq(i, q);
    }
  if (Kc > 0) {
    geometry.cD = geometry.D;
    geometry.cLIFT = geometry.LIFT;
  }
  for (auto* a : {&geometry.cdrdx, &geometry.cfgeo, &geometry.cwadg, &geometry.Vq, &geometry.Pq, &geometry.cD,
                  &geometry.cLIFT})
    if (a->empty()) a->push_back(0.0);
  if (geometry.celem.empty()) geometry.celem.push_back(0);

  return geometry;
}

std::vector<std::int32_t> compressed_connectivity(const std::vector<std::int32_t>& vmapP,
                                                  const std::vector<std::int32_t>& bcode, int K, int Nfaces, int Nfp,
                                                  int Np, int components) {
  const std::size_t faces = static_cast<std::size_t>(K) * static_cast<std::size_t>(Nfaces);
  const std::size_t nfp = static_cast<std::size_t>(Nfp);
  if (bcode.size() != faces || vmapP.size() != faces * nfp)
    throw Error("compressed_connectivity: vmapP or bcode does not match K, Nfaces and Nfp");
  const std::size_t table_size = static_cast<std::size_t>(max_face_orders) * nfp;
  std::vector<std::int32_t> out(table_size + faces, 0);
  std::map<std::vector<std::int32_t>, int> orders;  // a face-node order -> its table row
  std::vector<std::int32_t> nodes(nfp);
  constexpr std::int32_t max_base = std::numeric_limits<std::int32_t>::max() / max_face_orders;
  for (std::size_t face = 0; face < faces; ++face) {
    const std::int32_t stride = bcode[face] < 0 ? components * Nfp : Np;  // a halo face (-1, or a TF/SF one)
    const std::int32_t base = vmapP[face * nfp] / stride;
    for (std::size_t j = 0; j < nfp; ++j) {
      nodes[j] = vmapP[face * nfp + j] - base * stride;
      if (nodes[j] < 0 || nodes[j] >= stride)
        throw Error("the plan does not fit: the nodes of face " + std::to_string(face % static_cast<std::size_t>(Nfaces)) +
                    " of element " + std::to_string(face / static_cast<std::size_t>(Nfaces)) +
                    " do not lie on one neighbour, which face connectivity needs; use connectivity = nodes");
    }
    if (base > max_base)
      throw Error("the plan does not fit: too many elements for face connectivity; use connectivity = nodes");
    const auto [it, added] = orders.try_emplace(nodes, static_cast<int>(orders.size()));
    if (added) {
      if (it->second >= max_face_orders)
        throw Error("the plan does not fit: the mesh's faces take more than " + std::to_string(max_face_orders) +
                    " face-node orders, the most face connectivity holds; use connectivity = nodes");
      std::copy(nodes.begin(), nodes.end(), out.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(it->second) * nfp));
    }
    out[table_size + face] = base * max_face_orders + it->second;
  }
  return out;
}

}  // namespace rtdg::dg
