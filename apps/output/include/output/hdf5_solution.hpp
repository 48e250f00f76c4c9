// HDF5 solution files: one layout for snapshots and checkpoints. It reads with h5py and h5dump
// (documented in docs/output.md). K elements, Np nodes per element:
//
//   /                  attributes: format = "rtdg-solution", version (int32), shape
//                      ("interval" | "triangle" | "tetrahedron"), dim, N, K, Np (int32),
//                      precision ("float" | "double"), time (float64), step (int64),
//                      field_names (string [C], the component order), rtdg_version,
//                      law_name, law_file, mesh_file, mesh_fingerprint, integrator,
//                      effective_config (strings)
//   /coordinates/x, y, z   float64 [K][Np]   (y below 2D and z below 3D are absent)
//   /fields/<name>         float64 or float32 (precision) [K][Np], one per component;
//                          names keep their '.', e.g. /fields/E.x
#pragma once

#include "output/solution.hpp"

#include <filesystem>

namespace rtdg::output {

// The layout version written; read_solution reads this version and older ones.
inline constexpr int kSolutionFormatVersion = 1;

// Writes the solution (checked first) atomically: HDF5 builds the file in memory, which is
// written to a temporary file in the same folder, fsynced and renamed over `file` (the folder
// fsynced too). On any failure the temporary is removed and `file` is as it was. Float precision stores the values rounded to float. Throws output::Error
// naming the file.
void write_solution(const std::filesystem::path& file, const Solution& solution);

// Reads a file written by write_solution. Float32 fields come back as the exact doubles.
// Throws output::Error naming the file (and dataset or attribute): no such file, not an HDF5
// file, not an rtdg solution, a newer version, a missing attribute or dataset, a dataset of the
// wrong type or shape.
Solution read_solution(const std::filesystem::path& file);

}  // namespace rtdg::output
