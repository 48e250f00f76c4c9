// Gmsh SDK import: mesh a .geo file with parameters set from the run config, or read a .msh
// file (versions 2.2 and 4.1, ASCII or binary). Physical groups keep their names.
//
// Without the Gmsh SDK (RTDG_HAVE_GMSH=0) these functions exist but throw MeshError saying
// so; meshes preprocessed to .h5 (rtdg mesh) still load through hdf5_io.hpp.
//
// .geo parameters: declare them with ONELAB names, e.g.
//   DefineConstant[ h = {0.1, Name "Parameters/h"} ];
// A parameter is set by its full ONELAB name ("Parameters/h") or by its last path component
// ("h"). Unknown names are an error listing the valid ones.
#pragma once

#include "mesh/build.hpp"
#include "mesh/mesh.hpp"

#include <filesystem>
#include <map>
#include <mutex>
#include <string>

namespace rtdg::mesh {

// Values for a .geo file's DefineConstant parameters, by name.
using Parameters = std::map<std::string, double>;

// Whether this build has the Gmsh SDK.
bool have_gmsh();

// Exclusive use of the process's Gmsh instance. Gmsh is global and not thread-safe: a
// session holds a process-wide lock, initialises Gmsh on first use (finalised at exit),
// silences its terminal output unless RTDG_LOG_LEVEL is debug or trace, and on exit clears
// the model and restores the meshing options a file may have changed (Mesh.ElementOrder,
// Mesh.MshFileVersion, Mesh.Binary, mesh sizes, algorithms), so one file cannot leak
// settings into the next. Throws MeshError when built without Gmsh.
class GmshSession {
public:
  GmshSession();
  ~GmshSession();
  GmshSession(const GmshSession&) = delete;
  GmshSession& operator=(const GmshSession&) = delete;

private:
  std::unique_lock<std::mutex> lock_;
  std::map<std::string, double> saved_options_;
};

// Reads a .msh file, or meshes a .geo file with `parameters` set, into an element soup with
// its named boundary and region groups and Gmsh's periodic constraints (by translation).
// Throws MeshError naming the file: missing file, not a mesh, Gmsh's own errors, unknown
// parameter, unnamed or overlapping physical groups, elements in no volume group, mixed or
// unsupported element types, an empty mesh. Parameters are only accepted for .geo files.
RawMesh read_gmsh(const std::filesystem::path& file, const Parameters& parameters = {});

// The parameters a .geo file declares (full ONELAB name -> default value).
Parameters geo_parameters(const std::filesystem::path& file);

// The .msh flavours Gmsh writes: version 2.2 or 4.1, ASCII or binary.
struct MshFormat {
  double version = 4.1;
  bool binary = false;
};

// Meshes a .geo (or reads a .msh), validates it as read_gmsh + build_mesh do, and writes it
// as `output` (.msh) in `format`; written to a temporary file and renamed into place.
// Returns the validated mesh.
Mesh write_msh(const std::filesystem::path& input, const Parameters& parameters,
               const std::filesystem::path& output, MshFormat format);

}  // namespace rtdg::mesh
