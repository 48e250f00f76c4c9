// The effective config: every default written out, and it reads back to the same values,
// from the same config path or from anywhere else.
#include "helpers.hpp"

namespace rtdg::config::test {
namespace {

void expect_round_trip(const RunConfig& c) {
  const RunConfig same = parse_config(c.effective_toml, c.file);
  EXPECT_TRUE(same_values(c, same)) << c.effective_toml;
  EXPECT_EQ(same.effective_toml, c.effective_toml);
  // Law and mesh paths are absolute, the name and output folder explicit: the text means the
  // same from another folder.
  const RunConfig elsewhere = parse_config(c.effective_toml, "sub/elsewhere.toml");
  EXPECT_TRUE(same_values(c, elsewhere)) << c.effective_toml;
}

TEST_F(ConfigTest, EffectiveConfigOfDefaults) {
  const RunConfig c = parse(minimal);
  EXPECT_EQ(c.effective_toml, "# The effective run configuration: every key, defaults filled in.\n"
                              "\n[run]\nname = \"cfg\"\nbackend = \"auto\"\nprecision = \"double\"\n"
                              "output_dir = \"output/cfg\"\nprogress_every = 0\nblowup_factor = 1e+06\noverlap = true\n"
                              "\n[law]\nfile = \"" + (dir_ / "law.toml").string() + "\"\n"
                              "\n[mesh]\nfile = \"" + (dir_ / "mesh.geo").string() + "\"\n"
                              "\n[discretization]\norder = 3\n"
                              "\n[time]\nfinal = 1.0\ncfl = 0.5\ndt_update_every = 0\nintegrator = \"lserk4\"\n"
      "allow_unstable = false\nmax_steps = 1e+08\n"
                              "\n[boundary]\n"
                              "\n[initial]\ncondition = \"zero\"\n"
                              "\n[incident]\nkind = \"none\"\ndirection = [1.0, 0.0, 0.0]\n"
                              "polarization = [0.0, 0.0, 1.0]\nwavenumber = 6.283185307179586\namplitude = 1.0\n"
                              "envelope = \"ramp\"\nramp_periods = 2.0\npulse_width = 0.0\npulse_delay = 0.0\n"
      "phase_origin = [0.0, 0.0, 0.0]\ntotal_field = \"none\"\n"
                              "\n[output]\ninterval = 0.0\nmax_snapshots = 1e+05\nvtu = true\nhdf5 = true\nerror = false\n"
                              "\n[checkpoint]\ninterval = 0.0\nkeep = 2\n"
            "\n[stabilization]\nfilter_strength = 0.0\nfilter_order = 16\nfilter_cutoff = 0\npositive = []\n"
            "positivity_floor = 1e-10\n");
  expect_round_trip(c);
}

TEST_F(ConfigTest, EffectiveConfigRoundTrips) {
  const RunConfig c = parse(R"toml([run]
name = "odd \"name\" é"
output_dir = "a\\b"
progress_every = 7
blowup_factor = 250.5
overlap = false
plan = "fusion=stage layout=element_major elements=4 nodes_per_thread=1 operators=global derivative=flux"
[law]
file = "law.toml"
[law.parameters]
zeta = 1e-300
alpha = 0.1
"with space" = -3
[law.parameters.region.core]
alpha = 0.25
[law.parameters.region."outer shell"]
zeta = 2
alpha = 0.5
[mesh]
file = "mesh.msh"
periodic = [["x min", "x\"max"], { a = "y", b = "z", shift = [0.1, 0.2, 0.3] }]
[mesh.parameters]
"Parameters/h" = 0.3
[discretization]
order = 10
[time]
final = 0.1
dt = 3e-7
integrator = "ssprk3"
[boundary]
z = "pec"
a = "pmc"
"é" = "x"
[initial]
condition = "law"
[incident]
kind = "plane_wave"
direction = [1, 2, 3]
polarization = [3, 0, -1]
wavenumber = 0.7
envelope = "gaussian"
[output]
interval = 0.01
error = true
[checkpoint]
interval = 0.05
keep = 1
[[probe]]
points = [[1, 2, 3], [0.1, 0.2]]
[[probe]]
name = "b"
points = [[0, 0, 1e10]]
fields = ["E.x", "q\"uote", "tab\there", "bell\u0007"]
every = 3
)toml");
  ASSERT_EQ(c.boundaries.size(), 3U);
  // Materials per region read back (a restart takes its config from the effective one).
  ASSERT_EQ(c.region_parameters.size(), 3U);
  EXPECT_NE(c.effective_toml.find("[law.parameters.region.core]\nalpha = 0.25\n"), std::string::npos) << c.effective_toml;
  EXPECT_NE(c.effective_toml.find("[law.parameters.region.\"outer shell\"]\n"), std::string::npos) << c.effective_toml;
  EXPECT_EQ(c.boundaries[0].mesh_name, "z");
  expect_round_trip(c);
  // And with overrides applied: the effective config holds them.
  const RunConfig o = parse(minimal, {"incident.direction=[1, 1, 1]", "incident.polarization=[1, -1, 0]",
                                      "time.dt=0.001", "time={ final = 1, dt = 0.001 }"});
  EXPECT_FALSE(o.cfl);
  expect_round_trip(o);
}

TEST_F(ConfigTest, NormalisedVectorsRoundTripExactly) {
  for (const char* direction : {"[1, 1, 0]", "[1, 2, 0]", "[0.3, -0.7, 0]", "[1e-5, 3, 0]", "[2, 2]", "[-7, 1e3]"}) {
    const RunConfig c = parse(minimal + "[incident]\ndirection = " + direction + "\n");
    expect_round_trip(c);
  }
}

}  // namespace
}  // namespace rtdg::config::test
