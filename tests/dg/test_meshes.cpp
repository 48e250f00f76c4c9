#include "test_meshes.hpp"

#include <mesh/geometry_nodes.hpp>

#include <algorithm>
#include <cmath>
#include <string>

namespace rtdg::dg::test {

mesh::RawMesh box_mesh(int dim, int n, std::array<double, 3> origin, std::array<double, 3> size) {
  return box_mesh(dim, std::array<int, 3>{n, n, n}, origin, size);
}

mesh::RawMesh box_mesh(int dim, std::array<int, 3> cells, std::array<double, 3> origin, std::array<double, 3> size) {
  mesh::RawMesh raw;
  raw.source = "box_mesh";
  raw.dim = dim;
  raw.type = dim == 2 ? mesh::ElementType::triangle : mesh::ElementType::tetrahedron;
  const int nx = cells[0], ny = cells[1], nz = dim == 3 ? cells[2] : 0;
  // Vertex (i, j, l) of the (nx+1) x (ny+1) (x (nz+1)) grid.
  auto id = [nx, ny](int i, int j, int l) { return i + (nx + 1) * (j + (ny + 1) * l); };
  std::vector<std::array<int, 3>> grid;  // integer grid position of each vertex
  for (int l = 0; l <= nz; ++l)
    for (int j = 0; j <= ny; ++j)
      for (int i = 0; i <= nx; ++i) {
        raw.vertices.push_back({origin[0] + size[0] * i / nx, origin[1] + size[1] * j / ny,
                                dim == 3 ? origin[2] + size[2] * l / nz : 0.0});
        grid.push_back({i, j, l});
      }
  for (int l = 0; l < std::max(nz, 1); ++l)
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i) {
        if (dim == 2) {
          const int a = id(i, j, 0), b = id(i + 1, j, 0), c = id(i + 1, j + 1, 0), d = id(i, j + 1, 0);
          if ((i + j) % 2 == 0) {
            raw.elements.push_back({a, b, c, -1});
            raw.elements.push_back({a, d, c, -1});  // clockwise: build_mesh reorients it
          } else {
            raw.elements.push_back({b, c, d, -1});
            raw.elements.push_back({b, a, d, -1});
          }
          continue;
        }
        std::array<int, 3> axes = {0, 1, 2};
        do {
          std::array<int, 3> p = {i, j, l};
          std::array<int, 4> tet{};
          tet[0] = id(p[0], p[1], p[2]);
          for (int step = 0; step < 3; ++step) {
            p[static_cast<std::size_t>(axes[static_cast<std::size_t>(step)])] += 1;
            tet[static_cast<std::size_t>(step + 1)] = id(p[0], p[1], p[2]);
          }
          raw.elements.push_back(tet);
        } while (std::next_permutation(axes.begin(), axes.end()));
      }
  raw.element_region.assign(raw.elements.size(), 0);
  raw.region_names = {"domain"};
  raw.boundary_names = {"xmin", "xmax", "ymin", "ymax"};
  if (dim == 3) {
    raw.boundary_names.push_back("zmin");
    raw.boundary_names.push_back("zmax");
  }

  // A face is on the boundary when its vertices share grid coordinate 0 or n on one axis.
  const std::array<int, 3> n = {nx, ny, nz};
  const int nfv = dim;
  const std::vector<std::array<int, 3>> local =
      dim == 2 ? std::vector<std::array<int, 3>>{{0, 1, -1}, {1, 2, -1}, {2, 0, -1}}
               : std::vector<std::array<int, 3>>{{0, 1, 2}, {0, 1, 3}, {1, 2, 3}, {0, 2, 3}};
  for (const auto& element : raw.elements) {
    for (const auto& face : local) {
      mesh::TaggedFace tagged;
      for (int v = 0; v < nfv; ++v)
        tagged.vertices[static_cast<std::size_t>(v)] = element[static_cast<std::size_t>(face[static_cast<std::size_t>(v)])];
      for (int axis = 0; axis < dim; ++axis) {
        for (int side : {0, n[static_cast<std::size_t>(axis)]}) {
          bool on = true;
          for (int v = 0; v < nfv; ++v)
            on = on && grid[static_cast<std::size_t>(tagged.vertices[static_cast<std::size_t>(v)])][static_cast<std::size_t>(axis)] == side;
          if (on) {
            tagged.group = 2 * axis + (side == 0 ? 0 : 1);
            raw.tagged_faces.push_back(tagged);
          }
        }
      }
    }
  }
  return raw;
}

int group_index(const mesh::RawMesh& raw, const char* name) {
  const auto it = std::find(raw.boundary_names.begin(), raw.boundary_names.end(), std::string(name));
  return static_cast<int>(it - raw.boundary_names.begin());
}

mesh::RawMesh periodic_in_x(mesh::RawMesh raw, double length) {
  raw.periodic.push_back({group_index(raw, "xmin"), group_index(raw, "xmax"), std::array<double, 3>{length, 0, 0}});
  return raw;
}

mesh::RawMesh bent(mesh::RawMesh raw, double amount) {
  const int dim = raw.dim;
  raw.geometry_order = 2;
  raw.element_nodes.clear();
  const int size = mesh::lattice_size(dim, 2);
  for (const auto& element : raw.elements) {
    for (int node = 0; node < size; ++node) {
      const auto r = mesh::lattice_point(dim, 2, node);
      // The affine image of the lattice point in the element as given (build_mesh orients).
      std::array<double, 4> lambda{1, 0, 0, 0};
      for (int a = 0; a < dim; ++a) {
        lambda[static_cast<std::size_t>(a + 1)] = 0.5 * (1 + r[static_cast<std::size_t>(a)]);
        lambda[0] -= lambda[static_cast<std::size_t>(a + 1)];
      }
      std::array<double, 3> x{};
      for (int v = 0; v <= dim; ++v)
        for (std::size_t c = 0; c < 3; ++c)
          x[c] += lambda[static_cast<std::size_t>(v)] *
                  raw.vertices[static_cast<std::size_t>(element[static_cast<std::size_t>(v)])][c];
      if (std::count(lambda.begin(), lambda.begin() + dim + 1, 1.0) != 1) {
        x[0] += amount * std::sin(3 * x[1] + 1) * std::cos(2 * x[0]);
        x[1] += amount * std::cos(2 * x[0] - x[1]);
        if (dim == 3) x[2] += amount * std::sin(x[0] + x[1] + 2 * x[2]);
      }
      raw.element_nodes.push_back(x);
    }
  }
  return raw;
}

}  // namespace rtdg::dg::test
