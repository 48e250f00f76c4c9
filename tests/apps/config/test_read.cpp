// Reading valid configs: every key of a full config, the defaults of a minimal one, and the
// locations where() gives.
#include "helpers.hpp"

#include <numbers>

namespace rtdg::config::test {
namespace {

const std::string full = R"toml(# every key
[run]
name = "trial"
backend = "host"
precision = "float"
output_dir = "results/here"
progress_every = 25
blowup_factor = 1000
[law]
file = "law.toml"
[law.parameters]
mu = 2
eps = 0.5

[mesh]
file = "sub/other.geo"
periodic = [["xmin", "xmax"], { a = "ymin", b = "ymax", shift = [0, 2.0, 0] }]
[mesh.parameters]
h = 0.125
"Parameters/size" = 2

[discretization]
order = 5.0

[time]
final = 3
dt = 1e-3
integrator = "ssprk3"

[boundary]
walls = "pec"
outer = "absorbing"
"inner wall" = "pmc"

[initial]
condition = "law"

[incident]
kind = "plane_wave"
direction = [3, 4]
polarization = [0, 0, 2]
wavenumber = 3.5
amplitude = -2
envelope = "gaussian"
pulse_width = 0.25

[output]
interval = 0.5
vtu = false
hdf5 = false
error = true

[checkpoint]
interval = 1.5
keep = 4

[[probe]]
points = [[0, 0, 0], [1, 2]]

[[probe]]
name = "named"
points = [[0.5, 0.25, 0.125]]
fields = ["E.z", "H.x"]
every = 10
)toml";

TEST_F(ConfigTest, ReadsEveryKey) {
  const RunConfig c = parse(full);
  EXPECT_EQ(c.file, fs::path("cfg.toml"));
  EXPECT_EQ(c.name, "trial");
  EXPECT_EQ(c.backend, "host");
  EXPECT_EQ(c.precision, "float");
  EXPECT_EQ(c.output_dir, fs::path("results/here"));
  EXPECT_EQ(c.progress_every, 25);
  EXPECT_EQ(c.blowup_factor, 1000.0);
  EXPECT_EQ(c.law_file, dir_ / "law.toml");
  ASSERT_EQ(c.law_parameters.size(), 2U);
  EXPECT_EQ(c.law_parameters[0].name, "mu");  // file order, not toml++'s sorted order
  EXPECT_EQ(c.law_parameters[0].value, 2.0);
  EXPECT_EQ(fluxes::to_string(c.law_parameters[0].where), "cfg.toml:12:6");
  EXPECT_EQ(c.law_parameters[1].name, "eps");
  EXPECT_EQ(c.law_parameters[1].value, 0.5);
  EXPECT_EQ(c.mesh_file, dir_ / "sub" / "other.geo");
  ASSERT_EQ(c.periodic.size(), 2U);
  EXPECT_EQ(c.periodic[0].a, "xmin");
  EXPECT_EQ(c.periodic[0].b, "xmax");
  EXPECT_FALSE(c.periodic[0].shift);
  EXPECT_EQ(c.periodic[1].a, "ymin");
  EXPECT_EQ(c.periodic[1].b, "ymax");
  ASSERT_TRUE(c.periodic[1].shift);
  EXPECT_EQ(*c.periodic[1].shift, (std::array<double, 3>{0, 2, 0}));
  EXPECT_EQ(c.mesh_parameters, (std::map<std::string, double>{{"h", 0.125}, {"Parameters/size", 2.0}}));
  EXPECT_EQ(c.order, 5);
  EXPECT_EQ(c.final_time, 3.0);
  EXPECT_FALSE(c.cfl);
  ASSERT_TRUE(c.dt);
  EXPECT_EQ(*c.dt, 1e-3);
  EXPECT_EQ(c.integrator, "ssprk3");
  ASSERT_EQ(c.boundaries.size(), 3U);
  EXPECT_EQ(c.boundaries[0].mesh_name, "walls");
  EXPECT_EQ(c.boundaries[0].condition, "pec");
  EXPECT_EQ(fluxes::to_string(c.boundaries[0].where), "cfg.toml:31:9");
  EXPECT_EQ(fluxes::to_string(c.boundaries[0].name_where), "cfg.toml:31:1");
  EXPECT_EQ(c.boundaries[1].mesh_name, "outer");
  EXPECT_EQ(c.boundaries[1].condition, "absorbing");
  EXPECT_EQ(c.boundaries[2].mesh_name, "inner wall");
  EXPECT_EQ(c.boundaries[2].condition, "pmc");
  EXPECT_EQ(c.initial, "law");
  const Incident& inc = c.incident;
  EXPECT_EQ(inc.kind, "plane_wave");
  EXPECT_NEAR(inc.direction[0], 0.6, 1e-15);
  EXPECT_NEAR(inc.direction[1], 0.8, 1e-15);
  EXPECT_EQ(inc.direction[2], 0.0);
  EXPECT_EQ(inc.polarization, (std::array<double, 3>{0, 0, 1}));
  EXPECT_EQ(inc.wavenumber, 3.5);
  EXPECT_EQ(inc.amplitude, -2.0);
  EXPECT_EQ(inc.envelope, Envelope::gaussian);
  EXPECT_EQ(inc.ramp_periods, 2.0);
  EXPECT_EQ(inc.pulse_width, 0.25);
  EXPECT_EQ(inc.pulse_delay, 1.0);  // 4 * pulse_width
  EXPECT_EQ(fluxes::to_string(inc.where), "cfg.toml:38:1");
  EXPECT_EQ(c.output_interval, 0.5);
  EXPECT_FALSE(c.vtu);
  EXPECT_FALSE(c.hdf5);
  EXPECT_TRUE(c.error);
  EXPECT_EQ(c.checkpoint_interval, 1.5);
  EXPECT_EQ(c.checkpoint_keep, 4);
  ASSERT_EQ(c.probes.size(), 2U);
  EXPECT_EQ(c.probes[0].name, "probe1");
  EXPECT_EQ(c.probes[0].points, (std::vector<std::array<double, 3>>{{0, 0, 0}, {1, 2, 0}}));
  EXPECT_TRUE(c.probes[0].fields.empty());
  EXPECT_EQ(c.probes[0].every, 1);
  EXPECT_EQ(fluxes::to_string(c.probes[0].where), "cfg.toml:57:1");
  EXPECT_EQ(c.probes[1].name, "named");
  EXPECT_EQ(c.probes[1].fields, (std::vector<std::string>{"E.z", "H.x"}));
  EXPECT_EQ(c.probes[1].every, 10);
}

TEST_F(ConfigTest, WhereGivesTheValueOfEachKey) {
  const RunConfig c = parse(full);
  EXPECT_EQ(fluxes::to_string(c.where("discretization.order")), "cfg.toml:23:9");
  EXPECT_EQ(fluxes::to_string(c.where("run.backend")), "cfg.toml:4:11");
  EXPECT_EQ(fluxes::to_string(c.where("law.file")), "cfg.toml:10:8");
  EXPECT_EQ(fluxes::to_string(c.where("law.parameters.eps")), "cfg.toml:13:7");
  EXPECT_EQ(fluxes::to_string(c.where("boundary.outer")), "cfg.toml:32:9");
  EXPECT_EQ(fluxes::to_string(c.where("boundary.inner wall")), "cfg.toml:33:16");
  EXPECT_EQ(fluxes::to_string(c.where("mesh.periodic")), "cfg.toml:17:12");
  EXPECT_EQ(fluxes::to_string(c.where("probe.1.every")), "cfg.toml:64:9");
  // Defaults are not in the file.
  const fluxes::Location cfl = c.where("time.cfl");
  EXPECT_EQ(cfl.file, "cfg.toml");
  EXPECT_EQ(cfl.line, 0);
  EXPECT_EQ(cfl.column, 0);
}

// run.overlap (parallel runs) is true unless the config turns it off.
TEST_F(ConfigTest, ReadsOverlap) {
  EXPECT_TRUE(parse(minimal).overlap);
  EXPECT_FALSE(parse(minimal + "[run]\noverlap = false\n").overlap);
  EXPECT_TRUE(parse(minimal + "[run]\noverlap = true\n").overlap);
}

// run.plan names the kernel plan (dg::to_text's words); empty by default (the database chooses).
TEST_F(ConfigTest, ReadsPlan) {
  EXPECT_EQ(parse(minimal).plan, "");
  const std::string plan = "fusion=stage layout=element_major elements=8 nodes_per_thread=1 operators=global "
                           "derivative=flux products=tensor";
  const RunConfig c = parse(minimal + "[run]\nplan = \"" + plan + "\"\n");
  EXPECT_EQ(c.plan, plan);
  EXPECT_EQ(c.where("run.plan").line, 8);
}

TEST_F(ConfigTest, FillsInDefaults) {
  const RunConfig c = parse(minimal);
  EXPECT_EQ(c.name, "cfg");  // the file's stem
  EXPECT_EQ(c.backend, "auto");
  EXPECT_EQ(c.precision, "double");
  EXPECT_EQ(c.output_dir, fs::path("output/cfg"));
  EXPECT_EQ(c.progress_every, 0);
  EXPECT_EQ(c.blowup_factor, 1e6);
  EXPECT_TRUE(c.overlap);
  EXPECT_EQ(c.law_file, dir_ / "law.toml");
  EXPECT_TRUE(c.law_parameters.empty());
  EXPECT_EQ(c.mesh_file, dir_ / "mesh.geo");
  EXPECT_TRUE(c.mesh_parameters.empty());
  EXPECT_TRUE(c.periodic.empty());
  EXPECT_EQ(c.order, 3);
  EXPECT_EQ(c.final_time, 1.0);
  ASSERT_TRUE(c.cfl);
  EXPECT_EQ(*c.cfl, 0.5);
  EXPECT_FALSE(c.dt);
  EXPECT_EQ(c.integrator, "lserk4");
  EXPECT_TRUE(c.boundaries.empty());
  EXPECT_EQ(c.initial, "zero");
  EXPECT_EQ(c.incident.kind, "none");
  EXPECT_EQ(c.incident.direction, (std::array<double, 3>{1, 0, 0}));
  EXPECT_EQ(c.incident.polarization, (std::array<double, 3>{0, 0, 1}));
  EXPECT_EQ(c.incident.wavenumber, 2 * std::numbers::pi);
  EXPECT_EQ(c.incident.amplitude, 1.0);
  EXPECT_EQ(c.incident.envelope, Envelope::ramp);
  EXPECT_EQ(c.incident.ramp_periods, 2.0);
  EXPECT_EQ(c.incident.pulse_width, 0.0);
  EXPECT_EQ(c.incident.pulse_delay, 0.0);
  EXPECT_EQ(c.incident.where.line, 0);
  EXPECT_EQ(c.output_interval, 0.0);
  EXPECT_TRUE(c.vtu);
  EXPECT_TRUE(c.hdf5);
  EXPECT_FALSE(c.error);
  EXPECT_EQ(c.checkpoint_interval, 0.0);
  EXPECT_EQ(c.checkpoint_keep, 2);
  EXPECT_TRUE(c.probes.empty());
}

TEST_F(ConfigTest, GaussianDefaultsFollowTheWavenumber) {
  const RunConfig c = parse(minimal + "[incident]\nkind = \"plane_wave\"\nwavenumber = 4\nenvelope = \"gaussian\"\n");
  EXPECT_EQ(c.incident.pulse_width, 0.5);  // 2 / wavenumber
  EXPECT_EQ(c.incident.pulse_delay, 2.0);  // 4 * pulse_width
  // An explicit delay, zero included, is kept.
  const RunConfig d = parse(minimal + "[incident]\nenvelope = \"gaussian\"\npulse_delay = 0\n");
  EXPECT_EQ(d.incident.pulse_delay, 0.0);
  EXPECT_EQ(d.incident.pulse_width, 2.0 / (2 * std::numbers::pi));
}

TEST_F(ConfigTest, AbsolutePathsAndInlineTables) {
  const std::string text = "law = { file = \"" + (dir_ / "law.toml").string() + "\" }\n" +
                           "mesh = { file = \"../mesh.msh\" }\ntime = { final = 2, cfl = 0.25 }\n";
  const RunConfig c = parse_config(text, "sub/run.toml");
  EXPECT_EQ(c.name, "run");
  EXPECT_EQ(c.law_file, dir_ / "law.toml");
  EXPECT_EQ(c.mesh_file, dir_ / "mesh.msh");  // relative to the config's folder, normalised
  EXPECT_EQ(*c.cfl, 0.25);
}

TEST_F(ConfigTest, ReadConfigReadsTheFile) {
  std::ofstream("sub/run.toml") << "[law]\nfile = \"../law.toml\"\n[mesh]\nfile = \"other.geo\"\n[time]\nfinal = 1\n";
  const RunConfig c = read_config("sub/run.toml", {"discretization.order=6"});
  EXPECT_EQ(c.file, fs::path("sub/run.toml"));
  EXPECT_EQ(c.mesh_file, dir_ / "sub" / "other.geo");
  EXPECT_EQ(c.order, 6);
  EXPECT_EQ(fluxes::to_string(c.where("mesh.file")), "sub/run.toml:4:8");
}

}  // namespace
}  // namespace rtdg::config::test
