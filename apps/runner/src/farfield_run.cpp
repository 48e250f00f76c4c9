// FarFieldRun (runner/farfield_run.hpp).
#include "runner/farfield_run.hpp"

#include "parallel_run.hpp"

#include <dg/error.hpp>
#include <dg/halo.hpp>
#include <dg/incident.hpp>
#include <dg/parallel.hpp>
#include <fluxes/evaluate.hpp>
#include <output/hdf5_arrays.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <map>
#include <numbers>

namespace rtdg::runner {
namespace fs = std::filesystem;
namespace {

constexpr double pi = std::numbers::pi;

double parameter(const Problem& p, const char* name, double fallback) {
  for (std::size_t i = 0; i < p.law.parameters.size(); ++i)
    if (p.law.parameters[i].name == name) return i < p.parameters.size() ? p.parameters[i] : p.law.parameters[i].value;
  return fallback;
}

// E.x ... H.z -> the state component (-1: none), from the law's names ("E.x" or "Ex").
std::array<int, 6> field_slots(const std::vector<std::string>& names) {
  std::array<int, 6> slots{-1, -1, -1, -1, -1, -1};
  for (std::size_t c = 0; c < names.size(); ++c) {
    std::string n = names[c];
    n.erase(std::remove(n.begin(), n.end(), '.'), n.end());
    if (n.size() != 2 || (n[0] != 'E' && n[0] != 'H') || n[1] < 'x' || n[1] > 'z') continue;
    slots[static_cast<std::size_t>((n[0] == 'E' ? 0 : 3) + (n[1] - 'x'))] = static_cast<int>(c);
  }
  return slots;
}

std::string number(double v) {
  char text[32];
  const auto end = std::to_chars(text, text + sizeof text, v).ptr;
  return std::string(text, end);
}

dg::Point cross(const dg::Point& a, const dg::Point& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}

double db(double v) { return 10 * std::log10(std::max(v, 1e-300)); }

void write_csv(const fs::path& file, const std::string& header, const std::vector<std::vector<double>>& rows) {
  std::string text = header + "\n";
  for (const auto& row : rows) {
    for (std::size_t i = 0; i < row.size(); ++i) text += (i ? "," : "") + number(row[i]);
    text += "\n";
  }
  const fs::path temporary = fs::path(file).concat(".tmp");
  {
    std::ofstream out(temporary, std::ios::binary);
    out << text;
    if (!out) throw std::runtime_error("cannot write " + temporary.string());
  }
  fs::rename(temporary, file);
}

// Every rank's `values` concatenated in rank order, on every rank (an all-to-all that sends
// each rank the same).
template <class T>
std::vector<T> all_gather(const dg::Communicator& comm, const std::vector<T>& values) {
  std::vector<T> send;
  send.reserve(values.size() * static_cast<std::size_t>(comm.size()));
  for (int r = 0; r < comm.size(); ++r) send.insert(send.end(), values.begin(), values.end());
  const std::vector<int> counts(static_cast<std::size_t>(comm.size()), static_cast<int>(values.size()));
  return comm.all_to_all(std::span<const T>(send), std::span<const int>(counts));
}

// One face of the whole Huygens surface in a parallel run: its inner side (global element and
// face) on rank inner_rank, its outer side on outer_rank, and whether either side carries the
// total field (TF/SF). Gathered as 8 ints.
struct SurfaceFace {
  int element = 0, face = 0, outer_element = 0, outer_face = 0, inner_rank = 0, outer_rank = 0, inner_total = 0,
      outer_total = 0;
};

// The whole mesh's Huygens faces in the serial run's order (ascending global element, then
// face: dg::boundary_group_faces and dg::interface_faces list them so), from every rank's part
// and its halo: box flags and bounds, and the enclosure test, reduce over the ranks; the outer
// side of a face between ranks is the halo face's neighbour. No rank needs the whole mesh.
std::vector<SurfaceFace> whole_surface_faces(const Problem& p, const Part& part) {
  const config::FarField& ff = p.cfg.farfield;
  const dg::Communicator& comm = *part.comm;
  const mesh::LocalMesh& local = *part.local;
  const mesh::Mesh& mesh = local.mesh;
  const int me = comm.rank(), K = mesh.num_elements(), Nfaces = mesh.num_faces();
  std::vector<int> halo_of(static_cast<std::size_t>(K) * 4, -1);  // the halo face of local (k, f), or -1
  for (std::size_t h = 0; h < local.halo_faces.size(); ++h)
    halo_of[static_cast<std::size_t>(local.halo_faces[h].element * 4 + local.halo_faces[h].face)] = static_cast<int>(h);
  const std::vector<char>& total = p.setup.total_field;
  const std::vector<char>& halo_total = p.setup.halo.neighbour_total_field;
  auto total_of = [&](int k) { return total.empty() ? 0 : int(total[static_cast<std::size_t>(k)]); };
  std::vector<int> mine;
  auto add = [&](int k, int f) {
    const auto kk = static_cast<std::size_t>(k), ff_ = static_cast<std::size_t>(f);
    const int h = halo_of[kk * 4 + ff_];
    if (h >= 0) {
      const mesh::HaloFace& hf = local.halo_faces[static_cast<std::size_t>(h)];
      mine.insert(mine.end(), {local.element_global[kk], f, hf.neighbour_element, hf.neighbour_face, me, hf.rank, total_of(k),
                               halo_total.empty() ? 0 : int(halo_total[static_cast<std::size_t>(h)])});
    } else {
      const int kn = mesh.EToE[kk][ff_];
      mine.insert(mine.end(), {local.element_global[kk], f, local.element_global[static_cast<std::size_t>(kn)],
                               mesh.EToF[kk][ff_], me, me, total_of(k), total_of(kn)});
    }
  };
  if (ff.surface == "boundary") {
    const auto found = std::find(mesh.boundary_names.begin(), mesh.boundary_names.end(), ff.group);
    if (found == mesh.boundary_names.end()) dg::boundary_group_faces(mesh, ff.group);  // throws, naming the groups
    const int group = static_cast<int>(found - mesh.boundary_names.begin());
    for (const mesh::BoundaryFace& b : mesh.boundary_faces)
      if (b.group == group) add(b.element, b.face);
  } else {
    std::vector<char> inside;
    std::string what;
    if (ff.surface == "box") {
      inside = dg::elements_in_box(p.disc, ff.box_min, ff.box_max);
      auto [lo, hi] = dg::node_bounds(p.disc);
      for (std::size_t d = 0; d < 3; ++d) {
        lo[d] = comm.min(lo[d]);
        hi[d] = comm.max(hi[d]);
      }
      what = dg::box_text(p.disc.dim, ff.box_min, ff.box_max, lo, hi);
    } else {
      const auto found = std::find(mesh.region_names.begin(), mesh.region_names.end(), ff.group);
      if (found == mesh.region_names.end()) {
        std::string list;
        for (const std::string& n : mesh.region_names) list += (list.empty() ? "" : ", ") + n;
        throw dg::Error("the mesh has no region '" + ff.group + "'; its regions: " + (list.empty() ? "(none)" : list));
      }
      const int region = static_cast<int>(found - mesh.region_names.begin());
      inside.assign(static_cast<std::size_t>(K), 0);
      for (std::size_t k = 0; k < inside.size(); ++k) inside[k] = mesh.element_region[k] == region ? 1 : 0;
      what = "the far-field region '" + ff.group + "'";
    }
    check_enclosure(comm, local, inside, what);
    const std::vector<double> halo_inside = neighbour_values(comm, local, std::vector<double>(inside.begin(), inside.end()));
    for (int k = 0; k < K; ++k) {
      if (!inside[static_cast<std::size_t>(k)]) continue;
      for (int f = 0; f < Nfaces; ++f) {
        const int h = halo_of[static_cast<std::size_t>(k * 4 + f)];
        const int kn = mesh.EToE[static_cast<std::size_t>(k)][static_cast<std::size_t>(f)];
        const bool outside = h >= 0 ? halo_inside[static_cast<std::size_t>(h)] == 0
                                    : kn != k && !inside[static_cast<std::size_t>(kn)];
        if (outside) add(k, f);
      }
    }
  }
  const std::vector<int> all = all_gather(comm, mine);
  std::vector<SurfaceFace> faces(all.size() / 8);
  for (std::size_t j = 0; j < faces.size(); ++j) {
    const int* v = all.data() + 8 * j;
    faces[j] = {v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]};
  }
  std::sort(faces.begin(), faces.end(),
            [](const SurfaceFace& a, const SurfaceFace& b) { return std::pair(a.element, a.face) < std::pair(b.element, b.face); });
  if (faces.empty()) throw dg::Error("the mesh boundary '" + ff.group + "' has no faces");
  return faces;
}

}  // namespace

