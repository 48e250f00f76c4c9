// Every kind of error, each with its exact location and message; several errors in one pass;
// garbage input never crashes.
#include "helpers.hpp"

#include <random>

namespace rtdg::config::test {
namespace {

const std::string tables =
    "; valid tables: run, law, mesh, discretization, time, boundary, initial, incident, output, checkpoint, probe, farfield, "
    "stabilization";

// minimal has 6 lines; text appended to it starts on line 7.
TEST_F(ConfigTest, UnknownKeyListsTheValidKeys) {
  EXPECT_EQ(error_of(minimal + "[discretization]\nordr = 4\n"),
            "cfg.toml:8:1: error: unknown key 'ordr' in [discretization] (did you mean 'order'?); valid keys: order");
  EXPECT_EQ(error_of(minimal + "[output]\nformat = \"vtu\"\n"),
            "cfg.toml:8:1: error: unknown key 'format' in [output]; valid keys: interval, vtu, hdf5, error, max_snapshots");
  EXPECT_EQ(error_of(minimal + "[[probe]]\npoints = [[0, 0]]\nevry = 2\n"),
            "cfg.toml:9:1: error: unknown key 'evry' in [[probe]] (did you mean 'every'?); valid keys: name, points, "
            "fields, every");
}

TEST_F(ConfigTest, UnknownTableListsTheValidTables) {
  EXPECT_EQ(error_of(minimal + "[outputs]\ninterval = 1\n"),
            "cfg.toml:7:2: error: unknown table [outputs] (did you mean 'output'?)" + tables);
  EXPECT_EQ(error_of("order = 4\n" + minimal),
            "cfg.toml:1:1: error: unknown key 'order' at the top level (it belongs in [discretization]); keys belong "
            "in the tables run, law, mesh, discretization, time, boundary, initial, incident, output, checkpoint, "
            "probe, farfield, stabilization");
  EXPECT_EQ(error_of(minimal + "[discretization.extra]\n"),
            "cfg.toml:7:17: error: unknown key 'extra' in [discretization]; valid keys: order");
}

TEST_F(ConfigTest, WrongTypesSayWhatWasExpected) {
  EXPECT_EQ(error_of(minimal + "[discretization]\norder = \"4\"\n"),
            "cfg.toml:8:9: error: 'discretization.order' must be an integer from 1 to 10; got a string");
  EXPECT_EQ(error_of(minimal + "[discretization]\norder = 3.5\n"),
            "cfg.toml:8:9: error: 'discretization.order' must be an integer from 1 to 10; got 3.5");
  EXPECT_EQ(error_of(minimal + "[output]\nvtu = \"yes\"\n"),
            "cfg.toml:8:7: error: 'output.vtu' must be true or false; got a string");
  EXPECT_EQ(error_of(minimal + "[output]\ninterval = [1]\n"),
            "cfg.toml:8:12: error: 'output.interval' must be a number >= 0; got an array");
  EXPECT_EQ(error_of(minimal + "[run]\nname = 7\n"),
            "cfg.toml:8:8: error: 'run.name' must be a string; got an integer");
  EXPECT_EQ(error_of("initial = \"law\"\n" + minimal),
            "cfg.toml:1:11: error: 'initial' must be a table ([initial]); got a string");
  EXPECT_EQ(error_of(minimal + "[boundary]\nwalls = 1\n"),
            "cfg.toml:8:9: error: 'boundary.walls' must name a boundary condition of the law, e.g. \"pec\"; got an "
            "integer");
  EXPECT_EQ(error_of(minimal + "[law.parameters]\neps = \"1\"\n"),
            "cfg.toml:8:7: error: 'law.parameters.eps' must be a number; got a string");
}

TEST_F(ConfigTest, RangesAreChecked) {
  EXPECT_EQ(error_of(minimal + "[discretization]\norder = 11\n"),
            "cfg.toml:8:9: error: 'discretization.order' must be an integer from 1 to 10; got 11");
  EXPECT_EQ(error_of(minimal + "[discretization]\norder = 0\n"),
            "cfg.toml:8:9: error: 'discretization.order' must be an integer from 1 to 10; got 0");
  EXPECT_EQ(error_of(minimal + "[discretization]\norder = 99999999999999999\n"),
            "cfg.toml:8:9: error: 'discretization.order' must be an integer from 1 to 10; got 99999999999999999");
  EXPECT_EQ(error_of(minimal + "[checkpoint]\nkeep = 0\n"),
            "cfg.toml:8:8: error: 'checkpoint.keep' must be an integer >= 1; got 0");
  EXPECT_EQ(error_of(minimal + "[output]\ninterval = -1\n"),
            "cfg.toml:8:12: error: 'output.interval' must be a number >= 0; got -1.0");
  EXPECT_EQ(error_of(minimal + "[incident]\nwavenumber = 0\n"),
            "cfg.toml:8:14: error: 'incident.wavenumber' must be a number greater than 0; got 0.0");
  EXPECT_EQ(error_of(minimal + "[incident]\namplitude = nan\n"),
            "cfg.toml:8:13: error: 'incident.amplitude' must be a finite number");
  EXPECT_EQ(error_of(minimal + "[run]\nprogress_every = -2\n"),
            "cfg.toml:8:18: error: 'run.progress_every' must be an integer >= 0; got -2");
  EXPECT_EQ(error_of(minimal + "[run]\nblowup_factor = -1\n"),
            "cfg.toml:8:17: error: 'run.blowup_factor' must be a number >= 0; got -1.0");
  EXPECT_EQ(error_of(minimal + "[run]\noverlap = \"no\"\n"),
            "cfg.toml:8:11: error: 'run.overlap' must be true or false; got a string");
  EXPECT_EQ(error_of(minimal + "[run]\nplan = 3\n"),
            "cfg.toml:8:8: error: 'run.plan' must be a string; got an integer");
}

TEST_F(ConfigTest, EnumerationsListTheChoices) {
  EXPECT_EQ(error_of(minimal + "[run]\nbackend = \"hots\"\n"),
            "cfg.toml:8:11: error: 'run.backend' must be one of auto, cuda, host; got \"hots\" (did you mean 'host'?)");
  EXPECT_EQ(error_of(minimal + "[run]\nprecision = \"single\"\n"),
            "cfg.toml:8:13: error: 'run.precision' must be one of float, double; got \"single\"");
  EXPECT_EQ(error_of(minimal + "[time]\n"),  // [time] defined twice: a TOML error
            "cfg.toml:7:1: error: invalid TOML: Error while parsing table header: cannot redefine existing table 'time'");
  EXPECT_EQ(error_of("[law]\nfile = \"law.toml\"\n[mesh]\nfile = \"mesh.geo\"\n[time]\nfinal = 1\nintegrator = \"rk4\"\n"),
            "cfg.toml:7:14: error: 'time.integrator' must be one of lserk4, ssprk3; got \"rk4\"");
  EXPECT_EQ(error_of(minimal + "[initial]\ncondition = \"exact\"\n"),
            "cfg.toml:8:13: error: 'initial.condition' must be one of zero, law; got \"exact\"");
  EXPECT_EQ(error_of(minimal + "[incident]\nkind = \"plane\"\nenvelope = \"box\"\n"),
            "cfg.toml:8:8: error: 'incident.kind' must be one of none, plane_wave; got \"plane\"\n"
            "cfg.toml:9:12: error: 'incident.envelope' must be one of ramp, gaussian; got \"box\"");
}

TEST_F(ConfigTest, MissingRequiredKeys) {
  EXPECT_EQ(error_of("[mesh]\nfile = \"mesh.geo\"\n[time]\nfinal = 1\n"),
            "cfg.toml:1:1: error: missing [law]: law.file names the conservation law, e.g. file = "
            "\"../laws/maxwell3d.toml\"");
  EXPECT_EQ(error_of("[time]\nfinal = 1\n[law]\n[law.parameters]\neps = 1\n[mesh]\nfile = \"mesh.geo\"\n"),
            "cfg.toml:3:1: error: missing 'law.file': the law file");
  EXPECT_EQ(error_of("[law]\nfile = \"law.toml\"\n[time]\nfinal = 1\n"),
            "cfg.toml:1:1: error: missing [mesh]: mesh.file names a .geo, .msh or .h5 file, e.g. file = "
            "\"../geometries/sphere.geo\"");
  EXPECT_EQ(error_of("[law]\nfile = \"law.toml\"\n[mesh]\nfile = \"mesh.geo\"\n[time]\ncfl = 0.3\n"),
            "cfg.toml:5:1: error: missing 'time.final': the simulated time to reach (> 0)");
  EXPECT_EQ(error_of("[law]\nfile = \"law.toml\"\n[mesh]\nfile = \"mesh.geo\"\n"),
            "cfg.toml:1:1: error: missing 'time.final': the simulated time to reach (> 0)");
  EXPECT_EQ(error_of(minimal + "[[probe]]\nname = \"p\"\n"),
            "cfg.toml:7:1: error: probe 'p' has no points (points = [[x, y, z], ...])");
}

TEST_F(ConfigTest, MissingFilesNameTheResolvedPath) {
  EXPECT_EQ(error_of("[law]\nfile = \"laws/nope.toml\"\n[mesh]\nfile = \"mesh.geo\"\n[time]\nfinal = 1\n"),
            "cfg.toml:2:8: error: law file not found: " + (dir_ / "laws/nope.toml").string() +
                " ('laws/nope.toml' relative to the config file's folder)");
  EXPECT_EQ(error_of("[law]\nfile = \"law.toml\"\n[mesh]\nfile = \"/no/such/mesh.geo\"\n[time]\nfinal = 1\n"),
            "cfg.toml:4:8: error: mesh file not found: /no/such/mesh.geo");
  EXPECT_EQ(error_of("[law]\nfile = \"sub\"\n[mesh]\nfile = \"mesh.geo\"\n[time]\nfinal = 1\n"),
            "cfg.toml:2:8: error: 'law.file' names a folder, not a file: " + (dir_ / "sub").string());
  EXPECT_EQ(error_of("[law]\nfile = \"law.toml\"\n[mesh]\nfile = \"law.toml\"\n[time]\nfinal = 1\n"),
            "cfg.toml:4:8: error: unknown mesh file type '.toml'; rtdg reads .geo (meshed by Gmsh), .msh and .h5 "
            "(written by rtdg mesh)");
  // From another folder, paths resolve against the config file's folder.
  EXPECT_THROW(parse_config(minimal, "sub/cfg.toml"), Error);
}

TEST_F(ConfigTest, TimeStepIsCflOrDt) {
  EXPECT_EQ(error_of("[law]\nfile = \"law.toml\"\n[mesh]\nfile = \"mesh.geo\"\n[time]\nfinal = 1\ncfl = 0.4\ndt = 0.01\n"),
            "cfg.toml:8:6: error: give either 'time.cfl' or 'time.dt', not both (the step comes from one of them)");
  EXPECT_EQ(error_of("[law]\nfile = \"law.toml\"\n[mesh]\nfile = \"mesh.geo\"\n[time]\nfinal = 0\ndt = -1\n"),
            "cfg.toml:6:9: error: 'time.final' must be a number greater than 0; got 0.0\n"
            "cfg.toml:7:6: error: 'time.dt' must be a number greater than 0; got -1.0");
}

TEST_F(ConfigTest, IncidentVectors) {
  EXPECT_EQ(error_of(minimal + "[incident]\ndirection = [0, 0, 0]\n"),
            "cfg.toml:8:13: error: 'incident.direction' must be a nonzero vector");
  EXPECT_EQ(error_of(minimal + "[incident]\ndirection = [1, 0, 0, 0]\n"),
            "cfg.toml:8:13: error: 'incident.direction' must be an array of 2 or 3 numbers, e.g. [1, 0, 0]; got an "
            "array of 4");
  EXPECT_EQ(error_of(minimal + "[incident]\ndirection = [1, \"y\"]\n"),
            "cfg.toml:8:17: error: 'incident.direction[1]' must be a number; got a string");
  EXPECT_EQ(error_of(minimal + "[incident]\ndirection = [1, 1, 0]\npolarization = [1, 0, 0]\n"),
            "cfg.toml:9:16: error: 'incident.polarization' (the direction of E) must be perpendicular to "
            "'incident.direction'; their unit vectors have dot product 0.7071067811865475");
  // The default polarization (z) against a direction with a z part: the direction is blamed.
  EXPECT_EQ(error_of(minimal + "[incident]\ndirection = [0, 0, -1]\n"),
            "cfg.toml:8:13: error: 'incident.polarization' (the direction of E) must be perpendicular to "
            "'incident.direction'; their unit vectors have dot product -1.0");
  const RunConfig c = parse(minimal + "[incident]\ndirection = [0, 1e-300, 0]\npolarization = [5, 0, 0]\n");
  EXPECT_EQ(c.incident.direction, (std::array<double, 3>{0, 1, 0}));
  EXPECT_EQ(c.incident.polarization, (std::array<double, 3>{1, 0, 0}));
}

// Total-field/scattered-field incidence: a box needs both corners, a region its group, and
// either an incident wave.
TEST_F(ConfigTest, TotalField) {
  const std::string wave = minimal + "[incident]\nkind = \"plane_wave\"\n";
  EXPECT_EQ(error_of(wave + "total_field = \"box\"\ntotal_field_min = [-1, -1]\n"),
            "cfg.toml:7:1: error: [incident] total_field = \"box\" needs 'total_field_max' (the box's corners, [x, y] or "
            "[x, y, z]): elements whose centroid is inside carry the total field");
  EXPECT_EQ(error_of(wave + "total_field = \"box\"\ntotal_field_min = [1, -1]\ntotal_field_max = [0, 1]\n"),
            "cfg.toml:11:19: error: 'incident.total_field_max' must exceed 'incident.total_field_min' in every "
            "coordinate (a 2D box gives [x, y])");
  EXPECT_EQ(error_of(wave + "total_field = \"region\"\n"),
            "cfg.toml:7:1: error: [incident] total_field = \"region\" needs 'total_field_group': the mesh region "
            "(physical group) whose elements carry the total field");
  EXPECT_EQ(error_of(wave + "total_field = \"region\"\ntotal_field_group = \"inner\"\ntotal_field_min = [0, 0]\n"),
            "cfg.toml:11:19: error: 'incident.total_field_min' is for total_field = \"box\"");
  EXPECT_EQ(error_of(minimal + "[incident]\ntotal_field = \"region\"\ntotal_field_group = \"inner\"\n"),
            "cfg.toml:8:15: error: 'incident.total_field' needs an incident wave (kind = \"plane_wave\")");
  EXPECT_EQ(error_of(wave + "total_field = \"sphere\"\n"),
            "cfg.toml:9:15: error: 'incident.total_field' must be one of none, box, region; got \"sphere\"");
  const RunConfig c = parse(wave + "total_field = \"box\"\ntotal_field_min = [-1, -2]\ntotal_field_max = [1, 2]\n");
  EXPECT_EQ(c.incident.total_field, "box");
  EXPECT_EQ(c.incident.total_field_min, (std::array<double, 3>{-1, -2, 0}));
  EXPECT_EQ(c.incident.total_field_max, (std::array<double, 3>{1, 2, 0}));
}

TEST_F(ConfigTest, Probes) {
  EXPECT_EQ(error_of(minimal + "[probe]\npoints = [[0, 0, 0]]\n"),
            "cfg.toml:7:1: error: 'probe' must be an array of tables: write [[probe]] above each probe's keys");
  EXPECT_EQ(error_of(minimal + "[[probe]]\npoints = [0, 0, 0]\n"),
            "cfg.toml:8:10: error: 'probe.0.points' must be a nonempty array of points, e.g. [[0.5, 0, 0]] (one point "
            "is [[x, y, z]])");
  EXPECT_EQ(error_of(minimal + "[[probe]]\npoints = [[0, 0, 0], [1]]\n"),
            "cfg.toml:8:22: error: 'probe.0.points[1]' must be an array of 2 or 3 numbers, e.g. [0.5, 0, 0]; got an "
            "array of 1");
  EXPECT_EQ(error_of(minimal + "[[probe]]\npoints = [[0, 0]]\n[[probe]]\nname = \"probe1\"\npoints = [[1, 0]]\n"),
            "cfg.toml:10:8: error: two probes are named 'probe1'");
  EXPECT_EQ(error_of(minimal + "[[probe]]\nname = \"a/b\"\npoints = [[0, 0]]\nevery = 0\n"),
            "cfg.toml:8:8: error: 'probe.0.name' names the probe's output file: letters, digits, '_', '-' and '.'\n"
            "cfg.toml:10:9: error: 'probe.0.every' must be an integer >= 1; got 0");
  EXPECT_EQ(error_of(minimal + "[[probe]]\npoints = [[0, 0]]\nfields = [\"E.z\", 3, \"E.z\"]\n"),
            "cfg.toml:9:18: error: 'probe.0.fields' must hold component names, e.g. \"E.z\"; got an integer\n"
            "cfg.toml:9:21: error: 'probe.0.fields' names 'E.z' twice");
}

TEST_F(ConfigTest, PeriodicPairsAndH5Meshes) {
  EXPECT_EQ(error_of(minimal + "[mesh]\n"), "cfg.toml:7:1: error: invalid TOML: Error while parsing table header: cannot redefine existing table 'mesh'");
  const std::string head = "[law]\nfile = \"law.toml\"\n[time]\nfinal = 1\n[mesh]\n";  // [mesh] on line 5
  EXPECT_EQ(error_of(head + "file = \"mesh.geo\"\nperiodic = [[\"xmin\"], \"a:b\", [\"x\", \"x\"]]\n"),
            "cfg.toml:7:13: error: 'mesh.periodic[0]' must be a pair of boundary group names, e.g. [\"xmin\", "
            "\"xmax\"], or { a = \"xmin\", b = \"xmax\", shift = [1, 0, 0] }\n"
            "cfg.toml:7:23: error: 'mesh.periodic[1]' must be a pair of boundary group names, e.g. [\"xmin\", "
            "\"xmax\"], or { a = \"xmin\", b = \"xmax\", shift = [1, 0, 0] }; got a string\n"
            "cfg.toml:7:30: error: 'mesh.periodic[2]' must name two different boundary groups");
  EXPECT_EQ(error_of(head + "file = \"mesh.geo\"\nperiodic = [{ a = \"x\", c = \"y\" }]\n"),
            "cfg.toml:7:24: error: unknown key 'c' in 'mesh.periodic[0]'; valid keys: a, b, shift\n"
            "cfg.toml:7:13: error: 'mesh.periodic[0]' needs both a and b, the two boundary groups");
  EXPECT_EQ(error_of(head + "file = \"mesh.h5\"\nperiodic = [[\"a\", \"b\"]]\n[mesh.parameters]\nh = 1\n"),
            "cfg.toml:8:1: error: mesh parameters apply to .geo files; an .h5 mesh is final (set them when writing "
            "it: rtdg mesh in.geo -D name=value -o mesh.h5)\n"
            "cfg.toml:7:12: error: periodic pairs apply to .geo and .msh files; an .h5 mesh is final (set them when "
            "writing it: rtdg mesh in.geo --periodic a:b -o mesh.h5)");
}

TEST_F(ConfigTest, RunName) {
  EXPECT_EQ(error_of(minimal + "[run]\nname = \"../x\"\n"),
            "cfg.toml:8:8: error: 'run.name' names the run and its output folder: it must not be empty, '.' or '..', "
            "nor contain '/', '\\' or control characters");
  EXPECT_EQ(parse(minimal + "[run]\nname = \"résumé 2\"\n").output_dir, fs::path("output/résumé 2"));
  EXPECT_EQ(error_of(minimal + "[run]\noutput_dir = \"\"\n"),
            "cfg.toml:8:14: error: 'run.output_dir' must not be empty (\".\" is the current folder)");
}

TEST_F(ConfigTest, CollectsEveryErrorInOnePass) {
  try {
    parse("[law]\nfile = 3\n[mesh]\nfile = \"mesh.geo\"\n[time]\nfinal = -1\n[discretization]\norder = 0\nx = 1\n"
          "[run]\nbackend = \"gpu\"\n");
    FAIL() << "no error";
  } catch (const Error& e) {
    ASSERT_EQ(e.diagnostics().size(), 5U) << e.what();
    EXPECT_EQ(fluxes::to_string(e.diagnostics()[0].where), "cfg.toml:11:11");  // run is read first
    EXPECT_EQ(fluxes::to_string(e.diagnostics()[1].where), "cfg.toml:2:8");
  }
}

TEST_F(ConfigTest, TomlSyntaxErrorsHaveLineAndColumn) {
  EXPECT_EQ(error_of("[law]\nfile = \"law.toml\n"),
            "cfg.toml:2:17: error: invalid TOML: Error while parsing string: unescaped control characters other than TAB "
            "(U+0009) are explicitly prohibited");
  EXPECT_EQ(error_of(minimal + "[output]\ninterval = 1 2\n"),
            "cfg.toml:8:14: error: invalid TOML: Error while parsing key-value pair: expected a comment or whitespace, "
            "saw '2'");
  // Non-ASCII outside strings and comments: found before toml++ sees it.
  EXPECT_EQ(error_of(minimal + "[output]\nintervål = 1\n"),
            "cfg.toml:8:7: error: invalid TOML: non-ASCII character outside a string or comment (TOML allows them "
            "only there)");
  EXPECT_EQ(error_of(minimal + "[run]\nname = \"a\\é\"\n"),
            "cfg.toml:8:10: error: invalid TOML: invalid escape: '\\' followed by a non-ASCII character");
  // A number beyond a double's range: toml++'s words, and which limit it is.
  EXPECT_EQ(error_of(minimal + "[output]\ninterval = 1e400\n"),
            "cfg.toml:8:17: error: invalid TOML: Error while parsing floating-point: '1e400' could not be interpreted "
            "as a value (beyond the range of a double, about 1e-308 to 1.8e308 in magnitude)");
  // A byte order mark is allowed; non-ASCII in comments and strings too.
  EXPECT_EQ(parse("\xEF\xBB\xBF# é\n" + minimal + "[run]\nname = \"é\"\n").name, "é");
}

TEST_F(ConfigTest, ReadConfigErrors) {
  try {
    read_config("missing.toml");
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "missing.toml: error: config file not found");
  }
  EXPECT_THROW(read_config("sub"), Error);
}

// Random changes to a valid config, and random bytes: an Error or a config, never a crash.
TEST_F(ConfigTest, GarbageNeverCrashes) {
  const std::string base = minimal +
                           "[run]\nname = \"x\"\n[incident]\ndirection = [1, 0]\n[[probe]]\npoints = [[0, 0]]\n"
                           "fields = [\"E.z\"]\n[mesh.parameters]\nh = 0.1\n[boundary]\nwalls = \"pec\"\n";
  std::mt19937 random(12345);
  const std::string alphabet = "[]{}=\"'\\.,#\n 0123456789abcdeftrun+-_\t\r";
  for (int i = 0; i < 3000; ++i) {
    std::string text = base;
    const int edits = 1 + static_cast<int>(random() % 4);
    for (int e = 0; e < edits; ++e) {
      const std::size_t at = random() % text.size();
      const unsigned kind = random() % 4;
      if (kind == 0) {
        text[at] = static_cast<char>(random() % 256);
      } else if (kind == 1) {
        text[at] = alphabet[random() % alphabet.size()];
      } else if (kind == 2) {
        text.erase(at, 1 + random() % 8);
        if (text.empty()) text = "x";
      } else {
        text.insert(at, i % 2 == 0 ? "\xC3\xA9" : "\xE2\x80\xA8");
      }
    }
    try {
      parse(text, i % 5 == 0 ? std::vector<std::string>{"run.name=\xFF\xFE", "a.b=\xC3"} : std::vector<std::string>{});
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(": error: "), std::string::npos);
    }
  }
  for (int i = 0; i < 500; ++i) {
    std::string text(1 + random() % 64, ' ');
    for (char& c : text) c = static_cast<char>(random() % 256);
    try {
      parse(text);
    } catch (const Error&) {
    }
  }
}

}  // namespace
}  // namespace rtdg::config::test
