// vmapM, vmapP, mapP and the boundary node maps (book BuildMaps2D/3D, BuildBCMaps).
//
// The nodes of two connected faces are paired by coordinates, as the book does, so the maps
// hold for any vertex ordering; a periodic face's nodes are moved by its shift first. Which
// node pairs with which depends only on the two local face numbers and on how the faces'
// vertices correspond, so the pairing found for one such configuration is tried first on the
// next face pair like it, and every pair is still checked against the coordinates.
#include "dg/error.hpp"
#include "discretization_steps.hpp"
#include "index.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <sstream>
#include <tuple>

namespace rtdg::dg::detail {
namespace {

using Point = std::array<double, 3>;

Point node(const Discretization& d, Eigen::Index i, Eigen::Index k) {
  return {d.x(i, k), d.y(i, k), d.dim == 3 ? d.z(i, k) : 0.0};
}

double distance(const Point& a, const Point& b) {
  return std::sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
}

// Longest edge of face f of element k.
double face_size(const mesh::Mesh& mesh, int k, int f) {
  const auto corners = mesh::element_corners(mesh, k);
  const auto& local = mesh::face_vertices(mesh.type)[ix(f)];
  const int nfv = mesh.num_face_vertices();
  double longest = 0.0;
  for (int a = 0; a < nfv; ++a) {
    for (int b = a + 1; b < nfv; ++b) {
      longest = std::max(longest, distance(corners[ix(local[ix(a)])], corners[ix(local[ix(b)])]));
    }
  }
  return longest;
}

// Periodic shift of each face slot k * 4 + f (x_neighbour = x_this + shift); zero elsewhere.
std::vector<Point> periodic_shifts(const mesh::Mesh& mesh) {
  std::vector<Point> shifts(ix(mesh.num_elements()) * 4, Point{0.0, 0.0, 0.0});
  for (const mesh::PeriodicFace& p : mesh.periodic_faces) {
    shifts[ix(p.element) * 4 + ix(p.face)] = p.shift;
  }
  return shifts;
}

// Identifies a configuration of two connected faces: local faces and vertex correspondence.
using PairingKey = std::tuple<int, int, mesh::FaceVertexMatch::value_type>;

PairingKey pairing_key(const mesh::Mesh& mesh, int k, int f, int f2) {
  mesh::FaceVertexMatch::value_type match{-1, -1, -1};
  if (mesh.face_vertex_match.size() == ix(mesh.num_elements())) {
    match = mesh.face_vertex_match[ix(k)][ix(f)];
  }
  return {f, f2, match};
}

struct FacePair {
  int k, f, k2, f2;
};

[[noreturn]] void fail_match(const Discretization& d, const FacePair& p, Eigen::Index j, const Point& target,
                             double nearest, double tolerance, const Point& shift) {
  std::ostringstream message;
  message << "dg: the nodes of face " << p.f << " of element " << p.k << " do not match those of face " << p.f2
          << " of element " << p.k2 << ": face node " << j << " at (" << target[0] << ", " << target[1];
  if (d.dim == 3) message << ", " << target[2];
  message << ")";
  if (shift != Point{0.0, 0.0, 0.0}) message << " (after the periodic shift)";
  message << " is " << nearest << " from the nearest, tolerance " << tolerance
          << ". Connected faces must share their vertices (a conforming mesh), and periodic boundaries must "
             "be exact translations";
  throw Error(message.str());
}

}  // namespace

void build_face_maps(const mesh::Mesh& mesh, Discretization& d) {
  const Element& e = d.element;
  const Eigen::Index rows = e.Nfaces * e.Nfp;
  d.vmapM.resize(rows, d.K);
  d.vmapP.resize(rows, d.K);
  d.mapP.resize(rows, d.K);
  for (Eigen::Index k = 0; k < d.K; ++k) {
    for (Eigen::Index f = 0; f < e.Nfaces; ++f) {
      for (Eigen::Index j = 0; j < e.Nfp; ++j) {
        d.vmapM(f * e.Nfp + j, k) = static_cast<int>(k * e.Np + e.Fmask(j, f));
      }
    }
  }

  const std::vector<Point> shifts = periodic_shifts(mesh);
  // pairings[key][j] = the neighbour face node paired with face node j, last time.
  std::map<PairingKey, std::vector<Eigen::Index>> pairings;
  std::vector<Eigen::Index> pairing(ix(e.Nfp));
  std::vector<Point> mine(ix(e.Nfp)), theirs(ix(e.Nfp));

  for (int k = 0; k < d.K; ++k) {
    for (int f = 0; f < e.Nfaces; ++f) {
      const FacePair p{k, f, mesh.EToE[ix(k)][ix(f)],
                       mesh.EToF[ix(k)][ix(f)]};
      if (p.k2 < 0 || p.k2 >= d.K || p.f2 < 0 || p.f2 >= e.Nfaces) {
        throw Error("dg: face " + std::to_string(f) + " of element " + std::to_string(k) +
                    " has an invalid neighbour (EToE = " + std::to_string(p.k2) + ", EToF = " +
                    std::to_string(p.f2) + ")");
      }
      if (p.k2 == k && p.f2 == f) {  // boundary: the exterior node is the node itself
        for (Eigen::Index j = 0; j < e.Nfp; ++j) {
          d.vmapP(f * e.Nfp + j, k) = d.vmapM(f * e.Nfp + j, k);
          d.mapP(f * e.Nfp + j, k) = static_cast<int>(static_cast<Eigen::Index>(k) * rows + f * e.Nfp + j);
        }
        continue;
      }
      const Point& shift = shifts[ix(k) * 4 + ix(f)];
      for (Eigen::Index j = 0; j < e.Nfp; ++j) {
        const Point own = node(d, e.Fmask(j, f), k);
        mine[ix(j)] = {own[0] + shift[0], own[1] + shift[1], own[2] + shift[2]};
        theirs[ix(j)] = node(d, e.Fmask(j, p.f2), p.k2);
      }
      const double tolerance = face_match_tolerance * face_size(mesh, k, f);

      const PairingKey key = pairing_key(mesh, k, f, p.f2);
      auto cached = pairings.find(key);
      bool matched = cached != pairings.end();
      for (Eigen::Index j = 0; matched && j < e.Nfp; ++j) {
        const auto sj = ix(j);
        matched = distance(mine[sj], theirs[ix(cached->second[sj])]) <= tolerance;
      }
      if (matched) {
        pairing = cached->second;
      } else {
        // Nearest neighbour for each node; distinct face nodes are O(h / N^2) apart, far
        // beyond the tolerance, so a match within it is unique.
        for (Eigen::Index j = 0; j < e.Nfp; ++j) {
          double nearest = std::numeric_limits<double>::infinity();
          for (Eigen::Index j2 = 0; j2 < e.Nfp; ++j2) {
            const double dist = distance(mine[ix(j)], theirs[ix(j2)]);
            if (dist < nearest) {
              nearest = dist;
              pairing[ix(j)] = j2;
            }
          }
          if (nearest > tolerance) fail_match(d, p, j, mine[ix(j)], nearest, tolerance, shift);
        }
        pairings[key] = pairing;
      }
      for (Eigen::Index j = 0; j < e.Nfp; ++j) {
        const Eigen::Index j2 = pairing[ix(j)];
        d.vmapP(f * e.Nfp + j, k) = d.vmapM(p.f2 * e.Nfp + j2, p.k2);
        d.mapP(f * e.Nfp + j, k) = static_cast<int>(static_cast<Eigen::Index>(p.k2) * rows + p.f2 * e.Nfp + j2);
      }
    }
  }
}

void build_boundary_maps(const mesh::Mesh& mesh, Discretization& d, const std::vector<char>* halo) {
  const Element& e = d.element;
  const int rows = e.Nfaces * e.Nfp;
  auto is_boundary = [&mesh](int k, int f) {
    return mesh.EToE[ix(k)][ix(f)] == k &&
           mesh.EToF[ix(k)][ix(f)] == f;
  };

  // The faces of each group, sorted by (element, face) so that mapB comes out ascending.
  std::vector<std::vector<std::pair<int, int>>> group_faces(mesh.boundary_names.size());
  std::vector<char> in_group(ix(d.K) * 4, 0);
  for (const mesh::BoundaryFace& b : mesh.boundary_faces) {
    const std::string where = "dg: boundary face " + std::to_string(b.face) + " of element " + std::to_string(b.element);
    if (b.group < 0 || b.group >= static_cast<int>(group_faces.size())) {
      throw Error(where + " has group " + std::to_string(b.group) + ", but the mesh names " +
                  std::to_string(group_faces.size()) + " boundary groups");
    }
    if (b.element < 0 || b.element >= d.K || b.face < 0 || b.face >= e.Nfaces || !is_boundary(b.element, b.face)) {
      throw Error(where + " (group '" + mesh.boundary_names[ix(b.group)] +
                  "') is not a boundary face of the mesh (out of range, or connected to a neighbour)");
    }
    group_faces[ix(b.group)].emplace_back(b.element, b.face);
    in_group[ix(b.element) * 4 + ix(b.face)] = 1;
  }

  d.boundaries.clear();
  for (std::size_t g = 0; g < group_faces.size(); ++g) {
    std::sort(group_faces[g].begin(), group_faces[g].end());
    BoundaryNodes group{mesh.boundary_names[g], {}, {}, {}, {}};
    for (const auto& [k, f] : group_faces[g]) {
      group.elements.push_back(k);
      group.faces.push_back(f);
      for (int j = 0; j < e.Nfp; ++j) {
        group.mapB.push_back(k * rows + f * e.Nfp + j);
        group.vmapB.push_back(d.vmapM(f * e.Nfp + j, k));
      }
    }
    d.boundaries.push_back(std::move(group));
  }

  // All boundary nodes (the book's mapB: where vmapP == vmapM). Each must belong to a named
  // group, or a solver would have no boundary condition for it.
  d.mapB.clear();
  d.vmapB.clear();
  for (int k = 0; k < d.K; ++k) {
    for (int f = 0; f < e.Nfaces; ++f) {
      if (!is_boundary(k, f)) continue;
      if (halo && (*halo)[ix(k) * 4 + ix(f)]) continue;
      if (!in_group[ix(k) * 4 + ix(f)]) {
        throw Error("dg: face " + std::to_string(f) + " of element " + std::to_string(k) +
                    " is on the boundary but in no named boundary group; tag every boundary face with a "
                    "physical group");
      }
      for (int j = 0; j < e.Nfp; ++j) {
        d.mapB.push_back(k * rows + f * e.Nfp + j);
        d.vmapB.push_back(d.vmapM(f * e.Nfp + j, k));
      }
    }
  }
}

}  // namespace rtdg::dg::detail
