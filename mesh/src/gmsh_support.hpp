// Steps of the Gmsh import (private to the mesh module; only built with the Gmsh SDK). All of
// them expect a GmshSession to be held.
#pragma once

#include "mesh/build.hpp"
#include "mesh/error.hpp"
#include "mesh/gmsh_io.hpp"

#include <exception>
#include <filesystem>
#include <string>
#include <utility>

namespace rtdg::mesh::detail {

// Gmsh's last error message, or "" when it has none.
std::string gmsh_last_error();

// Runs f(); Gmsh's exceptions (4.8 throws std::string) become MeshError("<source>: Gmsh: ...").
template <class F>
decltype(auto) with_gmsh_errors(const std::string& source, F&& f) {
  const auto message = [&](const std::string& what) {
    const std::string last = gmsh_last_error();
    return source + ": Gmsh: " + (what.empty() ? last : what);
  };
  try {
    return std::forward<F>(f)();
  } catch (const MeshError&) {
    throw;
  } catch (const std::string& what) {
    throw MeshError(message(what));
  } catch (const std::exception& what) {
    throw MeshError(message(what.what()));
  } catch (const char* what) {
    throw MeshError(message(what));
  }
}

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
