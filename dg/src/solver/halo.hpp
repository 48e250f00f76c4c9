// Halo faces of a parallel run in the solver's kernel arrays (dg/solver.hpp, HaloSetup): face
// code -1, and vmapP pointing into the halo buffer of received traces.
#pragma once

#include "dg/discretization.hpp"
#include "dg/halo.hpp"
#include "dg/solver.hpp"
#include "kernels/geometry_arrays.hpp"

#include <array>
#include <cstdint>
#include <vector>

namespace rtdg::dg {

// Marks the halo faces in `geometry` (bcode -1, vmapP = h * components * Nfp + perm[j]) and
// appends the neighbours' per-element parameters ([P][H]) to prm when `per_element` is not
// empty. Returns the pack list [H][2] (element, face). Throws dg::Error naming the halo face
// for an element or face out of range, a face that is not a free face of the local mesh (a
// physical boundary or connected to another element), a missing exchange, or neighbour
// parameters of the wrong size.
std::vector<std::int32_t> apply_halo(Geometry& geometry, const Discretization& disc, const HaloSetup& halo,
                                     int components, const std::vector<double>& parameters,
                                     const std::vector<bool>& per_element);

}  // namespace rtdg::dg
