// Probes: point location, interpolation rows and CSV files (probes.hpp).
#include "output/probes.hpp"

#include "output/error.hpp"
#include "support.hpp"

#include <dg/basis.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <limits>
#include <set>
#include <system_error>

namespace rtdg::output {

using detail::fail;
using detail::ix;

struct Probes::Probe {
  ProbeSpec spec;
  std::vector<int> fields;  // component indices
  std::vector<ProbePoint> points;
  std::filesystem::path file;
  int fd = -1;
  std::optional<long long> last_step;  // of the last row in the file
};

namespace {

std::string errno_text(int error) { return std::generic_category().message(error); }

std::string probe_source(const std::string& name) { return "probe '" + name + "'"; }

// Barycentric coordinates (dim + 1) of p in element k: lambda_0 = 1 - sum of the others,
// lambda_c (c >= 1) the coordinate of vertex c.
std::array<double, 4> barycentric(const mesh::Mesh& mesh, int k, const std::array<double, 3>& p) {
  const int dim = mesh.dim;
  const auto corners = mesh::element_corners(mesh, k);
  Eigen::Matrix3d A = Eigen::Matrix3d::Identity();
  Eigen::Vector3d b = Eigen::Vector3d::Zero();
  for (int r = 0; r < dim; ++r) {
    for (int c = 0; c < dim; ++c) A(r, c) = corners[ix(c + 1)][ix(r)] - corners[0][ix(r)];
    b(r) = p[ix(r)] - corners[0][ix(r)];
  }
  const Eigen::Vector3d l = A.partialPivLu().solve(b);
  std::array<double, 4> lambda{};
  double sum = 0;
  for (int c = 0; c < dim; ++c) {
    lambda[ix(c + 1)] = l(c);
    sum += l(c);
  }
  lambda[0] = 1.0 - sum;
  return lambda;
}

std::string describe_bounds(int dim, const std::array<double, 3>& lo, const std::array<double, 3>& hi) {
  std::string text;
  for (int d = 0; d < dim; ++d) {
    text += (d > 0 ? " x " : "") + std::string("[") + detail::format_double(lo[ix(d)]) + ", " +
            detail::format_double(hi[ix(d)]) + "]";
  }
  return text;
}

std::string point_text(const std::string& probe, std::size_t index, const std::array<double, 3>& p) {
  return probe_source(probe) + ": point " + std::to_string(index) + " " + detail::format_point(p.data(), 3);
}

// `part`: a rank's part of the mesh; a point outside it comes back with element -1.

// Curved elements (dg::Discretization::curved): the reference point of p under the element's
// isoparametric map, by Newton's method from `r` (the straight simplex's answer, or the
// centroid); whether it converged inside the element (within kProbeTolerance). The map is
// x(r) = sum_i x_i l_i(r) with the nodal basis at the element's order.
bool invert_curved_map(const dg::Discretization& d, int k, const std::array<double, 3>& p, std::array<double, 3>& r) {
  const dg::Element& e = d.element;
  const int dim = d.dim;
  const Eigen::MatrixXd* X[3] = {&d.x, &d.y, &d.z};
  bool converged = false;
  for (int it = 0; it < 30 && !converged; ++it) {
    Eigen::MatrixXd point(1, dim);
    for (int a = 0; a < dim; ++a) point(0, a) = r[ix(a)];
    const Eigen::MatrixXd l = dg::vandermonde(e.shape, e.N, point) * e.invV;
    const std::vector<Eigen::MatrixXd> dl = dg::grad_vandermonde(e.shape, e.N, point);
    Eigen::Matrix3d A = Eigen::Matrix3d::Identity();
    Eigen::Vector3d residual = Eigen::Vector3d::Zero();
    for (int c = 0; c < dim; ++c) {
      residual(c) = p[ix(c)] - (l * X[c]->col(k))(0, 0);
      for (int a = 0; a < dim; ++a) A(c, a) = (dl[ix(a)] * e.invV * X[c]->col(k))(0, 0);
    }
    const Eigen::Vector3d step = A.partialPivLu().solve(residual);
    for (int a = 0; a < dim; ++a) r[ix(a)] += step(a);
    converged = step.head(dim).norm() < 1e-13;
  }
  if (!converged) return false;
  double sum = 0;
  for (int a = 0; a < dim; ++a) {
    if (r[ix(a)] < -1.0 - 2 * kProbeTolerance) return false;
    sum += r[ix(a)];
  }
  return sum <= 2.0 - dim + 2 * kProbeTolerance;  // r + s <= 0 (2D), r + s + t <= -1 (3D)
}

ProbePoint locate(const dg::Discretization& discretization, const mesh::Mesh& mesh, const std::string& probe,
                  std::size_t index, const std::array<double, 3>& p, const ProbePart* part) {
  const int dim = mesh.dim;
  const std::string where = point_text(probe, index, p);
  for (double c : p) {
    if (!std::isfinite(c)) throw Error(where + " has a coordinate that is not a finite number");
  }
  if (dim == 2 && p[2] != 0.0) throw Error(where + " has z != 0 but the mesh is 2D (give z = 0 or two coordinates)");
  int best = -1;
  double best_depth = -std::numeric_limits<double>::infinity();
  std::array<double, 4> best_lambda{};
  auto number = [&](int k) { return part ? part->element_global[ix(k)] : k; };
  for (int k = 0; k < mesh.num_elements(); ++k) {
    const std::array<double, 4> lambda = barycentric(mesh, k, p);
    double depth = std::numeric_limits<double>::infinity();
    for (int c = 0; c <= dim; ++c) depth = std::min(depth, lambda[ix(c)]);
    // Strictly deeper wins, so ties go to the lowest element number (of the whole mesh).
    if (depth >= -kProbeTolerance && (depth > best_depth || (best >= 0 && depth == best_depth && number(k) < number(best)))) {
      best = k;
      best_depth = depth;
      best_lambda = lambda;
    }
  }
  ProbePoint point;
  point.position = p;
  for (int d = 0; d < dim; ++d) point.reference[ix(d)] = 2.0 * best_lambda[ix(d + 1)] - 1.0;
  const auto& curved = discretization.curved;
  if (best >= 0 && std::binary_search(curved.begin(), curved.end(), best)) {
    // In a curved element the straight simplex's coordinates are a first guess.
    if (!invert_curved_map(discretization, best, p, point.reference)) best = -1;
  }
  if (best < 0) {
    // A point between a curved face and its chord lies in no straight simplex.
    for (int k : curved) {
      std::array<double, 3> r{};
      for (int d = 0; d < dim; ++d) r[ix(d)] = -1.0 + 2.0 / (dim + 1);
      if (invert_curved_map(discretization, k, p, r)) {
        best = k;
        best_depth = 0;  // inside the curved element (outside its chord): one element holds it
        point.reference = r;
        break;
      }
    }
  }
  if (best < 0) {
    if (part) return point;
    std::array<double, 3> lo{}, hi{};
    lo.fill(std::numeric_limits<double>::infinity());
    hi.fill(-std::numeric_limits<double>::infinity());
    for (const auto& v : mesh.vertices) {
      for (std::size_t d = 0; d < 3; ++d) {
        lo[d] = std::min(lo[d], v[d]);
        hi[d] = std::max(hi[d], v[d]);
      }
    }
    throw Error(probe_outside_text(probe, index, p, dim, lo, hi));
  }
  point.element = best;
  point.depth = best_depth;
  Eigen::MatrixXd reference(1, dim);
  for (int d = 0; d < dim; ++d) reference(0, d) = point.reference[ix(d)];
  const dg::Element& element = discretization.element;
  const Eigen::MatrixXd row = dg::vandermonde(element.shape, element.N, reference) * element.invV;
  point.weights.assign(row.data(), row.data() + row.size());
  return point;
}

bool valid_file_name(const std::string& name) {
  return !name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos &&
         name.find('\0') == std::string::npos;
}

void write_all(int fd, const std::string& text, const std::filesystem::path& file) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail(file.string(), "cannot write: " + errno_text(errno));
    done += static_cast<std::size_t>(n);
  }
}

}  // namespace

