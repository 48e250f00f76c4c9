#include "fixtures.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <fstream>
#include <map>
#include <stdexcept>

#include <unistd.h>

namespace rtdg::mesh::testing {
namespace {

std::size_t ix(int i) { return static_cast<std::size_t>(i); }

// Tags each element face lying on a side of the unit box with that side's group.
void tag_box_faces(RawMesh& raw, bool walls) {
  const char* sides[3][2] = {{"xmin", "xmax"}, {"ymin", "ymax"}, {"zmin", "zmax"}};
  if (walls) {
    raw.boundary_names = {"walls"};
  } else {
    for (int d = 0; d < raw.dim; ++d) raw.boundary_names.insert(raw.boundary_names.end(), {sides[d][0], sides[d][1]});
  }
  const auto& faces = face_vertices(raw.type);
  for (const auto& element : raw.elements) {
    for (int f = 0; f < raw.dim + 1; ++f) {
      TaggedFace face;
      for (int i = 0; i < raw.dim; ++i) face.vertices[ix(i)] = element[ix(faces[ix(f)][ix(i)])];
      for (int d = 0; d < raw.dim; ++d) {
        for (int end = 0; end < 2; ++end) {
          const bool on_side = std::all_of(face.vertices.begin(), face.vertices.begin() + raw.dim, [&](int v) {
            return raw.vertices[ix(v)][ix(d)] == static_cast<double>(end);
          });
          if (on_side) {
            face.group = walls ? 0 : 2 * d + end;
            raw.tagged_faces.push_back(face);
          }
        }
      }
    }
  }
}

}  // namespace

RawMesh structured_square(int n, bool walls) {
  RawMesh raw;
  raw.dim = 2;
  raw.type = ElementType::triangle;
  const auto id = [n](int i, int j) { return j * (n + 1) + i; };
  for (int j = 0; j <= n; ++j) {
    for (int i = 0; i <= n; ++i) raw.vertices.push_back({double(i) / n, double(j) / n, 0.0});
  }
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < n; ++i) {
      raw.elements.push_back({id(i, j), id(i + 1, j), id(i + 1, j + 1), -1});
      raw.elements.push_back({id(i, j), id(i + 1, j + 1), id(i, j + 1), -1});
    }
  }
  raw.element_region.assign(raw.elements.size(), 0);
  raw.region_names = {"domain"};
  tag_box_faces(raw, walls);
  return raw;
}

