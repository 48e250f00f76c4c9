// `rtdg law check`'s report: what it lists, the code it shows, and the errors it passes on.
#include "helpers.hpp"

#include <cmath>
#include <limits>

namespace fluxes::test {
namespace {

TEST(Report, ListsTheLawAndItsCode) {
  const std::string report = check_law_report(law_path("maxwell3d.toml"));
  for (const char* expected : {
           "law maxwell3d (3D) from ",
           "fields (6 state components):",
           "  E         vector  electric field",
           "state components: [0] E.x [1] E.y [2] E.z [3] H.x [4] H.y [5] H.z",
           "  alpha     = 1       constant (baked into the code), in [0, 1]; 1: upwind flux, 0: central flux",
           "  E_inc     vector  inc[0..2] incident electric field (from the run config)",
           "  H_inc     vector  inc[3..5]",
           "numerical flux (difference form n.(F - F*)):",
           "  pec: perfect electric conductor: n x E = 0 (mirror E, keep H)\n    E.ext = -E.int\n    H.ext = H.int\n",
           "max wave speed: 1/sqrt(eps*mu)",
           "// flux difference n.(F - F*) on interior faces\n// out[i]: component i; 54 temporaries\n{\n"
           "  const double t0 = qM[3] - qP[3];\n",
           "// flux difference n.(F - F*) on boundary 'absorbing'",
           "// exact solution",
       }) {
    EXPECT_NE(report.find(expected), std::string::npos) << "missing: " << expected << "\n" << report;
  }
}

TEST(Report, FloatAndOverrides) {
  ReportOptions options;
  options.scalar = ScalarType::float32;
  options.overrides = {{"ax", 2.0, {}}};
  const std::string report = check_law_report(law_path("advection.toml"), options);
  EXPECT_NE(report.find("  ax        = 2       run time: param[0]"), std::string::npos) << report;
  EXPECT_NE(report.find("const float t0"), std::string::npos);
  EXPECT_EQ(report.find("double"), std::string::npos);
}

// `rtdg law check --set sigma=nan`: NaN passes the min/max comparisons, so without its own check
// it reached the constant folding and was blamed on a line of the law file.
TEST(Report, NonFiniteOverrideIsBlamedOnTheOverride) {
  const Location where{"command line (--set #1)", 0, 0};
  for (const double value : {std::nan(""), std::numeric_limits<double>::infinity()}) {
    ReportOptions options;
    options.overrides = {{"sigma", value, where}};
    try {
      check_law_report(law_path("maxwell2d_tm.toml"), options);
      ADD_FAILURE() << "a non-finite sigma was accepted";
    } catch (const Error& e) {
      ASSERT_EQ(e.diagnostics().size(), 1u);
      EXPECT_EQ(to_string(e.diagnostics()[0].where), "command line (--set #1)");
      EXPECT_NE(e.diagnostics()[0].message.find("parameter 'sigma' = " + std::string(std::isnan(value) ? "nan" : "inf") +
                                                " is not a finite number"),
                std::string::npos)
          << e.what();
    }
  }
  // A run-time parameter too (ax is not constant: NaN would have reached the kernels unseen).
  ReportOptions options;
  options.overrides = {{"ax", std::nan(""), where}};
  EXPECT_THROW(check_law_report(law_path("advection.toml"), options), Error);
}

TEST(Report, InvalidLawsThrowWithLocations) {
  EXPECT_THROW(check_law_report(source_dir() + "/data/laws/no-such-law.toml"), Error);
  try {
    check_law_report(source_dir() + "/data/laws/no-such-law.toml");
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), source_dir() + "/data/laws/no-such-law.toml: error: law file not found");
  }
}

}  // namespace
}  // namespace fluxes::test
