// Solution files prove themselves: a checksum per dataset and one over the attributes a restart
// trusts (hdf5_solution.hpp); a damaged or truncated file is refused with its name and what is
// wrong, a FIFO is not read at all.
#include "test_support.hpp"

#include <output/error.hpp>
#include <output/hdf5_solution.hpp>

#include <gtest/gtest.h>
#include <hdf5.h>

#include <sys/stat.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace rtdg::output {
namespace {

using test::TempDir;

Solution small(const std::string& precision) {
  const dg::Discretization discretization = dg::discretize(test::box_mesh(2, 2, 0.1), 2);
  Solution s = test::sample(discretization, {"E.x", "E.y", "H.z"},
                            {test::random_polynomial(2, 3), test::random_polynomial(2, 4), test::random_polynomial(2, 5)});
  if (precision == "float")
    for (double& v : s.values) v = static_cast<double>(static_cast<float>(v));
  s.precision = precision;
  s.time = 0.1;
  s.step = 7;
  s.dt = 1.0 / 64;
  s.extras["sums"] = {1.0, 2.5, -3.0};
  return s;
}

std::string error_of(const std::filesystem::path& file) {
  try {
    read_solution(file);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

// Flips one bit of element `index` of a float64 or float32 dataset in place (HDF5 API).
void flip_bit(const std::filesystem::path& file, const char* dataset, std::size_t index, int bit) {
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  const hid_t d = H5Dopen2(f, dataset, H5P_DEFAULT);
  const hid_t type = H5Dget_type(d);
  const std::size_t size = H5Tget_size(type);
  const hid_t space = H5Dget_space(d);
  const auto count = static_cast<std::size_t>(H5Sget_simple_extent_npoints(space));
  std::vector<unsigned char> bytes(count * size);
  const hid_t memory = size == 4 ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE;
  H5Dread(d, memory, H5S_ALL, H5S_ALL, H5P_DEFAULT, bytes.data());
  bytes[index * size + static_cast<std::size_t>(bit / 8)] ^= static_cast<unsigned char>(1u << (bit % 8));
  H5Dwrite(d, memory, H5S_ALL, H5S_ALL, H5P_DEFAULT, bytes.data());
  H5Sclose(space);
  H5Tclose(type);
  H5Dclose(d);
  H5Fclose(f);
}

TEST(SolutionChecksums, EveryDatasetAndTheHeaderAreVerifiedOnRead) {
  TempDir dir;
  for (const char* precision : {"double", "float"}) {
    write_solution(dir / "good.h5", small(precision));
    const Solution back = read_solution(dir / "good.h5");
    // x, y, three fields, one extra, the header.
    EXPECT_EQ(back.checksums, 7) << precision;
  }
}

TEST(SolutionChecksums, AFlippedMantissaBitIsCaughtAndNamed) {
  TempDir dir;
  for (const char* precision : {"double", "float"}) {
    const auto file = dir / (std::string(precision) + ".h5");
    write_solution(file, small(precision));
    flip_bit(file, "/fields/H.z", 5, 0);  // the lowest mantissa bit: a tiny change of one value
    const std::string e = error_of(file);
    EXPECT_EQ(e.rfind(file.string() + ": dataset '/fields/H.z' does not match its checksum (stored sum64:", 0), 0u) << e;
    EXPECT_NE(e.find("restart from another checkpoint"), std::string::npos) << e;
  }
  write_solution(dir / "coordinates.h5", small("double"));
  flip_bit(dir / "coordinates.h5", "/coordinates/y", 0, 40);
  EXPECT_NE(error_of(dir / "coordinates.h5").find("dataset '/coordinates/y' does not match its checksum"), std::string::npos);
  write_solution(dir / "extras.h5", small("double"));
  flip_bit(dir / "extras.h5", "/extras/sums", 2, 63);
  EXPECT_NE(error_of(dir / "extras.h5").find("dataset '/extras/sums' does not match its checksum"), std::string::npos);
}

// Two readers of a file by rows (the ranks of a parallel restart): each sums its block's terms,
// the sums are added, and the whole dataset is verified; a flipped bit in either block is found
// by both readers and named with the file and dataset.
using Sums = std::vector<std::uint64_t>;

// What a reader of rows [first, first + rows) hands to sum_over_readers (its read then fails
// unless its block is the whole file: those sums are not the whole dataset's).
Sums partial_sums(const std::filesystem::path& file, long long first, int rows) {
  Sums partial;
  int elements = 0;
  try {
    (void)read_solution_rows(file, first, rows, elements, [&](const Sums& p) { return partial = p; });
  } catch (const Error&) {
  }
  return partial;
}

// Each reader's error ("" when it read), the two sums added as an all-reduce would.
std::vector<std::string> read_in_two_blocks(const std::filesystem::path& file, int K, int& checksums) {
  const std::array<long long, 2> first{0, K / 3};
  const std::array<int, 2> rows{K / 3, K - K / 3};
  const std::array<Sums, 2> partial{partial_sums(file, first[0], rows[0]), partial_sums(file, first[1], rows[1])};
  std::vector<std::string> errors;
  for (std::size_t reader = 0; reader < 2; ++reader) {
    int elements = 0;
    try {
      const Solution block = read_solution_rows(file, first[reader], rows[reader], elements, [&](const Sums& mine) {
        Sums total = mine;
        for (std::size_t i = 0; i < total.size(); ++i) total[i] += partial[1 - reader].at(i);
        return total;
      });
      checksums = block.checksums;
      errors.emplace_back();
    } catch (const Error& e) {
      errors.emplace_back(e.what());
    }
  }
  return errors;
}

TEST(SolutionChecksums, BlocksOfRowsAreVerifiedTogether) {
  TempDir dir;
  for (const char* precision : {"double", "float"}) {
    const Solution s = small(precision);
    const auto file = dir / (std::string("rows-") + precision + ".h5");
    write_solution(file, s);
    int checksums = 0;
    EXPECT_EQ(read_in_two_blocks(file, s.K, checksums), (std::vector<std::string>{"", ""})) << precision;
    EXPECT_EQ(checksums, 7) << precision;  // x, y, three fields, one extra, the header
    // A bit of a value in the second block (the last value of H.z).
    flip_bit(file, "/fields/H.z", static_cast<std::size_t>(s.K * s.Np - 1), 0);
    for (const std::string& e : read_in_two_blocks(file, s.K, checksums))
      EXPECT_EQ(e.rfind(file.string() + ": dataset '/fields/H.z' does not match its checksum (stored sum64:", 0), 0u)
          << precision << ": " << e;
  }
  // A block read alone, with the identity as the sum, is not the whole dataset: refused too.
  write_solution(dir / "alone.h5", small("double"));
  int elements = 0;
  try {
    (void)read_solution_rows(dir / "alone.h5", 1, 2, elements, [](const std::vector<std::uint64_t>& p) { return p; });
    ADD_FAILURE() << "a block's rows passed for the whole dataset";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("dataset '/coordinates/x' does not match its checksum"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)read_solution_rows(dir / "alone.h5", 1, 2, elements, {}), std::invalid_argument);
}

TEST(SolutionChecksums, AChangedStepOrTimeIsCaught) {
  TempDir dir;
  const auto file = dir / "header.h5";
  write_solution(file, small("double"));
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  const hid_t a = H5Aopen(f, "step", H5P_DEFAULT);
  const long long step = -5;
  H5Awrite(a, H5T_NATIVE_LLONG, &step);
  H5Aclose(a);
  H5Fclose(f);
  const std::string e = error_of(file);
  EXPECT_NE(e.find("its attributes (sizes, field names, time, step, dt) do not match their checksum"), std::string::npos) << e;
}

TEST(SolutionChecksums, AFileWithoutChecksumsStillReads) {
  TempDir dir;
  const auto file = dir / "old.h5";
  write_solution(file, small("double"));
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  H5Adelete(f, "header_checksum");
  H5Adelete_by_name(f, "/fields/E.x", "checksum", H5P_DEFAULT);
  H5Fclose(f);
  EXPECT_EQ(read_solution(file).checksums, 5);
}

TEST(SolutionChecksums, ATruncatedFileSaysItIsTruncated) {
  TempDir dir;
  const auto file = dir / "cut.h5";
  write_solution(file, small("double"));
  std::filesystem::resize_file(file, std::filesystem::file_size(file) / 2);
  const std::string e = error_of(file);
  EXPECT_NE(e.find(file.string() + ": an HDF5 file that cannot be opened ("), std::string::npos) << e;
  EXPECT_NE(e.find("it is most likely truncated or damaged"), std::string::npos) << e;
}

TEST(SolutionChecksums, AFifoOrAFolderIsRefusedWithoutReading) {
  TempDir dir;
  const auto fifo = dir / "fifo.h5";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_NE(error_of(fifo).find("is not a regular file (a FIFO, device or socket)"), std::string::npos) << error_of(fifo);
  std::filesystem::create_directory(dir / "folder.h5");
  EXPECT_NE(error_of(dir / "folder.h5").find("is a folder"), std::string::npos);
}

}  // namespace
}  // namespace rtdg::output

namespace rtdg::output {
namespace {

// Found by the checkpoint fuzz target: an attribute of several values where one is expected was
// read into one variable (a write past it); now it is refused by name.
TEST(SolutionChecksums, AnAttributeOfSeveralValuesIsRefused) {
  TempDir dir;
  const auto file = dir / "array.h5";
  write_solution(file, small("double"));
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  H5Adelete(f, "time");
  const hsize_t three = 3;
  const hid_t space = H5Screate_simple(1, &three, nullptr);
  const hid_t a = H5Acreate2(f, "time", H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT);
  const double values[3] = {1, 2, 3};
  H5Awrite(a, H5T_NATIVE_DOUBLE, values);
  H5Aclose(a);
  H5Sclose(space);
  H5Fclose(f);
  EXPECT_NE(error_of(file).find("attribute 'time' is not a single number"), std::string::npos) << error_of(file);
}

}  // namespace
}  // namespace rtdg::output