RawMesh structured_cube(int n, bool walls) {
  RawMesh raw;
  raw.dim = 3;
  raw.type = ElementType::tetrahedron;
  const auto id = [n](int i, int j, int k) { return (k * (n + 1) + j) * (n + 1) + i; };
  for (int k = 0; k <= n; ++k) {
    for (int j = 0; j <= n; ++j) {
      for (int i = 0; i <= n; ++i) raw.vertices.push_back({double(i) / n, double(j) / n, double(k) / n});
    }
  }
  // Kuhn: one tetrahedron per order of the axes, from corner 000 to corner 111.
  const int orders[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  for (int k = 0; k < n; ++k) {
    for (int j = 0; j < n; ++j) {
      for (int i = 0; i < n; ++i) {
        for (const auto& order : orders) {
          std::array<int, 3> c{i, j, k};
          std::array<int, 4> tet{};
          tet[0] = id(c[0], c[1], c[2]);
          for (int s = 0; s < 3; ++s) {
            ++c[ix(order[s])];
            tet[ix(s + 1)] = id(c[0], c[1], c[2]);
          }
          raw.elements.push_back(tet);
        }
      }
    }
  }
  raw.element_region.assign(raw.elements.size(), 0);
  raw.region_names = {"domain"};
  tag_box_faces(raw, walls);
  return raw;
}

int group(const RawMesh& raw, const std::string& name) {
  const auto it = std::find(raw.boundary_names.begin(), raw.boundary_names.end(), name);
  return it == raw.boundary_names.end() ? -1 : static_cast<int>(it - raw.boundary_names.begin());
}

void write_msh22(const RawMesh& raw, const std::filesystem::path& file) {
  std::ofstream out(file);
  out.precision(17);
  const int nb = static_cast<int>(raw.boundary_names.size());
  out << "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$PhysicalNames\n" << nb + static_cast<int>(raw.region_names.size()) << "\n";
  for (int g = 0; g < nb; ++g) out << raw.dim - 1 << " " << g + 1 << " \"" << raw.boundary_names[ix(g)] << "\"\n";
  for (std::size_t r = 0; r < raw.region_names.size(); ++r) {
    out << raw.dim << " " << nb + static_cast<int>(r) + 1 << " \"" << raw.region_names[r] << "\"\n";
  }
  out << "$EndPhysicalNames\n$Nodes\n" << raw.vertices.size() << "\n";
  for (std::size_t v = 0; v < raw.vertices.size(); ++v) {
    out << v + 1 << " " << raw.vertices[v][0] << " " << raw.vertices[v][1] << " " << raw.vertices[v][2] << "\n";
  }
  out << "$EndNodes\n$Elements\n" << raw.tagged_faces.size() + raw.elements.size() << "\n";
  int tag = 1;
  const int face_type = raw.dim == 2 ? 1 : 2;
  const int element_type = raw.dim == 2 ? 2 : 4;
  for (const TaggedFace& face : raw.tagged_faces) {
    out << tag++ << " " << face_type << " 2 " << face.group + 1 << " " << face.group + 1;
    for (int i = 0; i < raw.dim; ++i) out << " " << face.vertices[ix(i)] + 1;
    out << "\n";
  }
  for (std::size_t k = 0; k < raw.elements.size(); ++k) {
    const int physical = nb + raw.element_region[k] + 1;
    out << tag++ << " " << element_type << " 2 " << physical << " " << physical;
    for (int i = 0; i <= raw.dim; ++i) out << " " << raw.elements[k][ix(i)] + 1;
    out << "\n";
  }
  out << "$EndElements\n";
  if (!out) throw std::runtime_error("cannot write " + file.string());
}

TemporaryFolder::TemporaryFolder() {
  static std::atomic<int> counter{0};
  path_ = std::filesystem::temp_directory_path() /
          ("rtdg-mesh-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
  std::filesystem::remove_all(path_);
  std::filesystem::create_directories(path_);
}

TemporaryFolder::~TemporaryFolder() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

void write_text(const std::filesystem::path& file, const std::string& text) {
  std::ofstream out(file, std::ios::binary);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + file.string());
}

std::filesystem::path geometries() { return RTDG_GEOMETRIES_DIR; }

std::string check_conventions(const Mesh& mesh) {
  std::map<int, std::array<double, 3>> shifts;
  for (const PeriodicFace& face : mesh.periodic_faces) shifts[face.element * 4 + face.face] = face.shift;
  const auto& local = face_vertices(mesh.type);
  for (int k = 0; k < mesh.num_elements(); ++k) {
    if (!(signed_volume(mesh.type, element_corners(mesh, k)) > 0.0)) return "element " + std::to_string(k) + " not positive";
    for (int f = 0; f < mesh.num_faces(); ++f) {
      const int k2 = mesh.EToE[ix(k)][ix(f)];
      const int f2 = mesh.EToF[ix(k)][ix(f)];
      if (mesh.EToE[ix(k2)][ix(f2)] != k || mesh.EToF[ix(k2)][ix(f2)] != f) {
        return "EToE/EToF not symmetric at element " + std::to_string(k) + " face " + std::to_string(f);
      }
      if (k2 == k && f2 != f) return "boundary face does not point to itself";
      const auto it = shifts.find(k * 4 + f);
      const std::array<double, 3> shift = it == shifts.end() ? std::array<double, 3>{} : it->second;
      for (int i = 0; i < mesh.num_face_vertices(); ++i) {
        const int j = mesh.face_vertex_match[ix(k)][ix(f)][ix(i)];
        const auto& x = mesh.vertices[ix(mesh.EToV[ix(k)][ix(local[ix(f)][ix(i)])])];
        const auto& y = mesh.vertices[ix(mesh.EToV[ix(k2)][ix(local[ix(f2)][ix(j)])])];
        for (std::size_t d = 0; d < 3; ++d) {
          if (std::abs(x[d] + shift[d] - y[d]) > 1e-9) {
            return "face_vertex_match wrong at element " + std::to_string(k) + " face " + std::to_string(f);
          }
        }
      }
    }
  }
  return "";
}

std::string difference(const Mesh& a, const Mesh& b, double vertex_tolerance) {
  if (a.vertices.size() == b.vertices.size()) {
    for (std::size_t v = 0; v < a.vertices.size(); ++v) {
      for (std::size_t d = 0; d < 3; ++d) {
        if (!(std::abs(a.vertices[v][d] - b.vertices[v][d]) <= vertex_tolerance)) {
          return "vertices differ at vertex " + std::to_string(v);
        }
      }
    }
  }
  const auto first = [](const auto& x, const auto& y, const char* name) -> std::string {
    if (x.size() != y.size()) return std::string(name) + ": " + std::to_string(x.size()) + " vs " + std::to_string(y.size()) + " entries";
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (!(x[i] == y[i])) return std::string(name) + " differs at entry " + std::to_string(i);
    }
    return "";
  };
  if (a.dim != b.dim || a.type != b.type) return "dim or type";
  if (a.vertices.size() != b.vertices.size()) return "vertex counts differ";
  for (const std::string& d : {first(a.EToV, b.EToV, "EToV"),
                               first(a.EToE, b.EToE, "EToE"), first(a.EToF, b.EToF, "EToF"),
                               first(a.face_vertex_match, b.face_vertex_match, "face_vertex_match"),
                               first(a.boundary_faces, b.boundary_faces, "boundary_faces"),
                               first(a.boundary_names, b.boundary_names, "boundary_names"),
                               first(a.periodic_pairs, b.periodic_pairs, "periodic_pairs"),
                               first(a.periodic_faces, b.periodic_faces, "periodic_faces"),
                               first(a.element_region, b.element_region, "element_region"),
                               first(a.region_names, b.region_names, "region_names")}) {
    if (!d.empty()) return d;
  }
  return "";
}

}  // namespace rtdg::mesh::testing
