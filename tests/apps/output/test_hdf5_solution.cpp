// HDF5 solution files: bit-exact round trips in double and float, atomic replacement, errors.
#include "test_support.hpp"

#include <output/error.hpp>
#include <output/hdf5_solution.hpp>

#include <mesh/hdf5_io.hpp>

#include <gtest/gtest.h>
#include <hdf5.h>

#include <sys/resource.h>

#include <csignal>
#include <cstring>
#include <fstream>
#include <limits>
#include <random>

namespace rtdg::output {
namespace {

using test::TempDir;

Solution example(int dim, int N, const std::string& precision, int n = 2) {
  const dg::Discretization discretization = dg::discretize(test::box_mesh(dim, n, 0.1), N);
  std::vector<std::string> names =
      dim == 2 ? std::vector<std::string>{"E.x", "E.y", "H.z"} : std::vector<std::string>{"E.x", "E.y", "E.z", "rho"};
  std::vector<test::Field> fields;
  for (std::size_t c = 0; c < names.size(); ++c) fields.push_back(test::random_polynomial(N, 7 + static_cast<unsigned>(c)));
  Solution s = test::sample(discretization, names, fields);
  if (precision == "float") {
    for (double& v : s.values) v = static_cast<double>(static_cast<float>(v));
  }
  // Values that are hard to keep: the extremes, a denormal, a signed zero, infinities.
  s.values[0] = std::numeric_limits<double>::max();
  s.values[1] = precision == "float" ? static_cast<double>(std::numeric_limits<float>::denorm_min())
                                     : std::numeric_limits<double>::denorm_min();
  s.values[2] = -0.0;
  s.values[3] = std::numeric_limits<double>::infinity();
  if (precision == "float") s.values[0] = static_cast<double>(std::numeric_limits<float>::max());
  s.precision = precision;
  s.time = 0.1;  // not a binary fraction
  s.step = (1LL << 40) + 3;
  s.rtdg_version = "0.1.0";
  s.law_name = "maxwell";
  s.law_file = "data/laws/maxwell.law";
  s.mesh_file = "data/meshes/box é.h5";
  s.mesh_fingerprint = "sha256:0123abcd";
  s.integrator = "lserk4";
  s.effective_config = "[mesh]\nfile = \"box.h5\"\n\n[time]\nend = 1.5\n";
  return s;
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

void expect_identical(const Solution& a, const Solution& b) {
  EXPECT_EQ(a.shape, b.shape);
  EXPECT_EQ(a.dim, b.dim);
  EXPECT_EQ(a.N, b.N);
  EXPECT_EQ(a.K, b.K);
  EXPECT_EQ(a.Np, b.Np);
  EXPECT_TRUE(same_bits(a.x, b.x));
  EXPECT_TRUE(same_bits(a.y, b.y));
  EXPECT_TRUE(same_bits(a.z, b.z));
  EXPECT_EQ(a.names, b.names);
  EXPECT_TRUE(same_bits(a.values, b.values));
  EXPECT_EQ(a.precision, b.precision);
  EXPECT_EQ(std::memcmp(&a.time, &b.time, sizeof(double)), 0);
  EXPECT_EQ(a.step, b.step);
  EXPECT_EQ(a.rtdg_version, b.rtdg_version);
  EXPECT_EQ(a.law_name, b.law_name);
  EXPECT_EQ(a.law_file, b.law_file);
  EXPECT_EQ(a.mesh_file, b.mesh_file);
  EXPECT_EQ(a.mesh_fingerprint, b.mesh_fingerprint);
  EXPECT_EQ(a.integrator, b.integrator);
  EXPECT_EQ(a.effective_config, b.effective_config);
}

// The element size in bytes of a dataset in the file.
std::size_t stored_size(const std::filesystem::path& file, const char* dataset) {
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  const hid_t d = H5Dopen2(f, dataset, H5P_DEFAULT);
  const hid_t t = H5Dget_type(d);
  const std::size_t size = H5Tget_size(t);
  H5Tclose(t);
  H5Dclose(d);
  H5Fclose(f);
  return size;
}

std::string error_of(const std::filesystem::path& file) {
  try {
    read_solution(file);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Hdf5Solution, DoubleRoundTripIsBitExact2D) {
  TempDir dir;
  const Solution s = example(2, 3, "double");
  write_solution(dir / "s.h5", s);
  expect_identical(s, read_solution(dir / "s.h5"));
  EXPECT_EQ(stored_size(dir / "s.h5", "/fields/E.x"), 8u);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"s.h5"});  // no temporary left behind
}

TEST(Hdf5Solution, DoubleRoundTripIsBitExact3D) {
  TempDir dir;
  const Solution s = example(3, 2, "double");
  write_solution(dir / "s.h5", s);
  expect_identical(s, read_solution(dir / "s.h5"));
}

// A parallel restart reads its block of rows: the same values as the whole file's rows, every
// attribute, and the file's element count; rows outside the file are refused.
TEST(Hdf5Solution, ReadsABlockOfRows) {
  TempDir dir;
  const Solution s = example(3, 2, "float");
  write_solution(dir / "s.h5", s);
  const int first = s.K / 3, rows = s.K / 2;
  int elements = 0;
  // The other readers' checksum terms (rows before and after the block), which a parallel
  // restart's all-reduce adds (test_checksums.cpp has a damaged block).
  const auto others = [&](long long from, int count) {
    std::vector<std::uint64_t> terms;
    int e = 0;
    try {
      (void)read_solution_rows(dir / "s.h5", from, count, e, [&](const std::vector<std::uint64_t>& p) { return terms = p; });
    } catch (const Error&) {  // its own terms are not the whole dataset's
    }
    return terms;
  };
  const std::vector<std::uint64_t> before = others(0, first), after = others(first + rows, s.K - first - rows);
  const Solution block = read_solution_rows(dir / "s.h5", first, rows, elements, [&](std::vector<std::uint64_t> sum) {
    for (std::size_t i = 0; i < sum.size(); ++i) sum[i] += before.at(i) + after.at(i);
    return sum;
  });
  EXPECT_EQ(block.checksums, 3 + 4 + 1);  // x, y, z, four fields and the header
  EXPECT_EQ(elements, s.K);
  ASSERT_EQ(block.K, rows);
  EXPECT_EQ(block.names, s.names);
  EXPECT_EQ(block.time, s.time);
  EXPECT_EQ(block.step, s.step);
  EXPECT_EQ(block.plan, s.plan);
  const std::size_t Np = static_cast<std::size_t>(s.Np), K = static_cast<std::size_t>(s.K), R = static_cast<std::size_t>(rows);
  const std::size_t f = static_cast<std::size_t>(first);
  for (std::size_t i = 0; i < R * Np; ++i) {
    ASSERT_EQ(block.x[i], s.x[f * Np + i]);
    ASSERT_EQ(block.z[i], s.z[f * Np + i]);
  }
  const Solution whole = read_solution(dir / "s.h5");
  for (std::size_t c = 0; c < s.names.size(); ++c)
    for (std::size_t i = 0; i < R * Np; ++i) ASSERT_EQ(block.values[c * R * Np + i], whole.values[(c * K + f) * Np + i]);
  const Solution header = read_solution_rows(dir / "s.h5", 0, 0, elements, {});
  EXPECT_EQ(header.K, 0);
  EXPECT_TRUE(header.values.empty());
  EXPECT_EQ(elements, s.K);
  try {
    (void)read_solution_rows(dir / "s.h5", s.K - 1, 2, elements, [](const std::vector<std::uint64_t>& p) { return p; });
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("are not within its " + std::to_string(s.K) + " elements"), std::string::npos)
        << e.what();
  }
}

TEST(Hdf5Solution, FloatRoundTripIsBitExact) {
  TempDir dir;
  const Solution s = example(3, 3, "float");
  write_solution(dir / "s.h5", s);
  expect_identical(s, read_solution(dir / "s.h5"));
  EXPECT_EQ(stored_size(dir / "s.h5", "/fields/rho"), 4u);
  EXPECT_EQ(stored_size(dir / "s.h5", "/coordinates/x"), 8u);  // coordinates stay double
}

TEST(Hdf5Solution, FloatPrecisionRoundsDoublesToFloat) {
  TempDir dir;
  Solution s = example(2, 2, "double");
  s.precision = "float";
  s.values[3] = 1.0;  // finite values only
  write_solution(dir / "s.h5", s);
  const Solution back = read_solution(dir / "s.h5");
  for (std::size_t i = 0; i < s.values.size(); ++i) {
    ASSERT_EQ(back.values[i], static_cast<double>(static_cast<float>(s.values[i]))) << i;
  }
}

TEST(Hdf5Solution, OverwritesAnExistingFile) {
  TempDir dir;
  Solution s = example(2, 2, "double");
  write_solution(dir / "s.h5", s);
  s.step = 99;
  s.values.assign(s.values.size(), 2.5);
  write_solution(dir / "s.h5", s);
  expect_identical(s, read_solution(dir / "s.h5"));
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"s.h5"});
}