std::string probe_outside_text(const std::string& probe, std::size_t index, const std::array<double, 3>& point, int dim,
                               const std::array<double, 3>& lo, const std::array<double, 3>& hi) {
  return point_text(probe, index, point) + " is outside the mesh (no element contains it; the mesh spans " +
         describe_bounds(dim, lo, hi) + ")";
}

Probes::Probes(const dg::Discretization& discretization, const mesh::Mesh& mesh, std::vector<std::string> components,
               std::vector<ProbeSpec> specs, const ProbePart* part)
    : K_(discretization.K), Np_(discretization.element.Np), components_(std::move(components)) {
  if (mesh.num_elements() != discretization.K || mesh.dim != discretization.dim) {
    throw Error("probes: the mesh (" + std::to_string(mesh.num_elements()) + " elements, " + std::to_string(mesh.dim) +
                "D) is not the discretized one (" + std::to_string(discretization.K) + " elements, " +
                std::to_string(discretization.dim) + "D)");
  }
  std::set<std::string> names;
  for (ProbeSpec& spec : specs) {
    const std::string source = probe_source(spec.name);
    if (!valid_file_name(spec.name)) {
      fail(source, "the name must be usable as a file name (non-empty, no '/', not '.' or '..')");
    }
    if (!names.insert(spec.name).second) fail(source, "two probes have this name");
    if (spec.every < 1) fail(source, "every = " + std::to_string(spec.every) + "; it must be at least 1");
    if (spec.points.empty()) fail(source, "has no points");
    Probe probe;
    if (spec.fields.empty()) spec.fields = components_;
    for (const std::string& field : spec.fields) {
      const auto it = std::find(components_.begin(), components_.end(), field);
      if (it == components_.end()) {
        fail(source, "unknown field '" + field + "'; the fields are " + detail::format_name_list(components_));
      }
      probe.fields.push_back(static_cast<int>(it - components_.begin()));
    }
    for (std::size_t i = 0; i < spec.points.size(); ++i) {
      probe.points.push_back(locate(discretization, mesh, spec.name, i, spec.points[i], part));
    }
    probe.spec = std::move(spec);
    probes_.push_back(std::move(probe));
  }
}

