// discretize(): the reference element placed on every mesh element (discretization.hpp).
#include "dg/discretization.hpp"

#include "dg/error.hpp"

#include <mesh/geometry_nodes.hpp>
#include "discretization_steps.hpp"
#include "index.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <string>

namespace rtdg::dg {

const BoundaryNodes& Discretization::boundary(std::string_view name) const {
  for (const BoundaryNodes& b : boundaries) {
    if (b.name == name) return b;
  }
  std::string known;
  for (const BoundaryNodes& b : boundaries) known += (known.empty() ? "" : ", ") + b.name;
  throw Error("dg: the mesh has no boundary named '" + std::string(name) + "'; its boundaries are: " +
              (known.empty() ? std::string("(none)") : known));
}

namespace detail {

void compute_node_coordinates(const mesh::Mesh& mesh, Discretization& d) {
  const Element& e = d.element;
  // Barycentric coordinates of the reference nodes, Np x (dim+1): column 0 belongs to
  // vertex 0 (all coordinates -1), column c >= 1 to the vertex where coordinate c-1 is +1.
  Eigen::MatrixXd lambda(e.Np, d.dim + 1);
  const Eigen::MatrixXd nodes = e.nodes();
  lambda.rightCols(d.dim) = (0.5 * (1.0 + nodes.array())).matrix();
  lambda.col(0) = (1.0 - lambda.rightCols(d.dim).rowwise().sum().array()).matrix();

  // corners[c](v, k): coordinate c of vertex v of element k.
  std::array<Eigen::MatrixXd, 3> corners;
  for (auto& c : corners) c.resize(d.dim + 1, d.K);
  for (int k = 0; k < d.K; ++k) {
    for (int v = 0; v <= d.dim; ++v) {
      const auto& p = mesh.vertices[ix(mesh.EToV[ix(k)][ix(v)])];
      for (std::size_t c = 0; c < 3; ++c) corners[c](v, k) = p[c];
    }
  }
  d.x = lambda * corners[0];
  d.y = lambda * corners[1];
  if (d.dim == 3) d.z = lambda * corners[2];

  // Curved elements: their order-p map at the nodes, x = sum_n X_n L_n(r_i) (interpolated at
  // order N, so the geometry is isoparametric: exact for p <= N, of degree N for p > N).
  d.curved = mesh::curved_elements(mesh);
  if (d.curved.empty()) return;
  const int p = mesh.geometry_order;
  const int Ng = mesh::lattice_size(d.dim, p);
  Eigen::MatrixXd interpolation(e.Np, Ng);  // L_n(r_i)
  std::vector<double> values;
  for (int i = 0; i < e.Np; ++i) {
    std::array<double, 3> r{};
    for (int a = 0; a < d.dim; ++a) r[ix(a)] = nodes(i, a);
    mesh::lattice_basis(d.dim, p, r, values);
    for (int n = 0; n < Ng; ++n) interpolation(i, n) = values[ix(n)];
  }
  Eigen::MatrixXd X(Ng, d.dim);
  for (int k : d.curved) {
    const std::array<double, 3>* nodes_k = mesh::element_geometry_nodes(mesh, k);
    for (int n = 0; n < Ng; ++n)
      for (int c = 0; c < d.dim; ++c) X(n, c) = nodes_k[n][ix(c)];
    const Eigen::MatrixXd x = interpolation * X;
    d.x.col(k) = x.col(0);
    d.y.col(k) = x.col(1);
    if (d.dim == 3) d.z.col(k) = x.col(2);
  }
}

}  // namespace detail

namespace {

Discretization discretize_with(const mesh::Mesh& mesh, int N, const std::vector<char>* halo) {
  const bool triangles = mesh.dim == 2 && mesh.type == mesh::ElementType::triangle;
  const bool tetrahedra = mesh.dim == 3 && mesh.type == mesh::ElementType::tetrahedron;
  if (!triangles && !tetrahedra) {
    throw Error("dg: cannot discretize a mesh of dimension " + std::to_string(mesh.dim) + " with " +
                std::string(mesh::to_string(mesh.type)) +
                " elements; expected triangles in 2D or tetrahedra in 3D");
  }
  if (mesh.num_elements() == 0) throw Error("dg: cannot discretize a mesh without elements");
  const std::size_t K = detail::ix(mesh.num_elements());
  if (mesh.EToE.size() != K || mesh.EToF.size() != K) {
    throw Error("dg: the mesh has no face connectivity (EToE/EToF sizes " + std::to_string(mesh.EToE.size()) +
                ", " + std::to_string(mesh.EToF.size()) + " for K = " + std::to_string(K) +
                "); build it with rtdg::mesh::build_mesh");
  }

  Discretization d;
  d.element = make_element(triangles ? Shape::triangle : Shape::tetrahedron, N);
  d.dim = mesh.dim;
  d.K = mesh.num_elements();
  // Flat indices are int: the largest is K * Nfaces * Nfp (face arrays) or K * Np.
  const double largest = static_cast<double>(K) *
                         std::max(d.element.Np, d.element.Nfaces * d.element.Nfp);
  if (largest > std::numeric_limits<int>::max()) {
    throw Error("dg: " + std::to_string(K) + " elements of order " + std::to_string(N) +
                " need node indices beyond the 32-bit range; split the mesh or lower the order");
  }

  detail::compute_node_coordinates(mesh, d);
  detail::compute_geometric_factors(mesh, d);
  detail::compute_normals(d);
  detail::build_face_maps(mesh, d);
  detail::build_boundary_maps(mesh, d, halo);
  return d;
}

}  // namespace

Discretization discretize(const mesh::Mesh& mesh, int N) { return discretize_with(mesh, N, nullptr); }

Discretization discretize(const mesh::LocalMesh& local, int N) {
  std::vector<char> halo(detail::ix(local.mesh.num_elements()) * 4, 0);
  for (const mesh::HaloFace& f : local.halo_faces) {
    if (f.element < 0 || f.element >= local.mesh.num_elements() || f.face < 0 || f.face > 3)
      throw Error("dg: halo face (element " + std::to_string(f.element) + ", face " + std::to_string(f.face) +
                  ") is out of range of the local mesh");
    halo[detail::ix(f.element) * 4 + detail::ix(f.face)] = 1;
  }
  return discretize_with(local.mesh, N, &halo);
}

}  // namespace rtdg::dg
