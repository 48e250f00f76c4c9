// --set overrides: values as TOML, bare words as strings, tables merged or replaced, their
// locations, and every kind of bad override.
#include "helpers.hpp"

namespace rtdg::config::test {
namespace {

TEST_F(ConfigTest, OverridesReplaceAndAddValues) {
  const RunConfig c = parse(minimal + "[discretization]\norder = 2\n[boundary]\nwalls = \"pec\"\n",
                            {"discretization.order=4", "run.backend=host", "run.name = \"my run\"",
                             "time.final=2.5", "output.vtu=false", "boundary.outer=absorbing",
                             "boundary.\"a=b\"=pmc", "law.parameters.eps=2", "mesh.periodic=[[\"xmin\", \"xmax\"]]",
                             "incident={ kind = \"plane_wave\", direction = [0, 1] }", "mesh.file=sub/other.geo"});
  EXPECT_EQ(c.order, 4);
  EXPECT_EQ(c.backend, "host");
  EXPECT_EQ(c.name, "my run");
  EXPECT_EQ(c.output_dir, fs::path("output/my run"));
  EXPECT_EQ(c.final_time, 2.5);
  EXPECT_FALSE(c.vtu);
  ASSERT_EQ(c.boundaries.size(), 3U);  // the file's first, then the overrides' in order
  EXPECT_EQ(c.boundaries[0].mesh_name, "walls");
  EXPECT_EQ(c.boundaries[1].mesh_name, "outer");
  EXPECT_EQ(c.boundaries[1].condition, "absorbing");
  EXPECT_EQ(c.boundaries[2].mesh_name, "a=b");
  EXPECT_EQ(c.boundaries[2].condition, "pmc");
  ASSERT_EQ(c.law_parameters.size(), 1U);
  EXPECT_EQ(c.law_parameters[0].value, 2.0);
  EXPECT_EQ(c.law_parameters[0].where.file, "--set law.parameters.eps=2");
  ASSERT_EQ(c.periodic.size(), 1U);
  EXPECT_EQ(c.incident.kind, "plane_wave");
  EXPECT_EQ(c.incident.direction, (std::array<double, 3>{0, 1, 0}));
  EXPECT_EQ(c.mesh_file, dir_ / "sub" / "other.geo");  // relative to the config's folder

  const fluxes::Location order = c.where("discretization.order");
  EXPECT_EQ(order.file, "--set discretization.order=4");
  EXPECT_EQ(order.line, 0);
  EXPECT_EQ(fluxes::to_string(c.where("boundary.walls")), "cfg.toml:10:9");
  EXPECT_EQ(c.where("boundary.outer").file, "--set boundary.outer=absorbing");
  EXPECT_EQ(c.where("incident").file, "--set incident={ kind = \"plane_wave\", direction = [0, 1] }");
}

TEST_F(ConfigTest, DottedOverridesMergeInlineTablesReplace) {
  const std::string text = minimal + "[incident]\nkind = \"plane_wave\"\nwavenumber = 3\n";
  const RunConfig merged = parse(text, {"incident.amplitude=2"});
  EXPECT_EQ(merged.incident.kind, "plane_wave");
  EXPECT_EQ(merged.incident.wavenumber, 3.0);
  EXPECT_EQ(merged.incident.amplitude, 2.0);
  const RunConfig replaced = parse(text, {"incident={ amplitude = 2 }"});
  EXPECT_EQ(replaced.incident.kind, "none");
  EXPECT_EQ(replaced.incident.wavenumber, 2 * std::numbers::pi);
  EXPECT_EQ(replaced.incident.amplitude, 2.0);
  // Later overrides win.
  EXPECT_EQ(parse(minimal, {"discretization.order=4", "discretization.order=6"}).order, 6);
  // A whole probe list.
  const RunConfig probes = parse(minimal, {"probe=[{ points = [[0, 0]] }, { name = \"b\", points = [[1, 1]] }]"});
  ASSERT_EQ(probes.probes.size(), 2U);
  EXPECT_EQ(probes.probes[1].name, "b");
}

TEST_F(ConfigTest, BadOverridesNameTheSetText) {
  EXPECT_EQ(error_of(minimal, {"discretization.order"}),
            "--set discretization.order: error: expected key=value, e.g. --set discretization.order=4");
  EXPECT_EQ(error_of(minimal, {"=4"}),
            "--set =4: error: no key before '=' (expected key=value, e.g. --set discretization.order=4)");
  EXPECT_EQ(error_of(minimal, {"run.name="}),
            "--set run.name=: error: no value after '=' (a string is written --set key=word or --set 'key=\"any "
            "text\"')");
  EXPECT_EQ(error_of(minimal, {"discretization.ordr=3"}),
            "--set discretization.ordr=3: error: unknown key 'ordr' in [discretization] (did you mean 'order'?); "
            "valid keys: order");
  EXPECT_EQ(error_of(minimal, {"outputs.vtu=false"}),
            "--set outputs.vtu=false: error: unknown table [outputs] (did you mean 'output'?); valid tables: run, "
            "law, mesh, discretization, time, boundary, initial, incident, output, checkpoint, probe, farfield, "
            "stabilization");
  EXPECT_EQ(error_of(minimal, {"discretization.order=high"}),
            "--set discretization.order=high: error: 'discretization.order' must be an integer from 1 to 10; got a "
            "string");
  EXPECT_EQ(error_of(minimal, {"discretization.order=12"}),
            "--set discretization.order=12: error: 'discretization.order' must be an integer from 1 to 10; got 12");
  EXPECT_EQ(error_of(minimal, {"run.backend=gpu"}),
            "--set run.backend=gpu: error: 'run.backend' must be one of auto, cuda, host; got \"gpu\"");
  EXPECT_EQ(error_of(minimal, {"mesh.periodic=[[\"a\", \"b\"]"}),
            "--set mesh.periodic=[[\"a\", \"b\"]: error: invalid TOML value '[[\"a\", \"b\"]': Error while "
            "parsing array: encountered end-of-file");
  EXPECT_EQ(error_of(minimal, {"a b=1"}), "--set a b=1: error: invalid key 'a b': Error while parsing key-value "
                                          "pair: expected '=', saw 'b'");
  EXPECT_EQ(error_of(minimal, {"run.name=a\nb"}), "--set run.name=a\nb: error: an override must be one line");
  // A number TOML cannot hold is not taken for a bare word (it was refused as "got a string").
  EXPECT_EQ(error_of(minimal, {"time.final=1e400"}),
            "--set time.final=1e400: error: '1e400' is not a number TOML can hold (beyond the range of a double, about "
            "1e-308 to 1.8e308 in magnitude): Error while parsing floating-point: '1e400' could not be interpreted as "
            "a value; a string is written --set 'key=\"1e400\"'");
  EXPECT_EQ(error_of(minimal, {"time.final=1.5.2"}).rfind("--set time.final=1.5.2: error: '1.5.2' is not a number TOML can hold: ", 0),
            0u);
  EXPECT_EQ(error_of(minimal, {"law.file=nope.toml"}),
            "--set law.file=nope.toml: error: law file not found: " + (dir_ / "nope.toml").string() +
                " ('nope.toml' relative to the config file's folder)");
  // Several bad overrides and a bad file value are reported together.
  try {
    parse(minimal + "[output]\ninterval = -1\n", {"time.final=0", "x"});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.diagnostics().size(), 3U) << e.what();
  }
}

TEST_F(ConfigTest, BareWordsAreStrings) {
  const RunConfig c = parse(minimal, {"run.output_dir=out/run 1", "boundary.walls=pec_scattered",
                                      "run.name=résumé", "initial.condition=law"});
  EXPECT_EQ(c.output_dir, fs::path("out/run 1"));
  EXPECT_EQ(c.boundaries.at(0).condition, "pec_scattered");
  EXPECT_EQ(c.name, "résumé");
  EXPECT_EQ(c.initial, "law");
  // A number is a number: a name that looks like one is quoted.
  EXPECT_EQ(error_of(minimal, {"run.name=2024"}),
            "--set run.name=2024: error: 'run.name' must be a string; got an integer");
  EXPECT_EQ(parse(minimal, {"run.name=\"2024\""}).name, "2024");
}

}  // namespace
}  // namespace rtdg::config::test
