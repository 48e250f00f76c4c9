// Pieces every DG kernel family shares (private to dg/src/kernels): the law's lowered
// expressions, how generated code names their inputs, and the program prelude (scalar type,
// sizes as constants, the state index macro, the face-node table). Each family (unfused.cpp,
// fused.cpp, reference.cpp) writes its kernels on top of these, so the arithmetic of a flux or
// boundary condition is emitted by one function whatever the loop structure around it.
#pragma once

#include "dg/kernels.hpp"

#include <fluxes/law_lowering.hpp>
#include <rtcg/source_writer.hpp>

#include <functional>
#include <string>
#include <vector>

namespace rtdg::dg::kernels {

// The law's expressions the kernels evaluate, lowered once per generation.
struct Pieces {
  fluxes::Lowered flux;                  // F: [c*dim + d]
  fluxes::Lowered source;                // S: [c]
  fluxes::Lowered difference;            // n.(F - F*): [c]
  std::vector<fluxes::Lowered> boundary; // per condition in use: n.(F - F*) with its exterior state
  bool has_source = false;
};

// Lowers the spec's law; throws dg::Error for a condition reading an incident field that the
// spec does not give.
Pieces lower_pieces(const KernelSpec& spec);

// Law names and condition names are user text: only letters, digits and '_' of them reach
// generated source (comments, program names), so no text from a file becomes code.
std::string identifier_text(const std::string& text);

// "dg_<law>_<shape>_N<order>_<f32|f64>".
std::string program_name(const KernelSpec& spec);

// Writes the emitted statements of `piece` with outputs named `output[i]`. Inputs are named
// u[c] (state), uP[c] (exterior), nrm[d], xn[d], t, prm[p], inc[j]; `state_of`, when given,
// names state component c instead (e.g. a gradient "gx[3]" in the fused kernel); `other`, when
// given, names any input it returns a non-empty name for (the halo branch's neighbour parameters).
using StateNames = std::function<std::string(std::size_t component)>;
using InputNames = std::function<std::string(const fluxes::InputRef& ref)>;
void emit_piece(rtcg::SourceWriter& w, const fluxes::Lowered& piece, const std::string& output,
                const std::string& prefix, fluxes::ScalarType scalar, const StateNames& state_of = {},
                const InputNames& other = {});

// `real <name>[NCOMP];` filled from q[QIDX(c, element, node)].
void load_state(rtcg::SourceWriter& w, int components, const std::string& element, const std::string& node,
                const std::string& name);
// `real xn[DIM];` filled from xyz [dim][K][Np] at element k.
void load_coordinates(rtcg::SourceWriter& w, int dim, const std::string& node);

// The program prelude: a header comment, `real`, NP NFP NFACES NFN DIM NCOMP NINC, QIDX for
// the plan's layout and the face-node table rtdg_fmask[NFN] (volume node of face node m).
void write_prelude(rtcg::SourceWriter& w, const KernelSpec& spec);

// Where a kernel reads an element's geometry, as C expressions in k (the element) and f (its
// face): the global arrays (the defaults), or a block's copy in shared memory (the fused
// kernel with geometry = shared, filled in the load phase of prefetch = async).
struct GeometryReads {
  std::string drdx = "drdx + k * (DIM * DIM)";             // const real*: dr_a/dx_d at [a * DIM + d]
  std::string face = "fgeo + (k * NFACES + f) * (DIM + 1)";  // const real*: the face's n[DIM], Fscale
  std::string code = "bcode[k * NFACES + f]";               // int: the face's code
};

// The body of a surface face-node evaluation: with f, iM, k, m and u[] bound, writes dF[NCOMP]
// = n.(F - F*) for an interior face (neighbour read through vmapP from q), a halo face (code
// -1, parallel runs: the neighbour rank's trace read through vmapP from halo[], which the
// kernel takes with its face count H: halo_arguments) or for the face's boundary
// condition (code from bcode), and reads the face geometry into `fg` / nrm[]. `halo` false
// leaves the halo branch out (kernels without halo arguments: the library formulation).
// `staged`, when given, names where the interior neighbour's trace of component c was already
// loaded (Prefetch::on), instead of reading it from q. `geometry`: where fg and the code come from.
// `traces`, when given, writes the exterior trace uP[NCOMP] at face node m instead (see TraceLoads).
struct TraceLoads;
void write_face_flux(rtcg::SourceWriter& w, const KernelSpec& spec, const Pieces& pieces, bool halo = true,
                     const std::function<std::string(int c)>& staged = {}, const GeometryReads& geometry = {},
                     const TraceLoads* traces = nullptr);

// How write_face_flux reads the exterior trace `real uP[NCOMP]` at face node m (of face f, element
// k): `interior` on interior and TF/SF faces (with p, kP, iP bound: vmapP of node m), `halo` on
// halo faces (with p, h bound). The curved kernels of a Bernstein plan give them: they evaluate
// the face's Bernstein coefficients at the node (unfused.cpp).
struct TraceLoads {
  std::function<void(rtcg::SourceWriter&)> interior;
  std::function<void(rtcg::SourceWriter&)> halo;
};

// The halo buffer of a kernel with halo faces, [H][NCOMP][NFP] in reals: the neighbour ranks'
// traces of the H halo faces, each in the neighbour's own face-node order; vmapP of node j of
// halo face h holds h * NCOMP * NFP + (the neighbour's node at j). Per-element parameters of
// the neighbours follow the [P][K] block in prm as [P][H].
inline constexpr const char* halo_arguments = "const real* RTCG_RESTRICT halo, int H";

// With u[] (and xn[] when the flux reads it) bound at node i of element k: evaluates the flux
// F and writes the metric-folded G_a = sum_d (dr_a/dx_d) F_d of component c to `target(c * DIM
// + a)` (a C lvalue), for every c and a, or only for a = `direction` when it is >= 0.
// `geometry`: where dr_a/dx_d comes from.
void write_folded_flux(rtcg::SourceWriter& w, const KernelSpec& spec, const Pieces& pieces,
                       const std::function<std::string(int ca)>& target, int direction = -1,
                       const GeometryReads& geometry = {});

std::string join_ints(const std::vector<int>& values);

}  // namespace rtdg::dg::kernels