FarFieldRun::FarFieldRun(const Problem& p, const dg::Solver& solver, double dt, std::ostream& log, const Part* part)
    : problem_(p), log_(log) {
  const config::RunConfig& cfg = p.cfg;
  const config::FarField& ff = cfg.farfield;
  auto fail = [&](const std::string& key, const std::string& message) -> void {
    throw config::Error(key.empty() ? ff.where : cfg.where("farfield." + key), message);
  };
  if (cfg.incident.kind != "plane_wave")
    fail("", "[farfield] needs an incident plane wave ([incident] kind = \"plane_wave\"): far fields are normalised by it");
  const std::array<int, 6> slots = field_slots(solver.component_names());
  const bool has_e = slots[0] >= 0 || slots[1] >= 0 || slots[2] >= 0;
  if (!has_e) fail("", "[farfield] needs a law with electromagnetic fields E and H (components named E.x or Ez, H.x or Hx, ...)");
  if (p.disc.dim == 2 && (slots[2] < 0 || slots[3] < 0 || slots[4] < 0))
    fail("", "[farfield] in 2D supports the TM polarisation (Ez, Hx, Hy); the law has other components");
  const bool parallel = part && part->parallel();
  if (parallel) comm_ = part->comm;
  // The whole surface's faces in the serial order (a parallel run: global element numbers).
  std::vector<SurfaceFace> faces;
  try {
    if (parallel) faces = whole_surface_faces(p, *part);
    else if (ff.surface == "box") surface_ = dg::huygens_surface_box(p.disc, p.mesh, ff.box_min, ff.box_max);
    else if (ff.surface == "boundary") surface_ = dg::huygens_surface_boundary(p.disc, ff.group);
    else surface_ = dg::huygens_surface_region(p.disc, p.mesh, ff.group);
  } catch (const dg::Error& e) {
    fail(ff.surface == "box" ? "box_min" : "group", e.what());
  }
  const int Np = p.disc.element.Np, Nfp = p.disc.element.Nfp;
  auto touches_total_field = [&] {
    fail(ff.surface == "box" ? "box_min" : "group",
         "the far-field surface touches the total-field region ([incident] total_field): it must lie in the scattered "
         "field, outside the total-field region with at least one element between them");
  };
  std::vector<int> exports;  // parallel: the nodes of this rank other ranks' points need
  std::string across;        // parallel: how many faces lie between ranks, for the log
  if (parallel) {
    // This rank's faces (those of its elements), in the whole surface's order; an outer twin on
    // another rank takes slot r of the remote values: the ranks in order, each one's faces
    // in the surface's order, their nodes in that rank's face node order (halo_node_permutation).
    const mesh::LocalMesh& local = *part->local;
    const int me = comm_->rank(), ranks = comm_->size();
    // Local element numbers by global number (element_global ascends in each of its two groups).
    std::vector<std::pair<int, int>> by_global;
    by_global.reserve(local.element_global.size());
    for (std::size_t k = 0; k < local.element_global.size(); ++k) by_global.emplace_back(local.element_global[k], static_cast<int>(k));
    std::sort(by_global.begin(), by_global.end());
    auto local_of = [&](int g) {
      const auto at = std::lower_bound(by_global.begin(), by_global.end(), std::pair(g, -1));
      if (at == by_global.end() || at->first != g) throw dg::Error("internal: a far-field face's element is not on this rank");
      return at->second;
    };
    std::map<std::pair<int, int>, const mesh::HaloFace*> halo_of;
    for (const mesh::HaloFace& f : local.halo_faces) halo_of[{f.element, f.face}] = &f;
    std::vector<std::pair<int, int>> own;
    std::vector<int> own_position(faces.size(), -1);
    int across_ranks = 0;
    for (std::size_t j = 0; j < faces.size(); ++j) {
      if (faces[j].inner_total || faces[j].outer_total) touches_total_field();
      if (faces[j].inner_rank != faces[j].outer_rank) ++across_ranks;
      if (faces[j].inner_rank != me) continue;
      own_position[j] = static_cast<int>(own.size());
      own.emplace_back(local_of(faces[j].element), faces[j].face);
    }
    exchange_ = across_ranks > 0;
    across = "; " + std::to_string(across_ranks) + (across_ranks == 1 ? " face" : " faces") + " between ranks";
    surface_ = dg::huygens_surface(p.disc, own);
    int slot = 0;
    export_counts_.assign(static_cast<std::size_t>(ranks), 0);
    const auto C = static_cast<std::size_t>(std::count_if(slots.begin(), slots.end(), [](int c) { return c >= 0; }));
    for (int r = 0; r < ranks; ++r) {
      if (r == me) continue;
      for (std::size_t j = 0; j < faces.size(); ++j) {
        const int kn = faces[j].outer_element, fn = faces[j].outer_face;
        const int inner_rank = faces[j].inner_rank, outer_rank = faces[j].outer_rank;
        if (inner_rank == me && outer_rank == r) {
          // This rank's point, its twin on rank r.
          const int k = local_of(faces[j].element);
          const auto found = halo_of.find({k, faces[j].face});
          if (found == halo_of.end()) throw dg::Error("internal: a far-field face across ranks is not a halo face");
          const std::vector<int> perm = dg::halo_node_permutation(p.disc.element, faces[j].face,
                                                                  found->second->neighbour_face, found->second->vertex_match);
          for (int jj = 0; jj < Nfp; ++jj)
            surface_.outer[static_cast<std::size_t>(own_position[j] * Nfp + jj)] = -1 - (slot + perm[static_cast<std::size_t>(jj)]);
          slot += Nfp;
        } else if (inner_rank == r && outer_rank == me) {
          // Rank r's point, its twin here: this rank's face fn of element kn, in its face node order.
          const int ko = local_of(kn);
          for (int jo = 0; jo < Nfp; ++jo) exports.push_back(ko * Np + p.disc.element.Fmask(jo, fn));
          export_counts_[static_cast<std::size_t>(r)] += Nfp * static_cast<int>(C);
        }
      }
    }
    // The whole surface on every rank, gathered in the serial order (its quadrature points).
    std::vector<int> mine;
    std::vector<double> points;
    for (std::size_t j = 0; j < faces.size(); ++j) {
      if (own_position[j] < 0) continue;
      for (int jj = 0; jj < Nfp; ++jj) {
        const std::size_t l = static_cast<std::size_t>(own_position[j] * Nfp + jj);
        mine.push_back(static_cast<int>(j) * Nfp + jj);
        points.insert(points.end(), {surface_.x[l][0], surface_.x[l][1], surface_.x[l][2], surface_.normal[l][0],
                                     surface_.normal[l][1], surface_.normal[l][2], surface_.weight[l]});
      }
    }
    gathered_points_ = all_gather(*comm_, mine);
    rank_points_ = all_gather(*comm_, std::vector<int>{static_cast<int>(mine.size())});
    const std::vector<double> all_points = all_gather(*comm_, points);
    const std::size_t P = faces.size() * static_cast<std::size_t>(Nfp);
    whole_.dim = p.disc.dim;
    whole_.faces = static_cast<int>(faces.size());
    whole_.x.resize(P);
    whole_.normal.resize(P);
    whole_.weight.resize(P);
    for (std::size_t i = 0; i < gathered_points_.size(); ++i) {
      const std::size_t g = static_cast<std::size_t>(gathered_points_[i]);
      const double* v = all_points.data() + 7 * i;
      whole_.x[g] = {v[0], v[1], v[2]};
      whole_.normal[g] = {v[3], v[4], v[5]};
      whole_.weight[g] = v[6];
    }
  } else if (const std::vector<char>& total = p.setup.total_field; !total.empty()) {
    // The transform needs the scattered field on both sides of every surface face.
    for (std::size_t j = 0; j < surface_.size(); ++j)
      if (total[static_cast<std::size_t>(surface_.inner[j] / Np)] || total[static_cast<std::size_t>(surface_.outer[j] / Np)])
        touches_total_field();
  }
  wave_speed_ = comm_ ? comm_->max(solver.max_wave_speed()) : solver.max_wave_speed();
  const double eps = parameter(p, "eps", 1.0);
  mu_ = parameter(p, "mu", 1.0);
  impedance_ = std::sqrt(mu_ / eps);
  std::vector<double> omegas;
  for (double f : ff.frequencies) omegas.push_back(2 * pi * f);
  if (omegas.empty()) omegas.push_back(cfg.incident.wavenumber * wave_speed_);
  const double omega_max = *std::max_element(omegas.begin(), omegas.end());
  if (!(omega_max * ff.every * dt < pi))
    fail("every", "farfield.every = " + std::to_string(ff.every) + " samples every " + number(ff.every * dt) +
                      " time units, beyond the Nyquist limit of the highest frequency " + number(omega_max / (2 * pi)) +
                      " (at most " + number(pi / omega_max) + "); sample more often");

  const dg::PlaneWave wave = plane_wave(cfg.incident);
  // A parallel run's front is the whole mesh's (make_part).
  const double front = p.setup.incident_front ? *p.setup.incident_front : dg::plane_wave_front(p.disc, wave.direction);
  signal_ = dg::lower_plane_wave_signal(wave, p.disc.dim, wave_speed_, front);
  if (wave.envelope == dg::Envelope::ramp) {
    mode_ = dg::SurfaceDft::Mode::time_harmonic;
    if (ff.start) {
      start_ = *ff.start;
    } else {
      // The ramp is over everywhere once it has crossed the mesh; then the scattered wave needs
      // to cross the mesh too (to the surface and back from the outer boundary).
      // (A parallel run: each extent over the ranks, the serial run's exactly.)
      double lo = 1e300, hi = -1e300, diameter = 0;
      const Eigen::MatrixXd* xyz[3] = {&p.disc.x, &p.disc.y, &p.disc.z};
      for (int d = 0; d < p.disc.dim; ++d) {
        const double top = comm_ ? comm_->max(xyz[d]->maxCoeff()) : xyz[d]->maxCoeff();
        const double bottom = comm_ ? comm_->min(xyz[d]->minCoeff()) : xyz[d]->minCoeff();
        diameter += std::pow(top - bottom, 2);
      }
      for (int k = 0; k < p.disc.K; ++k)
        for (int i = 0; i < p.disc.element.Np; ++i) {
          double along = 0;
          for (int d = 0; d < p.disc.dim; ++d) along += wave.direction[static_cast<std::size_t>(d)] * (*xyz[d])(i, k);
          lo = std::min(lo, along);
          hi = std::max(hi, along);
        }
      if (comm_) {
        lo = comm_->min(lo);
        hi = comm_->max(hi);
      }
      const double omega = wave.wavenumber * wave_speed_;
      start_ = wave.ramp_periods * 2 * pi / omega + (hi - lo + std::sqrt(diameter)) / wave_speed_;
    }
  } else {
    mode_ = dg::SurfaceDft::Mode::transform;
    start_ = 0;
  }
  last_sample_ = start_;
  dft_ = std::make_unique<dg::SurfaceDft>(solver, surface_, slots, omegas);
  if (!exports.empty()) dft_->set_exports(exports);
  const dg::HuygensSurface& whole = comm_ ? whole_ : surface_;
  log << "[rtdg] far field: Huygens surface of " << whole.faces << " faces (" << whole.size() << " points" << across << "), "
      << omegas.size() << " frequenc" << (omegas.size() == 1 ? "y" : "ies") << ", "
      << (mode_ == dg::SurfaceDft::Mode::time_harmonic ? "time-harmonic from t = " + number(start_) : std::string("pulse transform"))
      << ", a sample every " << ff.every << " step" << (ff.every == 1 ? "" : "s") << "\n";
}