Probes::~Probes() {
  for (Probe& probe : probes_) {
    if (probe.fd >= 0) ::close(probe.fd);
  }
}

Probes::Probes(Probes&& other) noexcept
    : K_(other.K_), Np_(other.Np_), components_(std::move(other.components_)), probes_(std::move(other.probes_)),
      open_(other.open_) {
  other.probes_.clear();
  other.open_ = false;
}

Probes& Probes::operator=(Probes&& other) noexcept {
  if (this != &other) {
    for (Probe& probe : probes_) {
      if (probe.fd >= 0) ::close(probe.fd);
    }
    K_ = other.K_;
    Np_ = other.Np_;
    components_ = std::move(other.components_);
    probes_ = std::move(other.probes_);
    open_ = other.open_;
    other.probes_.clear();
    other.open_ = false;
  }
  return *this;
}

std::size_t Probes::size() const { return probes_.size(); }
const ProbeSpec& Probes::spec(std::size_t probe) const { return probes_.at(probe).spec; }
const std::vector<ProbePoint>& Probes::points(std::size_t probe) const { return probes_.at(probe).points; }
std::filesystem::path Probes::file(std::size_t probe) const { return probes_.at(probe).file; }

std::string Probes::header(std::size_t probe) const {
  const Probe& p = probes_.at(probe);
  std::string text = "time,step";
  for (std::size_t i = 0; i < p.points.size(); ++i) {
    for (int c : p.fields) text += "," + components_[ix(c)] + "@" + std::to_string(i);
  }
  return text;
}

