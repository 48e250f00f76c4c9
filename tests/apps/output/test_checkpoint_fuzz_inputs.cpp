// The checkpoint fuzz target (apps/output/fuzz/fuzz_checkpoint.cpp) on fixed pseudo-random
// inputs, in every test run: each damaged file reads or is refused with output::Error naming
// it (the target traps otherwise), and nothing crashes. scripts/run-fuzzers searches further.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

TEST(CheckpointFuzzInputs, DamagedCheckpointsReadOrAreRefusedWithTheirName) {
  std::mt19937 random(20261201);
  for (int input = 0; input < 300; ++input) {
    std::vector<std::uint8_t> bytes(static_cast<std::size_t>(random() % 200));
    for (std::uint8_t& b : bytes) b = static_cast<std::uint8_t>(random());
    EXPECT_EQ(LLVMFuzzerTestOneInput(bytes.data(), bytes.size()), 0);
  }
}