FarFieldRun::~FarFieldRun() = default;

void FarFieldRun::sample(double t, long long step) {
  if (step % problem_.cfg.farfield.every != 0 || t < start_) return;
  const double w = t - last_sample_;
  if (!(w > 0)) return;
  const dg::Point& x0 = problem_.cfg.incident.phase_origin;
  const std::vector<double> g = fluxes::evaluate(signal_.dag, signal_.outputs, [&](const fluxes::InputRef& ref) -> double {
    if (ref.kind == fluxes::InputKind::time) return t;
    if (ref.kind == fluxes::InputKind::coordinate) return x0.at(ref.index);
    throw dg::Error("internal: the incident signal reads an input other than x and t");
  });
  dft_->accumulate(t, w, g.at(0), exchange_ ? exchange_traces() : std::vector<double>{});
  last_sample_ = t;
}

std::vector<double> FarFieldRun::exchange_traces() const {
  // Sent per rank: its points' twins here, C values each; received likewise, in slot order.
  const std::vector<double> values = dft_->exports();  // [C][S]
  const std::size_t C = dft_->components(), S = values.size() / std::max<std::size_t>(1, C);
  std::vector<double> send(values.size());
  for (std::size_t j = 0; j < S; ++j)
    for (std::size_t m = 0; m < C; ++m) send[j * C + m] = values[m * S + j];
  const std::vector<double> arrived = comm_->all_to_all(std::span<const double>(send), std::span<const int>(export_counts_));
  const std::size_t R = arrived.size() / std::max<std::size_t>(1, C);
  std::vector<double> remote(arrived.size());
  for (std::size_t r = 0; r < R; ++r)
    for (std::size_t m = 0; m < C; ++m) remote[m * R + r] = arrived[r * C + m];
  return remote;
}

