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

// A process-wide request to abandon the host compile in progress, e.g. from a SIGINT/SIGTERM
// handler while a run is set up (a store to a lock-free atomic, safe in a signal handler). The
// host compiler runs in a process group of its own, so a terminal's Ctrl-C reaches rtcg's
// process only and the compiler is never killed from outside half-way; rtcg polls it and, when
// this is set, kills it and throws rtcg::Interrupted (within about 20 ms; nothing is cached).
// Unset, a compile runs to its end whatever signals arrive, so a run that was stepping can stop
// at its next step with a checkpoint. NVRTC compiles in this process and cannot be stopped
// half-way: they finish, and the caller sees the request afterwards. Cleared by whoever set it.
std::atomic<bool>& stop_compiling();

// What an abandoned compile throws.
class Interrupted : public Error {
public:
  using Error::Error;
};

}  // namespace rtcg
