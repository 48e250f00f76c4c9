// VTU snapshots for ParaView: one VTK Lagrange cell of order N per element
// (VTK_LAGRANGE_TRIANGLE 69, VTK_LAGRANGE_TETRAHEDRON 71; VTK_LAGRANGE_CURVE 68 in 1D) whose
// points are the equispaced lattice of the element, the nodal values interpolated onto it.
// Points are not shared between elements: the DG solution is discontinuous. Layout in
// docs/output.md. Writing needs VTK (RTDG_WITH_VTK); without it write_vtu throws, and
// `rtdg export` on a machine with VTK turns the HDF5 solutions into VTU files afterwards.
#pragma once

#include "output/pvd.hpp"
#include "output/solution.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace rtdg::output {

// Whether this build can write VTU files (VTK was found at configure time).
bool vtu_available();

// Writes the solution as a .vtu (binary, appended, zlib-compressed) atomically: a temporary
// file in the same folder renamed over `file`. Point data: one array per vector field
// (point_arrays below) and one per remaining component, float32 or float64 as the solution's
// precision; field data TIME (float64) and CYCLE (int64, the step). Throws output::Error naming
// the file; without VTK, an Error saying so.
void write_vtu(const std::filesystem::path& file, const Solution& solution);

// The .pvtu that makes the VTU pieces of a parallel run's snapshot (one write_vtu file per rank)
// one dataset for ParaView: it declares the point arrays write_vtu writes for component `names`
// in `dim` dimensions and `precision` ("float" or "double"), and lists the `pieces` (paths
// relative to the .pvtu's folder). Plain XML, written atomically; needs no VTK. Throws
// output::Error naming the file.
void write_pvtu(const std::filesystem::path& file, const std::vector<std::filesystem::path>& pieces,
                const std::vector<std::string>& names, int dim, const std::string& precision);

// A point-data array of the VTU: a scalar (one component) or a 3-component vector.
struct PointArray {
  std::string name;
  // Indices into the solution's component names; -1 is a zero component (2D vectors' z).
  std::vector<int> components;
};

// How component names become VTU arrays: components "F.x", "F.y" (and "F.z") make the vector
// "F" when F.x and F.y exist and, in 3D, F.z too; in 2D a missing F.z is padded with zeros. A
// component that is in no vector is a scalar array of its own name. Arrays come in the order of
// their first component; no vector is made whose name is also a component's.
std::vector<PointArray> point_arrays(const std::vector<std::string>& names, int dim);

}  // namespace rtdg::output
