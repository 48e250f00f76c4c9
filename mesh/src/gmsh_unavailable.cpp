// Built instead of the gmsh_*.cpp files when the Gmsh SDK is absent (RTDG_HAVE_GMSH=0):
// every Gmsh entry point says what is missing and how to get on without it.
#include "mesh/error.hpp"
#include "mesh/gmsh_io.hpp"

namespace rtdg::mesh {
namespace {

[[noreturn]] void unavailable(const std::filesystem::path& file) {
  throw MeshError((file.empty() ? std::string("Gmsh") : file.string()) +
                  ": this rtdg was built without the Gmsh SDK, so it cannot read .geo or .msh files; "
                  "convert the mesh with an rtdg that has Gmsh (rtdg mesh " +
                  (file.empty() ? std::string("in.msh") : file.filename().string()) +
                  " -o mesh.h5) and load the .h5, or install libgmsh-dev and reconfigure");
}

}  // namespace

GmshSession::GmshSession() { unavailable({}); }

GmshSession::~GmshSession() = default;

RawMesh read_gmsh(const std::filesystem::path& file, const Parameters&) { unavailable(file); }

Parameters geo_parameters(const std::filesystem::path& file) { unavailable(file); }

Mesh write_msh(const std::filesystem::path& input, const Parameters&, const std::filesystem::path&, MshFormat) {
  unavailable(input);
}

}  // namespace rtdg::mesh
