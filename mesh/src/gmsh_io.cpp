// The public Gmsh entry points: read_gmsh, geo_parameters, write_msh.
#include "mesh/gmsh_io.hpp"

#include "mesh/error.hpp"

#include "gmsh_support.hpp"
#include "msh_scan.hpp"
#include "temp_file.hpp"
#include "text.hpp"

#include <gmsh.h>

#include <exception>
#include <fstream>
#include <vector>

namespace rtdg::mesh {
namespace detail {

namespace {

// Stops the Gmsh logger however run_gmsh leaves.
struct LoggerGuard {
  LoggerGuard() { gmsh::logger::start(); }
  ~LoggerGuard() {
    try {
      gmsh::logger::stop();
    } catch (...) {  // cleanup never throws
    }
  }
  LoggerGuard(const LoggerGuard&) = delete;
  LoggerGuard& operator=(const LoggerGuard&) = delete;
};

std::string describe(const std::string& what) { return what.empty() ? "unknown error" : what; }

}  // namespace

void run_gmsh(const std::string& source, const std::function<void()>& f) {
  std::vector<std::string> log;
  std::string thrown;
  {
    const LoggerGuard logger;
    try {
      f();
    } catch (const MeshError&) {
      throw;
    } catch (const std::string& what) {  // Gmsh 4.8 throws strings
      thrown = describe(what);
    } catch (const std::exception& what) {
      thrown = describe(what.what());
    }
    gmsh::logger::get(log);
  }
  std::vector<std::string> errors;
  for (const std::string& line : log) {
    if (line.rfind("Error", 0) != 0) continue;
    // "Error: <message>"
    const auto text = line.find_first_not_of(' ', line.find(':') == std::string::npos ? 0 : line.find(':') + 1);
    errors.push_back(text == std::string::npos ? line : line.substr(text));
  }
  if (errors.empty() && thrown.empty()) return;
  std::string message = source + ": Gmsh: " + (errors.empty() ? thrown : errors.front());
  if (errors.size() > 1) message += " (and " + std::to_string(errors.size() - 1) + " more errors)";
  throw MeshError(message);
}

void require_file(const std::filesystem::path& file) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(file, error)) {
    fail(file.string(), std::filesystem::exists(file, error) ? "not a regular file" : "no such file");
  }
}

void require_msh_header(const std::filesystem::path& file) {
  // Only the first bytes: the file may be large and binary.
  std::ifstream in(file, std::ios::binary);
  std::string head(64, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  const std::size_t start = head.find_first_not_of(" \t\r\n");
  if (start == std::string::npos || head.compare(start, 11, "$MeshFormat") != 0) {
    fail(file.string(), "not a Gmsh mesh file: it does not start with $MeshFormat");
  }
}

void load_into_gmsh(const std::filesystem::path& file, const Parameters& parameters) {
  const std::string source = file.string();
  require_file(file);
  const std::string extension = lower_extension(file);
  if (extension == ".geo") {
    open_geo(file, parameters);
    run_gmsh(source, [] { gmsh::model::mesh::generate(gmsh::model::getDimension()); });
  } else if (extension == ".msh") {
    if (!parameters.empty()) {
      fail(source, "parameters (-D " + parameters.begin()->first + "=...) apply to .geo files, not to a .msh mesh");
    }
    require_msh_header(file);
    scan_msh(file);  // counts Gmsh would allocate by, checked against the file's size
    run_gmsh(source, [&] { gmsh::open(source); });
  } else {
    fail(source, "unknown mesh file type '" + extension + "'; Gmsh input is .geo (geometry) or .msh (mesh)");
  }
}

}  // namespace detail

RawMesh read_gmsh(const std::filesystem::path& file, const Parameters& parameters) {
  const GmshSession session;
  detail::load_into_gmsh(file, parameters);
  RawMesh raw;
  detail::run_gmsh(file.string(), [&] { raw = detail::extract_model(file.string()); });
  return raw;
}

Parameters geo_parameters(const std::filesystem::path& file) {
  const GmshSession session;
  detail::require_file(file);
  detail::open_geo(file, {});
  Parameters parameters;
  detail::run_gmsh(file.string(), [&] { parameters = detail::declared_parameters(); });
  return parameters;
}

Mesh write_msh(const std::filesystem::path& input, const Parameters& parameters,
               const std::filesystem::path& output, MshFormat format) {
  if (format.version != 2.2 && format.version != 4.1) {
    detail::fail(output.string(), "MSH version " + detail::format_number(format.version) + " is not offered; use 2.2 or 4.1");
  }
  const GmshSession session;
  detail::load_into_gmsh(input, parameters);
  RawMesh raw;
  detail::run_gmsh(input.string(), [&] { raw = detail::extract_model(input.string()); });
  Mesh mesh = build_mesh(std::move(raw));
  gmsh::option::setNumber("Mesh.MshFileVersion", format.version);
  gmsh::option::setNumber("Mesh.Binary", format.binary ? 1 : 0);
  gmsh::option::setNumber("Mesh.SaveAll", 0);
  detail::publish_atomically(output, ".msh", [&](const std::filesystem::path& temporary) {
    detail::run_gmsh(output.string(), [&] { gmsh::write(temporary.string()); });
  });
  return mesh;
}

}  // namespace rtdg::mesh