// A write that fails half-way (the disk fills up: here a file size limit) leaves the old file
// as it was and no temporary behind.
TEST(Hdf5Solution, FailedWriteLeavesTheOldFileIntact) {
  TempDir dir;
  const Solution old = example(2, 2, "double");
  write_solution(dir / "s.h5", old);

  const Solution big = example(3, 4, "double", 3);
  ASSERT_GT(big.values.size() * sizeof(double), 100000u);
  rlimit saved{};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &saved), 0);
  const auto previous = std::signal(SIGXFSZ, SIG_IGN);
  rlimit limited = saved;
  limited.rlim_cur = 64 * 1024;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &limited), 0);
  std::string message;
  try {
    write_solution(dir / "s.h5", big);
  } catch (const Error& e) {
    message = e.what();
  }
  setrlimit(RLIMIT_FSIZE, &saved);
  std::signal(SIGXFSZ, previous);

  EXPECT_NE(message.find((dir / "s.h5").string()), std::string::npos) << message;
  expect_identical(old, read_solution(dir / "s.h5"));
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"s.h5"});
}

TEST(Hdf5Solution, InvalidSolutionsAreRefusedBeforeWriting) {
  TempDir dir;
  const Solution good = example(2, 2, "double");
  write_solution(dir / "s.h5", good);
  const auto refused = [&](Solution s, const std::string& expected) {
    try {
      write_solution(dir / "s.h5", s);
      ADD_FAILURE() << "no error; expected " << expected;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
    }
  };
  Solution s = good;
  s.values.pop_back();
  refused(s, "values has");
  s = good;
  s.names[1] = "E.x";
  refused(s, "appears twice");
  s = good;
  s.names[1] = "E/y";
  refused(s, "'E/y'");
  s = good;
  s.precision = "half";
  refused(s, "precision 'half'");
  s = good;
  s.Np = 7;
  refused(s, "Np = 7");
  s = good;
  s.z = s.x;
  refused(s, "z has");
  expect_identical(good, read_solution(dir / "s.h5"));
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"s.h5"});
}