std::vector<double> FarFieldRun::whole_sums(const std::vector<double>& local, std::size_t blocks) const {
  const std::size_t C = dft_->components(), P = whole_.size();
  const std::vector<double> all = all_gather(*comm_, local);
  std::vector<double> out(blocks * C * P * 2, 0.0);
  // Rank r's part: [blocks][C][P_r][2], its points' serial indices in gathered_points_.
  std::size_t offset = 0, first = 0;
  for (const int count : rank_points_) {
    const auto Pr = static_cast<std::size_t>(count);
    for (std::size_t b = 0; b < blocks * C; ++b)
      for (std::size_t l = 0; l < Pr; ++l) {
        const auto g = static_cast<std::size_t>(gathered_points_[first + l]);
        out[2 * (b * P + g)] = all[offset + 2 * (b * Pr + l)];
        out[2 * (b * P + g) + 1] = all[offset + 2 * (b * Pr + l) + 1];
      }
    offset += blocks * C * Pr * 2;
    first += Pr;
  }
  return out;
}

void FarFieldRun::store(output::Solution& checkpoint) const {
  checkpoint.extras["farfield_device"] = comm_ ? whole_sums(dft_->device_sums(), dft_->omegas().size()) : dft_->device_sums();
  checkpoint.extras["farfield_host"] = dft_->host_sums();
  checkpoint.extras["farfield_clock"] = {last_sample_, start_};
}

