// Linked into every test executable: tests read and write a tuning database in the build
// folder, never the user's (an RTDG_TUNING_DB already set is kept).
#include <cstdlib>

namespace {

const bool tuning_db_set = [] {
  ::setenv("RTDG_TUNING_DB", RTDG_TEST_TUNING_DB, 0);
  return true;
}();

}  // namespace
