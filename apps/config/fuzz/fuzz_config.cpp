// libFuzzer target: any bytes as a run config, read as if it sat in data/maxwell/ (so the
// examples' relative law and mesh paths resolve, and their checks run). Reading must either
// succeed or throw config::Error (every problem, with file:line:column); a crash, a sanitizer
// report, another exception or a hang is a bug.
#include <config/run_config.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const rtdg::config::RunConfig config = rtdg::config::parse_config(
        std::string_view(reinterpret_cast<const char*>(data), size), RTDG_SOURCE_DIR "/data/maxwell/fuzz.toml");
    (void)config;
  } catch (const rtdg::config::Error&) {
    // A diagnosed user error: the expected way to refuse bad input.
  }
  return 0;
}
