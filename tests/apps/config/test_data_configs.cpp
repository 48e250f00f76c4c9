// The run configs shipped in data/maxwell: each reads (its law and mesh files exist), and
// its effective config reads back to the same values.
#include "config/run_config.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <numbers>

namespace rtdg::config::test {
namespace {

namespace fs = std::filesystem;

const fs::path maxwell = fs::path(RTDG_SOURCE_DIR) / "data" / "maxwell";

TEST(DataConfigs, EveryConfigReads) {
  int count = 0;
  for (const auto& entry : fs::directory_iterator(maxwell)) {
    if (entry.path().extension() != ".toml") continue;
    SCOPED_TRACE(entry.path().string());
    ++count;
    const RunConfig c = read_config(entry.path());
    EXPECT_EQ(c.name, entry.path().stem().string());
    EXPECT_TRUE(fs::is_regular_file(c.law_file));
    EXPECT_TRUE(fs::is_regular_file(c.mesh_file));
    EXPECT_FALSE(c.boundaries.empty());
    EXPECT_TRUE(same_values(c, parse_config(c.effective_toml, entry.path())));
  }
  EXPECT_GE(count, 4);
}

TEST(DataConfigs, SphereIsTheDefaultExample) {
  const RunConfig c = read_config(maxwell / "sphere.toml");
  EXPECT_EQ(c.law_file.filename(), "maxwell3d.toml");
  EXPECT_EQ(c.mesh_file.filename(), "sphere.geo");
  EXPECT_TRUE(c.mesh_parameters.empty());  // the .geo's defaults: about a thousand tetrahedra
  EXPECT_EQ(c.order, 3);
  EXPECT_EQ(c.final_time, 2.0);
  EXPECT_EQ(c.output_interval, 0.5);
  EXPECT_EQ(c.checkpoint_interval, 1.0);
  EXPECT_EQ(c.incident.kind, "plane_wave");
  EXPECT_EQ(c.incident.direction, (std::array<double, 3>{1, 0, 0}));
  EXPECT_EQ(c.incident.polarization, (std::array<double, 3>{0, 0, 1}));
  EXPECT_EQ(c.incident.wavenumber, 2 * std::numbers::pi);
  EXPECT_EQ(c.incident.envelope, Envelope::ramp);
  ASSERT_EQ(c.boundaries.size(), 2U);
  EXPECT_EQ(c.boundaries[0].mesh_name, "pec");
  EXPECT_EQ(c.boundaries[0].condition, "pec_scattered");
  EXPECT_EQ(c.boundaries[1].mesh_name, "outer");
  EXPECT_EQ(c.boundaries[1].condition, "absorbing");
  ASSERT_EQ(c.probes.size(), 1U);
  EXPECT_EQ(c.probes[0].points.size(), 2U);
}

TEST(DataConfigs, CavitiesCheckAgainstTheExactSolution) {
  for (const char* name : {"cavity2d.toml", "cavity3d.toml"}) {
    SCOPED_TRACE(name);
    const RunConfig c = read_config(maxwell / name);
    EXPECT_EQ(c.initial, "law");
    EXPECT_TRUE(c.error);
    EXPECT_EQ(c.mesh_parameters.at("size"), 1.0);
    ASSERT_EQ(c.boundaries.size(), 1U);
    EXPECT_EQ(c.boundaries[0].mesh_name, "walls");
    EXPECT_EQ(c.boundaries[0].condition, "pec");
  }
}

}  // namespace
}  // namespace rtdg::config::test
