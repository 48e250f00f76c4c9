// libFuzzer target: any bytes as a law file. Reading, resolving parameters, lowering every
// piece, emitting it and writing the report must either succeed or throw fluxes::Error;
// anything else (a crash, a sanitizer report, another exception, a hang) is a bug.
#include <fluxes/fluxes.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace {

void exercise(std::string_view text) {
  const fluxes::Law law = fluxes::parse_law(text, "fuzz.toml");
  const std::vector<double> params = fluxes::resolve_parameters(law);
  (void)fluxes::law_report(law);  // lowers and emits every piece
  fluxes::ReportOptions single;
  single.scalar = fluxes::ScalarType::float32;
  (void)fluxes::law_report(law, single);
  for (const auto& bc : law.boundaries) (void)fluxes::lower_boundary_state(law, bc, params);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    exercise(std::string_view(reinterpret_cast<const char*>(data), size));
  } catch (const fluxes::Error&) {
    // A diagnosed user error: the expected way to refuse bad input.
  }
  return 0;
}
