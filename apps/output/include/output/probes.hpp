// Probes: field values at fixed points, interpolated with the element's polynomial and
// appended to one CSV file per probe as the run goes.
//
// <dir>/<probe name>.csv:
//   time,step,E.x@0,E.y@0,E.x@1,E.y@1
//   0,0,0.125,-0.5,0.25,1
//   ...
// Columns: for each point (in the spec's order, numbered from 0), each of the probe's fields.
// Numbers are written with std::to_chars' shortest round-trip form, so they read back as the
// exact doubles. Each row reaches the file with one write(2) as it is recorded: a killed run
// loses no recorded row.
#pragma once

#include <dg/discretization.hpp>
#include <mesh/mesh.hpp>

#include <array>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace rtdg::output {

struct ProbeSpec {
  std::string name;                             // also the CSV file's name: <name>.csv
  std::vector<std::array<double, 3>> points;    // physical points; z = 0 in 2D
  std::vector<std::string> fields;              // component names; empty = all components
  long long every = 1;                          // record at steps that are multiples of this
};

// Where a probe point sits: the element containing it and its reference coordinates there.
struct ProbePoint {
  std::array<double, 3> position{};
  int element = -1;
  std::array<double, 3> reference{};  // r, s(, t); unused entries 0
  std::vector<double> weights;        // Np: value = sum_i weights[i] * u(node i of element)
  double depth = 0;                   // the smallest barycentric coordinate (>= -kProbeTolerance)
};

// A parallel run's rank locates the points in its part of the mesh (docs/parallel.md): a point
// outside the part is not an error but not found (element = -1), ties go to the lowest number
// of the whole mesh (element_global: the part's elements' numbers there), and the ranks then
// agree which one owns each point (the deepest, Probes::release on the others).
struct ProbePart {
  std::vector<int> element_global;
};

// "probe 'p': point 2 (0.5, 0, 0) is outside the mesh (no element contains it; the mesh spans
// [lo, hi] x ...)", from the whole mesh's bounding box.
std::string probe_outside_text(const std::string& probe, std::size_t index, const std::array<double, 3>& point, int dim,
                               const std::array<double, 3>& lo, const std::array<double, 3>& hi);

// Relative tolerance on barycentric coordinates when locating points: a point within it of an
// element counts as inside, so points on faces and vertices are found.
inline constexpr double kProbeTolerance = 1e-10;

class Probes {
public:
  // Locates every point and builds its interpolation row (dg::vandermonde at the reference
  // coordinates times invV). A point inside several elements within tolerance (on a shared
  // face) belongs to the one it is deepest inside, the lowest element number on ties.
  // `components` are the solution's component names, in the order of its values. Throws
  // output::Error naming the probe: an empty, duplicate or non-file name, every < 1, no points,
  // a point outside the mesh (with its coordinates), an unknown field (listing the valid ones).
  // With `part`, the mesh is a rank's part of the whole one (ProbePart).
  Probes(const dg::Discretization& discretization, const mesh::Mesh& mesh, std::vector<std::string> components,
         std::vector<ProbeSpec> specs, const ProbePart* part = nullptr);
  ~Probes();
  Probes(Probes&&) noexcept;
  Probes& operator=(Probes&&) noexcept;
  Probes(const Probes&) = delete;
  Probes& operator=(const Probes&) = delete;

  // Opens <dir>/<name>.csv for every probe (creating dir). Without restart_time each file is
  // started afresh with its header. With restart_time (a run restarted from a checkpoint at
  // that time), an existing file keeps its rows up to that time, the first row with a later
  // time and all after it are cut off, and new rows are appended; a missing file is started
  // afresh. A file whose header differs from this probe's is an error (the probe changed).
  void open(const std::filesystem::path& dir, std::optional<double> restart_time = std::nullopt);

  // Whether any probe records at this step (step % every == 0).
  bool due(long long step) const;

  // Appends a row to the file of every probe due at `step`. values: [component][K][Np] as in
  // Solution::values. A step at or before the last row already in a probe's file is skipped
  // (a restarted run recording its first step again). Throws output::Error on a wrong size, a
  // failed write, or when open() was not called.
  void record(std::span<const double> values, double time, long long step);

  // The same with the rows given (a parallel run's rank 0: the values of every point,
  // evaluated on the ranks owning them), rows[probe] as evaluate returns them.
  void record_rows(const std::vector<std::vector<double>>& rows, double time, long long step);

  // The probe's row values (the CSV columns after time and step) for these values.
  std::vector<double> evaluate(std::size_t probe, std::span<const double> values) const;
  // The values of one point's fields (a part of the row); its element must be found here.
  std::vector<double> evaluate_point(std::size_t probe, std::size_t point, std::span<const double> values) const;
  // A parallel run: another rank owns this point (its element becomes -1 here).
  void release(std::size_t probe, std::size_t point);
  std::size_t fields(std::size_t probe) const;  // the number of fields per point

  std::size_t size() const;
  const ProbeSpec& spec(std::size_t probe) const;
  const std::vector<ProbePoint>& points(std::size_t probe) const;
  // The CSV header line (no newline) and the file (after open()).
  std::string header(std::size_t probe) const;
  std::filesystem::path file(std::size_t probe) const;

private:
  struct Probe;
  int K_ = 0;
  int Np_ = 0;
  std::vector<std::string> components_;
  std::vector<Probe> probes_;
  bool open_ = false;
};

}  // namespace rtdg::output
