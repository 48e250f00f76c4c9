// The progress line of a run: simulated time, step, rate and an estimate of the time left,
// printed every `every` steps, or about once a second when every = 0.
#pragma once

#include <chrono>
#include <cstddef>
#include <iosfwd>

namespace rtdg::runner {

class Progress {
public:
  Progress(std::ostream& out, double final_time, int every, std::size_t dofs);
  void start(double t, long long step);
  // Whether a line is due after this step (checked every step; cheap).
  bool due(long long step);
  void line(double t, long long step);
  void finish();

private:
  using Clock = std::chrono::steady_clock;
  std::ostream& out_;
  double final_time_;
  int every_;
  std::size_t dofs_;
  Clock::time_point start_time_, last_line_;
  double start_t_ = 0;
  long long start_step_ = 0;
  bool printed_ = false;
};

}  // namespace rtdg::runner
