// ParaView .pvd collections: the time series of a run's VTU snapshots.
//
//   <?xml version="1.0"?>
//   <VTKFile type="Collection" version="0.1" byte_order="LittleEndian">
//     <Collection>
//       <DataSet timestep="0.25" group="" part="0" file="snapshots/step_000100.vtu"/>
//       ...
//
// File paths are relative to the .pvd's folder; times are written with round-trip precision.
// Needs no VTK (the VTU files do).
#pragma once

#include <filesystem>
#include <vector>

namespace rtdg::output {

class PvdSeries {
public:
  struct Entry {
    double time = 0;
    std::filesystem::path file;  // as written: relative to the .pvd's folder (or absolute)
  };

  // The collection at `pvd`. An existing file (a restarted run) is read: its entries stay
  // until add() brings a time at or before theirs. Nothing is written until add(). Throws
  // output::Error naming the file when an existing one cannot be read or parsed.
  explicit PvdSeries(std::filesystem::path pvd);

  // Adds the snapshot `vtu` (a path as the caller sees it; stored relative to the .pvd's
  // folder) at `time`, dropping entries with time >= `time` (what a restarted run is about to
  // write again), and rewrites the .pvd atomically.
  void add(double time, const std::filesystem::path& vtu);

  // Drops the entries with time > `time` (a run restarted from an earlier point deleted their
  // snapshots) and rewrites the .pvd when any was dropped.
  void keep_until(double time);

  const std::filesystem::path& path() const { return pvd_; }
  const std::vector<Entry>& entries() const { return entries_; }

private:
  void write() const;

  std::filesystem::path pvd_;
  std::vector<Entry> entries_;
};

}  // namespace rtdg::output
