// Steps of the Gmsh import (private to the mesh module; only built with the Gmsh SDK). All of
// them expect a GmshSession to be held.
#pragma once

#include "mesh/build.hpp"
#include "mesh/gmsh_io.hpp"

#include <filesystem>
#include <functional>
#include <string>

namespace rtdg::mesh::detail {

// Runs f() and throws MeshError("<source>: Gmsh: <first error>") when Gmsh reported errors.
// Gmsh runs with General.AbortOnError = 0 and its logger on: Gmsh 4.8 reports errors by
// throwing when AbortOnError = 2, and an exception thrown out of its .geo parser leaves the
// parser broken for the rest of the process (every later file parses as empty). So errors are
// collected from the log instead. MeshError thrown by f passes through unchanged.
void run_gmsh(const std::string& source, const std::function<void()>& f);

// Throws unless the file exists and is a regular file.
void require_file(const std::filesystem::path& file);

// Throws unless the file starts with "$MeshFormat" (Gmsh would otherwise read any text file
// as a .geo script and report a confusing syntax error).
void require_msh_header(const std::filesystem::path& file);

// Opens a .geo file with its DefineConstant parameters set to `parameters` (full or short
// ONELAB names). Unknown names are an error listing the valid ones.
void open_geo(const std::filesystem::path& file, const Parameters& parameters);

// The number parameters the model's files declared in ONELAB: full name -> value.
Parameters declared_parameters();

// Opens a .msh file, or opens and meshes a .geo file, in the current session.
void load_into_gmsh(const std::filesystem::path& file, const Parameters& parameters);

// The current Gmsh model as an element soup with named groups and periodic pairs.
RawMesh extract_model(const std::string& source);

}  // namespace rtdg::mesh::detail
