// GmshSession: the process's one Gmsh instance, behind a lock.
#include "mesh/gmsh_io.hpp"

#include <gmsh.h>

#include <array>
#include <cstdlib>
#include <string_view>

namespace rtdg::mesh {
namespace {

// Options a .geo file (or a write_msh call) may change that would otherwise carry over to
// the next file meshed in this process.
constexpr std::array<const char*, 22> kIsolatedOptions{
    "Mesh.ElementOrder",      "Mesh.SecondOrderLinear",        "Mesh.HighOrderOptimize",
    "Mesh.HighOrderThresholdMin", "Mesh.HighOrderThresholdMax",
    "Mesh.MshFileVersion",    "Mesh.Binary",                   "Mesh.SaveAll",
    "Mesh.MeshSizeFactor",    "Mesh.MeshSizeMin",              "Mesh.MeshSizeMax",
    "Mesh.MeshSizeFromPoints", "Mesh.MeshSizeFromCurvature",   "Mesh.MeshSizeExtendFromBoundary",
    "Mesh.Algorithm",         "Mesh.Algorithm3D",              "Mesh.RecombineAll",
    "Mesh.SubdivisionAlgorithm", "Mesh.Optimize",              "Mesh.OptimizeNetgen",
    "Mesh.RandomSeed",        "Mesh.ScalingFactor"};

bool gmsh_output_wanted() {
  const char* level = std::getenv("RTDG_LOG_LEVEL");
  if (level == nullptr) return false;
  const std::string_view value(level);
  return value == "debug" || value == "trace";
}

// Initialised on first use; finalised when the process exits (this object is created after
// Gmsh's own static data, so it is destroyed before it).
struct GmshRuntime {
  std::mutex mutex;
  bool initialized = false;

  ~GmshRuntime() {
    if (!initialized) return;
    try {
      gmsh::finalize();
    } catch (...) {  // cleanup never throws
    }
  }
};

GmshRuntime& runtime() {
  static GmshRuntime instance;
  return instance;
}

}  // namespace


GmshSession::GmshSession() : lock_(runtime().mutex) {
  GmshRuntime& gmsh_runtime = runtime();
  if (!gmsh_runtime.initialized) {
    // No gmshrc or gmsh-options: a user's settings must not change rtdg's meshes.
    gmsh::initialize(0, nullptr, false);
    gmsh_runtime.initialized = true;
    gmsh::option::setNumber("General.Terminal", gmsh_output_wanted() ? 1 : 0);
    gmsh::option::setNumber("General.NumThreads", 1);
    // Errors are collected from the log, not thrown: see run_gmsh in gmsh_support.hpp.
    gmsh::option::setNumber("General.AbortOnError", 0);
  }
  for (const char* name : kIsolatedOptions) {
    double value = 0.0;
    gmsh::option::getNumber(name, value);
    saved_options_[name] = value;
  }
  gmsh::clear();
  gmsh::onelab::clear();
}

GmshSession::~GmshSession() {
  try {
    gmsh::clear();
    gmsh::onelab::clear();
    for (const auto& [name, value] : saved_options_) gmsh::option::setNumber(name, value);
  } catch (...) {  // cleanup never throws
  }
}

}  // namespace rtdg::mesh
