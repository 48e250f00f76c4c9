// Small meshes built in memory for the mesh tests, and a writer of MSH 2.2 text so the Gmsh
// reader can be fed meshes with known defects.
#pragma once

#include <mesh/build.hpp>
#include <mesh/error.hpp>
#include <mesh/mesh.hpp>

#include <filesystem>
#include <string>

namespace rtdg::mesh::testing {

// [0,1]^2 split into n x n squares of two triangles each. Boundary groups "xmin", "xmax",
// "ymin", "ymax" (or one group "walls" when `walls` is set); one region "domain".
RawMesh structured_square(int n, bool walls = false);

// [0,1]^3 split into n^3 cubes of six tetrahedra each (Kuhn subdivision: conforming).
// Boundary groups "xmin" ... "zmax" (or "walls"); one region "domain".
RawMesh structured_cube(int n, bool walls = false);

// Index of a boundary group by name (-1 when absent).
int group(const RawMesh& raw, const std::string& name);

// Writes the raw mesh as an ASCII MSH 2.2 file: physical tags 1.. for boundary groups, then
// regions; elementary tag = physical tag.
void write_msh22(const RawMesh& raw, const std::filesystem::path& file);

// The message of the MeshError that f() throws; empty when it throws none.
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const MeshError& error) {
    return error.what();
  }
  return "";
}

// A fresh, empty folder under the system temporary folder, removed by the destructor.
class TemporaryFolder {
public:
  TemporaryFolder();
  ~TemporaryFolder();
  TemporaryFolder(const TemporaryFolder&) = delete;
  TemporaryFolder& operator=(const TemporaryFolder&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

private:
  std::filesystem::path path_;
};

// Writes text to a file.
void write_text(const std::filesystem::path& file, const std::string& text);

// The folder of the .geo files shipped with rtdg.
std::filesystem::path geometries();

// Checks the Hesthaven-Warburton conventions a discretization relies on: symmetric EToE/EToF,
// positive orientation, boundary faces pointing to themselves, face_vertex_match mapping each
// face vertex onto its neighbour's (modulo the periodic shift). Returns "" or the first problem.
std::string check_conventions(const Mesh& mesh);

// "" when the meshes are equal, else the first field that differs (and where). Vertex
// coordinates may differ by vertex_tolerance (Gmsh writes ASCII coordinates with 16 digits,
// one short of a double's round trip).
std::string difference(const Mesh& a, const Mesh& b, double vertex_tolerance = 0.0);

}  // namespace rtdg::mesh::testing