void FarFieldRun::restore(const output::Solution& checkpoint) {
  const auto device = checkpoint.extras.find("farfield_device");
  const auto host = checkpoint.extras.find("farfield_host");
  const auto clock = checkpoint.extras.find("farfield_clock");
  if (device == checkpoint.extras.end() || host == checkpoint.extras.end() || clock == checkpoint.extras.end() ||
      clock->second.size() != 2)
    throw std::runtime_error("the checkpoint holds no far-field sums (/extras/farfield_*), so the far-field transform "
                             "cannot continue; restart without [farfield] or start the run again");
  if (!comm_) {
    dft_->set_state(device->second, host->second);
  } else {
    // The serial layout [F][C][P][2]: this rank's points out of it.
    const std::size_t F = dft_->omegas().size(), C = dft_->components(), P = whole_.size();
    const std::vector<double>& all = device->second;
    if (all.size() != F * C * P * 2)
      throw dg::Error("the far-field DFT state holds " + std::to_string(all.size()) + " device sums, this run's transform " +
                      std::to_string(F * C * P * 2) + " (another surface or other frequencies)");
    std::size_t first = 0;
    for (int r = 0; r < comm_->rank(); ++r) first += static_cast<std::size_t>(rank_points_[static_cast<std::size_t>(r)]);
    const std::size_t Pl = surface_.size();
    std::vector<double> mine(F * C * Pl * 2);
    for (std::size_t b = 0; b < F * C; ++b)
      for (std::size_t l = 0; l < Pl; ++l) {
        const auto g = static_cast<std::size_t>(gathered_points_[first + l]);
        mine[2 * (b * Pl + l)] = all[2 * (b * P + g)];
        mine[2 * (b * Pl + l) + 1] = all[2 * (b * P + g) + 1];
      }
    dft_->set_state(mine, host->second);
  }
  last_sample_ = clock->second[0];
  start_ = clock->second[1];
}