TEST(Hdf5Solution, WritingIntoAMissingFolderFails) {
  TempDir dir;
  try {
    write_solution(dir / "missing" / "s.h5", example(2, 1, "double"));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("missing/s.h5"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(dir.entries().empty());
}

TEST(Hdf5Solution, ReadErrorsNameTheFileAndTheProblem) {
  TempDir dir;
  EXPECT_NE(error_of(dir / "none.h5").find("none.h5: no such file"), std::string::npos);

  std::ofstream(dir / "text.h5") << "hello\n";
  EXPECT_NE(error_of(dir / "text.h5").find("text.h5: not an HDF5 file"), std::string::npos) << error_of(dir / "text.h5");

  mesh::write_hdf5(test::box_mesh(2, 1), dir / "mesh.h5");
  const std::string mesh_error = error_of(dir / "mesh.h5");
  EXPECT_NE(mesh_error.find("not an rtdg solution"), std::string::npos) << mesh_error;
  EXPECT_NE(mesh_error.find("rtdg mesh"), std::string::npos) << mesh_error;
}

// Writes a good file, lets `edit` damage it with the HDF5 API, returns read_solution's error.
template <class Edit>
std::string damaged(const TempDir& dir, Edit edit) {
  const std::filesystem::path file = dir / "damaged.h5";
  write_solution(file, example(2, 2, "double"));
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  edit(f);
  H5Fclose(f);
  return error_of(file);
}

TEST(Hdf5Solution, ReadErrorsForDamagedFiles) {
  TempDir dir;
  std::string e = damaged(dir, [](hid_t f) {
    const hid_t a = H5Aopen(f, "version", H5P_DEFAULT);
    const int two = 2;
    H5Awrite(a, H5T_NATIVE_INT, &two);
    H5Aclose(a);
  });
  EXPECT_NE(e.find("version 2"), std::string::npos) << e;
  EXPECT_NE(e.find("newer"), std::string::npos) << e;

  e = damaged(dir, [](hid_t f) { H5Ldelete(f, "/fields/E.y", H5P_DEFAULT); });
  EXPECT_NE(e.find("damaged.h5"), std::string::npos) << e;
  EXPECT_NE(e.find("dataset '/fields/E.y' is missing"), std::string::npos) << e;

  e = damaged(dir, [](hid_t f) {
    H5Ldelete(f, "/coordinates/x", H5P_DEFAULT);
    const hsize_t dims[2] = {3, 4};
    const hid_t space = H5Screate_simple(2, dims, nullptr);
    const hid_t d = H5Dcreate2(f, "/coordinates/x", H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dclose(d);
    H5Sclose(space);
  });
  EXPECT_NE(e.find("dataset '/coordinates/x' has shape [3][4], expected [8][6]"), std::string::npos) << e;

  e = damaged(dir, [](hid_t f) {
    H5Ldelete(f, "/fields/H.z", H5P_DEFAULT);
    const hsize_t dims[2] = {8, 6};
    const hid_t space = H5Screate_simple(2, dims, nullptr);
    const hid_t d = H5Dcreate2(f, "/fields/H.z", H5T_STD_I32LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dclose(d);
    H5Sclose(space);
  });
  EXPECT_NE(e.find("dataset '/fields/H.z' does not hold floating-point numbers"), std::string::npos) << e;

  e = damaged(dir, [](hid_t f) { H5Adelete(f, "field_names"); });
  EXPECT_NE(e.find("attribute 'field_names' is missing"), std::string::npos) << e;
}

// Replaces the root attribute "node_set" (a variable-length string, as rtdg writes it), or
// deletes it when `value` is empty: what a file of an older rtdg looks like.
void set_node_set(const std::filesystem::path& file, const std::string& value) {
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  if (H5Aexists(f, "node_set") > 0) H5Adelete(f, "node_set");
  if (!value.empty()) {
    const hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, H5T_VARIABLE);
    H5Tset_cset(type, H5T_CSET_UTF8);
    const hid_t space = H5Screate(H5S_SCALAR);
    const hid_t a = H5Acreate2(f, "node_set", type, space, H5P_DEFAULT, H5P_DEFAULT);
    const char* text = value.c_str();
    H5Awrite(a, type, &text);
    H5Aclose(a);
    H5Sclose(space);
    H5Tclose(type);
  }
  H5Fclose(f);
}

std::string restart_error(const std::filesystem::path& file) {
  try {
    check_restart_nodes(file, read_solution(file));
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Hdf5Solution, FilesRecordTheirNodeSet) {
  TempDir dir;
  write_solution(dir / "s.h5", example(2, 6, "double"));
  EXPECT_EQ(read_node_set(dir / "s.h5"), "warp_blend_v2");
  EXPECT_EQ(kNodeSet, "warp_blend_v2");
  // A file of an rtdg from before the attribute: the old node set, and it still reads.
  set_node_set(dir / "s.h5", "");
  EXPECT_EQ(read_node_set(dir / "s.h5"), "warp_blend_v1");
  EXPECT_NO_THROW(read_solution(dir / "s.h5"));
  try {
    read_node_set(dir / "none.h5");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("none.h5: no such file"), std::string::npos) << e.what();
  }
}

TEST(Hdf5Solution, OnlyTheOrderSixTriangleNodesChangedSinceTheOldNodeSet) {
  for (dg::Shape shape : {dg::Shape::interval, dg::Shape::triangle, dg::Shape::tetrahedron}) {
    for (int N = 1; N <= 10; ++N) {
      EXPECT_TRUE(node_set_matches(kNodeSet, shape, N));
      EXPECT_EQ(node_set_matches(kLegacyNodeSet, shape, N), !(shape == dg::Shape::triangle && N == 6))
          << dg::shape_name(shape) << " N " << N;
      EXPECT_FALSE(node_set_matches("warp_blend_v9", shape, N));
      EXPECT_FALSE(node_set_matches("", shape, N));
    }
  }
}

// Issue 14: a checkpoint of triangles of order 6 written before the node fix (no node_set
// attribute) holds values at other nodes; a restart must refuse it, saying why and what to do.
TEST(Hdf5Solution, RestartRefusesAnOldOrderSixTriangleCheckpoint) {
  TempDir dir;
  const std::filesystem::path file = dir / "checkpoint_000000017.h5";
  write_solution(file, example(2, 6, "double"));
  EXPECT_EQ(restart_error(file), "(no error)");  // this rtdg's own order-6 checkpoint

  set_node_set(file, "");
  const std::string e = restart_error(file);
  EXPECT_EQ(e.rfind(file.string() + ": cannot restart from this checkpoint: ", 0), 0u) << e;
  EXPECT_NE(e.find("triangle nodes of order 6 of rtdg before issue 14"), std::string::npos) << e;
  EXPECT_NE(e.find("node set 'warp_blend_v1', alpha = 0.9808; a file without a node_set attribute has them"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("node set 'warp_blend_v2', alpha = 0.9800"), std::string::npos) << e;
  EXPECT_NE(e.find("Finish the run with the rtdg that wrote the checkpoint (its rtdg_version attribute says 0.1.0)"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("start it again from t = 0 with this rtdg: rtdg run <output folder>/config.toml --overwrite"),
            std::string::npos)
      << e;

  set_node_set(file, "warp_blend_v1");  // the same, said explicitly
  EXPECT_NE(restart_error(file).find("before issue 14"), std::string::npos);
}

TEST(Hdf5Solution, OldCheckpointsOfOtherShapesAndOrdersStillRestart) {
  TempDir dir;
  struct Case { int dim, N; };
  for (const Case c : {Case{2, 1}, Case{2, 5}, Case{2, 7}, Case{3, 6}, Case{3, 2}}) {
    const std::filesystem::path file = dir / "old.h5";
    write_solution(file, example(c.dim, c.N, "double"));
    set_node_set(file, "");
    EXPECT_EQ(restart_error(file), "(no error)") << "dim " << c.dim << " N " << c.N;
  }
}

TEST(Hdf5Solution, RestartRefusesAnUnknownNodeSet) {
  TempDir dir;
  const std::filesystem::path file = dir / "s.h5";
  write_solution(file, example(3, 2, "double"));
  set_node_set(file, "warp_blend_v9");
  EXPECT_EQ(read_node_set(file), "warp_blend_v9");
  const std::string e = restart_error(file);
  EXPECT_NE(e.find(file.string() + ": cannot restart from this checkpoint: its values sit at the nodes of node set "
                                   "'warp_blend_v9', which this rtdg does not know (it uses 'warp_blend_v2'"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("rtdg run <output folder>/config.toml --overwrite"), std::string::npos) << e;
}

TEST(Hdf5Solution, MakeSolutionCopiesTheDiscretization) {
  const dg::Discretization d = dg::discretize(test::box_mesh(3, 1), 2);
  const Solution s = make_solution(d);
  EXPECT_EQ(s.shape, dg::Shape::tetrahedron);
  EXPECT_EQ(s.K, d.K);
  EXPECT_EQ(s.Np, 10);
  ASSERT_EQ(s.z.size(), static_cast<std::size_t>(d.K * 10));
  for (int k = 0; k < d.K; ++k) {
    for (int i = 0; i < 10; ++i) {
      EXPECT_EQ(s.y[static_cast<std::size_t>(k * 10 + i)], d.y(i, k));
      EXPECT_EQ(s.z[static_cast<std::size_t>(k * 10 + i)], d.z(i, k));
    }
  }
}

}  // namespace
}  // namespace rtdg::output
