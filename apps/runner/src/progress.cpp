#include "progress.hpp"

#include <cstdio>
#include <ostream>

namespace rtdg::runner {

Progress::Progress(std::ostream& out, double final_time, int every, std::size_t dofs)
    : out_(out), final_time_(final_time), every_(every), dofs_(dofs) {}

void Progress::start(double t, long long step) {
  start_time_ = last_line_ = Clock::now();
  start_t_ = t;
  start_step_ = step;
}

bool Progress::due(long long step) {
  if (every_ > 0) return step % every_ == 0;
  // Checking the clock every step is cheap next to a step; a line at most once a second.
  return Clock::now() - last_line_ >= std::chrono::seconds(1);
}

void Progress::line(double t, long long step) {
  const auto now = Clock::now();
  last_line_ = now;
  const double seconds = std::chrono::duration<double>(now - start_time_).count();
  const long long steps = step - start_step_;
  const double per_step = steps > 0 ? seconds / static_cast<double>(steps) : 0;
  const double rate = seconds > 0 ? static_cast<double>(dofs_) * static_cast<double>(steps) / seconds : 0;
  const double done = t - start_t_;
  const double eta = done > 0 ? seconds * (final_time_ - t) / done : 0;
  char text[256];
  std::snprintf(text, sizeof text, "[rtdg] t = %.6g / %.6g (%5.1f%%)  step %lld  %.3g ms/step  %.3g DOF/s  ETA %.0f s\n", t,
                final_time_, final_time_ > 0 ? 100.0 * t / final_time_ : 100.0, step, per_step * 1e3, rate, eta);
  out_ << text << std::flush;
  printed_ = true;
}

void Progress::finish() { out_ << std::flush; }

}  // namespace rtdg::runner