void FarFieldRun::write(const fs::path& dir, double t, long long step,
                        const std::function<void(const std::string&)>& claim_path) const {
  if (dft_->samples() == 0) return;
  const bool root = !comm_ || comm_->rank() == 0;
  // The surface fields of each frequency, before anything is written: a parallel run's from the
  // whole surface's sums (every rank takes part; rank 0 uses them).
  std::vector<dg::SurfaceFields> surface_fields;
  for (std::size_t f = 0; f < dft_->omegas().size(); ++f) {
    const double A = problem_.cfg.incident.amplitude;
    if (!comm_) surface_fields.push_back(dft_->fields(f, mode_, A));
    else if (std::vector<double> sums = whole_sums(dft_->frequency_sums(f), 1); root)
      surface_fields.push_back(dft_->fields(f, mode_, A, sums));
  }
  if (!root) return;
  const dg::HuygensSurface& surface = comm_ ? whole_ : surface_;
  const config::RunConfig& cfg = problem_.cfg;
  const fs::path out = dir / "farfield";
  auto claim = [&](const std::string& relative) {
    if (claim_path) claim_path(relative);
  };
  claim("farfield/");
  fs::create_directories(out);
  // Every file, claimed before the first is written.
  for (std::size_t f = 0; f < dft_->omegas().size(); ++f) {
    const std::string stem = "farfield/f" + std::to_string(f);
    if (surface.dim == 2) {
      claim(stem + "_width.csv");
      continue;
    }
    claim(stem + "_eplane.csv");
    claim(stem + "_hplane.csv");
    if (cfg.farfield.grid.size() == 2) claim(stem + "_grid.csv");
  }
  claim("farfield/frequencies.csv");
  claim("farfield/farfield.h5");
  const int dim = surface.dim;
  const dg::Point d = cfg.incident.direction, p = cfg.incident.polarization;
  const dg::Point h = cross(d, p);
  const dg::Point& x0 = cfg.incident.phase_origin;
  std::vector<output::NamedArray> arrays;
  std::vector<std::vector<double>> frequency_rows;
  for (std::size_t f = 0; f < dft_->omegas().size(); ++f) {
    const double omega = dft_->omegas()[f], k = omega / wave_speed_;
    const std::string stem = "f" + std::to_string(f);
    const dg::SurfaceFields& fields = surface_fields[f];
    frequency_rows.push_back({static_cast<double>(f), omega / (2 * pi), omega, k, static_cast<double>(dft_->samples()),
                              dft_->window(), std::abs(dft_->incident_spectrum(f))});
    const std::vector<std::pair<std::string, double>> attrs = {{"frequency", omega / (2 * pi)}, {"omega", omega}, {"wavenumber", k}};
    auto cut = [&](const dg::Point& u, const dg::Point& v, int count, double span_deg) {
      std::vector<double> angles;
      std::vector<dg::Point> dirs;
      for (int i = 0; i < count; ++i) {
        const double a = span_deg * i / (count - 1);
        angles.push_back(a);
        dirs.push_back(dg::direction_in_plane(u, v, a * pi / 180));
      }
      return std::pair(angles, dirs);
    };
    if (dim == 2) {
      const int n = cfg.farfield.angles > 1 ? cfg.farfield.angles : 361;
      const auto [angles, dirs] = cut(d, dg::Point{-d[1], d[0], 0}, n, 360.0);
      const std::vector<dg::Complex> u = dg::far_field_2d_tm(surface, fields, k, omega * mu_, x0, dirs);
      std::vector<std::vector<double>> rows;
      std::vector<double> width, re, im;
      for (std::size_t i = 0; i < dirs.size(); ++i) {
        const double sigma = 2 * pi * std::norm(u[i]);
        rows.push_back({angles[i], dirs[i][0], dirs[i][1], sigma, db(sigma), u[i].real(), u[i].imag()});
        width.push_back(sigma);
        re.push_back(u[i].real());
        im.push_back(u[i].imag());
      }
      write_csv(out / (stem + "_width.csv"), "angle_deg,x,y,width,width_db,re,im", rows);
      arrays.push_back({stem, "angle_deg", {angles.size()}, angles, attrs});
      arrays.push_back({stem, "width", {width.size()}, width, attrs});
      arrays.push_back({stem, "far_field_re", {re.size()}, re, attrs});
      arrays.push_back({stem, "far_field_im", {im.size()}, im, attrs});
      continue;
    }
    const int n = cfg.farfield.angles > 1 ? cfg.farfield.angles : 181;
    for (const auto& [plane, v] : {std::pair<std::string, dg::Point>{"eplane", p}, {"hplane", h}}) {
      const auto [angles, dirs] = cut(d, v, n, 180.0);
      const auto far = dg::far_field_3d(surface, fields, k, impedance_, x0, dirs);
      std::vector<std::vector<double>> rows;
      std::vector<double> rcs;
      for (std::size_t i = 0; i < dirs.size(); ++i) {
        const double sigma = 4 * pi * (std::norm(far[i][0]) + std::norm(far[i][1]) + std::norm(far[i][2]));
        rows.push_back({angles[i], dirs[i][0], dirs[i][1], dirs[i][2], sigma, db(sigma)});
        rcs.push_back(sigma);
      }
      write_csv(out / (stem + "_" + plane + ".csv"), "angle_deg,x,y,z,rcs,rcs_dbsm", rows);
      arrays.push_back({stem, plane + "_angle_deg", {angles.size()}, angles, attrs});
      arrays.push_back({stem, plane + "_rcs", {rcs.size()}, rcs, attrs});
    }
    if (cfg.farfield.grid.size() == 2) {
      const int nt = cfg.farfield.grid[0], np = cfg.farfield.grid[1];
      std::vector<dg::Point> dirs;
      std::vector<std::vector<double>> rows;
      for (int i = 0; i < nt; ++i)
        for (int j = 0; j < np; ++j) {
          const double th = pi * i / (nt - 1), ph = 2 * pi * j / np;
          dirs.push_back({std::sin(th) * std::cos(ph), std::sin(th) * std::sin(ph), std::cos(th)});
        }
      const auto far = dg::far_field_3d(surface, fields, k, impedance_, x0, dirs);
      std::vector<double> rcs;
      for (std::size_t m = 0; m < dirs.size(); ++m) {
        const double sigma = 4 * pi * (std::norm(far[m][0]) + std::norm(far[m][1]) + std::norm(far[m][2]));
        const auto i = static_cast<int>(m) / np, j = static_cast<int>(m) % np;
        rows.push_back({180.0 * i / (nt - 1), 360.0 * j / np, sigma, db(sigma)});
        rcs.push_back(sigma);
      }
      write_csv(out / (stem + "_grid.csv"), "theta_deg,phi_deg,rcs,rcs_dbsm", rows);
      arrays.push_back({stem, "grid_rcs", {static_cast<std::size_t>(nt), static_cast<std::size_t>(np)}, rcs, attrs});
    }
  }
  write_csv(out / "frequencies.csv", "index,frequency,omega,wavenumber,samples,window,incident_spectrum", frequency_rows);
  output::write_arrays(out / "farfield.h5", "rtdg-farfield",
                       {{"time", number(t)},
                        {"step", std::to_string(step)},
                        {"mode", mode_ == dg::SurfaceDft::Mode::time_harmonic ? "time_harmonic" : "transform"},
                        {"convention", "exp(-i omega t); phase origin " + number(x0[0]) + " " + number(x0[1]) + " " + number(x0[2])},
                        {"quantity", dim == 2 ? "2D TM scattering width (length)" : "bistatic RCS (area)"}},
                       arrays);
}

}  // namespace rtdg::runner
