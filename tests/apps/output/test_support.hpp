// Helpers for the output tests: small meshes built by hand (no Gmsh), solutions on them with
// polynomial fields, temporary folders.
#pragma once

#include <output/solution.hpp>

#include <dg/discretization.hpp>
#include <mesh/mesh.hpp>

#include <array>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace rtdg::output::test {

// The unit square (cube) split into n^dim squares (cubes) of 2 triangles (6 tetrahedra, Kuhn),
// interior vertices moved randomly by up to `jitter` of the spacing (seeded: the same mesh
// every time). One boundary group "wall", one region "domain".
mesh::Mesh box_mesh(int dim, int n, double jitter = 0.0);

using Field = std::function<double(double x, double y, double z)>;

// A solution on the discretization with component c = fields[c] evaluated at the nodes.
Solution sample(const dg::Discretization& discretization, const std::vector<std::string>& names,
                const std::vector<Field>& fields);

// A polynomial of total degree `degree` in x, y, z with coefficients from `seed`.
Field random_polynomial(int degree, unsigned seed);

// A fresh empty folder under the system's temporary folder, removed by the destructor.
class TempDir {
public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }
  // The names of the entries in the folder, sorted.
  std::vector<std::string> entries() const;

private:
  std::filesystem::path path_;
};

// The whole file as text.
std::string read_text(const std::filesystem::path& file);

}  // namespace rtdg::output::test