void Probes::open(const std::filesystem::path& dir, std::optional<double> restart_time) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) fail(dir.string(), "cannot create the probe folder: " + error.message());
  for (std::size_t n = 0; n < probes_.size(); ++n) {
    Probe& probe = probes_[n];
    if (probe.fd >= 0) ::close(probe.fd);
    probe.fd = -1;
    probe.last_step.reset();
    probe.file = dir / (probe.spec.name + ".csv");
    const std::string source = probe.file.string();
    const std::string head = header(n) + "\n";
    std::string contents = head;
    if (restart_time && std::filesystem::exists(probe.file, error)) {
      const std::string old = detail::read_file(probe.file);
      const std::size_t first = old.find('\n');
      if (first == std::string::npos || old.compare(0, first + 1, head) != 0) {
        fail(source, "its header '" + old.substr(0, std::min(first, old.size())) + "' is not this run's probe's ('" +
                         header(n) + "'): the probe changed; move the file away to start it afresh");
      }
      // Complete rows up to the restart time; a row cut short by a killed run ends the file.
      std::size_t at = first + 1;
      for (int line = 2;; ++line) {
        const std::size_t end = old.find('\n', at);
        if (end == std::string::npos) break;
        const std::string_view row(old.data() + at, end - at);
        const std::size_t comma1 = row.find(',');
        const std::size_t comma2 = comma1 == std::string_view::npos ? comma1 : row.find(',', comma1 + 1);
        const std::optional<double> time =
            comma1 == std::string_view::npos ? std::nullopt : detail::parse_double(row.substr(0, comma1));
        const std::optional<long long> step =
            comma2 == std::string_view::npos ? std::nullopt : detail::parse_integer(row.substr(comma1 + 1, comma2 - comma1 - 1));
        if (!time || !step) fail(source + ":" + std::to_string(line), "a row without a time and a step: " + std::string(row));
        if (*time > *restart_time) break;
        probe.last_step = *step;
        at = end + 1;
      }
      if (at != old.size()) {
        contents = old.substr(0, at);
      } else {
        contents.clear();  // nothing to cut
      }
      if (!contents.empty()) detail::write_file_atomically(probe.file, contents);
      probe.fd = ::open(probe.file.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
    } else {
      detail::write_file_atomically(probe.file, head);
      probe.fd = ::open(probe.file.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
    }
    if (probe.fd < 0) fail(source, "cannot open for appending: " + errno_text(errno));
  }
  open_ = true;
}

bool Probes::due(long long step) const {
  return std::any_of(probes_.begin(), probes_.end(), [&](const Probe& p) { return step % p.spec.every == 0; });
}

std::vector<double> Probes::evaluate(std::size_t probe, std::span<const double> values) const {
  const Probe& p = probes_.at(probe);
  const std::size_t nodes = ix(K_) * ix(Np_);
  if (values.size() != components_.size() * nodes) {
    throw Error("probes: the values have " + std::to_string(values.size()) + " entries, expected " +
                std::to_string(components_.size()) + " components x K = " + std::to_string(K_) + " x Np = " +
                std::to_string(Np_));
  }
  std::vector<double> row;
  row.reserve(p.points.size() * p.fields.size());
  for (const ProbePoint& point : p.points) {
    for (int c : p.fields) {
      const double* u = values.data() + ix(c) * nodes + ix(point.element) * ix(Np_);
      double sum = 0;
      for (std::size_t i = 0; i < point.weights.size(); ++i) sum += point.weights[i] * u[i];
      row.push_back(sum);
    }
  }
  return row;
}

std::vector<double> Probes::evaluate_point(std::size_t probe, std::size_t point, std::span<const double> values) const {
  const Probe& p = probes_.at(probe);
  const ProbePoint& at = p.points.at(point);
  const std::size_t nodes = ix(K_) * ix(Np_);
  if (at.element < 0) throw Error("probes: point " + std::to_string(point) + " of probe '" + p.spec.name + "' is not here");
  if (values.size() != components_.size() * nodes)
    throw Error("probes: the values have " + std::to_string(values.size()) + " entries, expected " +
                std::to_string(components_.size() * nodes));
  std::vector<double> out;
  for (int c : p.fields) {
    const double* u = values.data() + ix(c) * nodes + ix(at.element) * ix(Np_);
    double sum = 0;
    for (std::size_t i = 0; i < at.weights.size(); ++i) sum += at.weights[i] * u[i];
    out.push_back(sum);
  }
  return out;
}

void Probes::release(std::size_t probe, std::size_t point) {
  ProbePoint& at = probes_.at(probe).points.at(point);
  at.element = -1;
  at.weights.clear();
}

std::size_t Probes::fields(std::size_t probe) const { return probes_.at(probe).fields.size(); }

void Probes::record(std::span<const double> values, double time, long long step) {
  std::vector<std::vector<double>> rows;
  for (std::size_t n = 0; n < probes_.size(); ++n)
    rows.push_back(step % probes_[n].spec.every == 0 ? evaluate(n, values) : std::vector<double>{});
  record_rows(rows, time, step);
}

void Probes::record_rows(const std::vector<std::vector<double>>& rows, double time, long long step) {
  if (!open_) throw Error("probes: record() before open(): the probe files are not open");
  if (rows.size() != probes_.size())
    throw Error("probes: " + std::to_string(rows.size()) + " rows for " + std::to_string(probes_.size()) + " probes");
  for (std::size_t n = 0; n < probes_.size(); ++n) {
    Probe& probe = probes_[n];
    if (step % probe.spec.every != 0 || (probe.last_step && step <= *probe.last_step)) continue;
    if (rows[n].size() != probe.points.size() * probe.fields.size())
      throw Error("probes: the row of probe '" + probe.spec.name + "' has " + std::to_string(rows[n].size()) +
                  " values, expected " + std::to_string(probe.points.size() * probe.fields.size()));
    std::string line = detail::format_double(time) + "," + std::to_string(step);
    for (double value : rows[n]) line += "," + detail::format_double(value);
    line += "\n";
    write_all(probe.fd, line, probe.file);
    probe.last_step = step;
  }
}

}  // namespace rtdg::output
