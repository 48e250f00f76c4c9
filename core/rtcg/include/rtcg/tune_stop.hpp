// A process-wide request to stop tuning early, e.g. from a SIGINT/SIGTERM handler (setting it
// is a store to a lock-free atomic, safe in a signal handler). A Tuner that sees it finishes
// the variant it is timing, drops the variants not yet timed with status "stopped" (the
// default point is timed first, so a tuning stopped this way still has a winner, and what was
// measured is kept) and returns. Cleared by whoever set it once the stop is handled.
#pragma once

#include <atomic>

namespace rtcg::tune {

std::atomic<bool>& stop_tuning();

}  // namespace rtcg::tune
