// Total-field/scattered-field (TF/SF) incidence: a closed surface of element faces splits the
// mesh into a total-field region, whose elements carry the total field (incident + scattered),
// and the rest, which carries the scattered field only. The incident plane wave enters through
// the surface: at a face between the regions the kernels add the incident field to the
// neighbour's trace on the total-field side and subtract it on the scattered-field side, so
// each side's numerical flux sees a neighbour in its own formulation (Taflove & Hagness, ch. 5;
// in DG the correction is exact per face node). Penetrable objects (materials per region) sit
// inside the total-field region; a PML and the far-field Huygens surface lie outside it, where
// the field is purely scattered. docs/scattering.md is the user's guide.
#pragma once

#include "dg/discretization.hpp"

#include <fluxes/law.hpp>
#include <mesh/mesh.hpp>

#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace rtdg::dg {

// The elements whose centroid is inside the box [lo, hi] (2D: z ignored), as [K] flags.
std::vector<char> total_field_box(const mesh::Mesh& mesh, const std::array<double, 3>& lo, const std::array<double, 3>& hi);
// The elements of the mesh region (physical group) `name`; throws dg::Error naming the
// mesh's regions when there is none.
std::vector<char> total_field_region(const mesh::Mesh& mesh, std::string_view name);

// Checks that the flagged elements form a total-field region with a closed surface: some but
// not all elements, and no mesh boundary group with faces on both sides (the surface would end
// on the boundary; a scatterer's boundary entirely inside the region is fine). `what` names
// the region in messages. Throws dg::Error.
void check_total_field(const mesh::Mesh& mesh, const std::vector<char>& total, const std::string& what);

// For each state component of the law, the index of its incident component, or -1: field F
// takes the law's incident field named F_inc (same shape), e.g. E <- E_inc, Hx <- Hx_inc; a field
// without one (a PML's auxiliary field) gets no incident part. Throws dg::Error when no field
// has one (the law cannot take TF/SF incidence) or when F_inc has another shape than F.
std::vector<int> incident_components(const fluxes::Law& law);

}  // namespace rtdg::dg
