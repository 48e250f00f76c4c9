// A process-wide request to stop tuning early, e.g. from a SIGINT/SIGTERM handler (setting it
// is a store to a lock-free atomic, safe in a signal handler). A Tuner that sees it finishes
// the variant it is timing, drops the variants not yet compiled or timed with status
// "stopped" (the default point is compiled, even with stop_compiling set, and timed first, so a
// tuning stopped this way still has a winner, and what was measured is kept) and returns. Cleared by whoever set it once the stop is handled. Compiles
// have their own request, rtcg::stop_compiling() below.
#pragma once

#include "rtcg/error.hpp"

#include <atomic>

namespace rtcg::tune {

std::atomic<bool>& stop_tuning();

}  // namespace rtcg::tune

namespace rtcg {

// A process-wide request to abandon the compile in progress, e.g. from a SIGINT/SIGTERM handler
// while a run is set up (a store to a lock-free atomic, safe in a signal handler). Both
// compilers poll it every 10 ms and, when it is set, throw rtcg::Interrupted within about 20 ms;
// nothing is cached. The host compiler runs in a process group of its own, so a terminal's
// Ctrl-C reaches rtcg's process only and the compiler is never killed from outside half-way;
// on a stop rtcg kills it. NVRTC runs in this process, on a thread of its own while the caller
// waits: on a stop the caller stops waiting and the thread, which owns its inputs, is cancelled
// at NVRTC's next check (seconds later at most) and drops its result (see
// abandoned_compiles_running). Unset, a compile runs to its end whatever signals arrive, so a
// run that was stepping can stop at its next step with a checkpoint. Cleared by whoever set it.
std::atomic<bool>& stop_compiling();

// What an abandoned compile throws.
class Interrupted : public Error {
public:
  using Error::Error;
};

// NVRTC compiles abandoned on a stop request whose thread is still in NVRTC. While one is, a
// process that exits ends at once with its status (stdio flushed) rather than running its
// exit-time destructors, NVRTC's among them, under the compile.
int abandoned_compiles_running();

}  // namespace rtcg
