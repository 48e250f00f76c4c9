// The shared HDF5 pieces: handles close exactly once, HDF5's own error text reaches our
// messages (and nothing is appended when HDF5 has none), errors are not printed while quiet.
#include <h5/h5.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace {

using rtdg::h5::Handle;

std::filesystem::path scratch_file(const std::string& name) {
  return std::filesystem::path(testing::TempDir()) / ("rtdg_test_h5_" + name + ".h5");
}

TEST(H5, HandleClosesOnceAndMovesOwnership) {
  const std::filesystem::path file = scratch_file("handle");
  Handle a(H5Fcreate(file.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
  ASSERT_TRUE(a.valid());
  const hid_t id = a.get();
  Handle b(std::move(a));
  EXPECT_FALSE(a.valid());  // NOLINT(bugprone-use-after-move): the moved-from state is the point
  EXPECT_EQ(b.get(), id);
  EXPECT_GT(H5Iis_valid(id), 0);
  EXPECT_TRUE(b.close());
  EXPECT_FALSE(b.valid());
  EXPECT_TRUE(b.close());  // closing an empty handle is fine
  {
    const rtdg::h5::QuietErrors quiet;
    EXPECT_LE(H5Iis_valid(id), 0);
  }
  std::filesystem::remove(file);
}

TEST(H5, LastErrorNamesWhatHdf5Reported) {
  const rtdg::h5::QuietErrors quiet;
  const std::filesystem::path missing = scratch_file("missing");
  std::filesystem::remove(missing);
  const Handle file(H5Fopen(missing.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  ASSERT_FALSE(file.valid());
  EXPECT_FALSE(rtdg::h5::last_error().empty());
  const std::string message = rtdg::h5::with_last_error("cannot open");
  EXPECT_EQ(message.rfind("cannot open (HDF5: ", 0), 0u) << message;
  EXPECT_EQ(message.back(), ')') << message;
  H5Eclear2(H5E_DEFAULT);
  EXPECT_EQ(rtdg::h5::last_error(), "");
  EXPECT_EQ(rtdg::h5::with_last_error("cannot open"), "cannot open");
}

TEST(H5, QuietErrorsRestoresThePreviousHandler) {
  H5E_auto2_t before = nullptr;
  void* before_data = nullptr;
  H5Eget_auto2(H5E_DEFAULT, &before, &before_data);
  {
    const rtdg::h5::QuietErrors quiet;
    H5E_auto2_t during = nullptr;
    void* during_data = nullptr;
    H5Eget_auto2(H5E_DEFAULT, &during, &during_data);
    EXPECT_EQ(during, nullptr);
  }
  H5E_auto2_t after = nullptr;
  void* after_data = nullptr;
  H5Eget_auto2(H5E_DEFAULT, &after, &after_data);
  EXPECT_EQ(after, before);
  EXPECT_EQ(after_data, before_data);
}

TEST(H5, ShapeText) {
  EXPECT_EQ(rtdg::h5::shape_text({3, 4}), "[3][4]");
  EXPECT_EQ(rtdg::h5::shape_text({rtdg::h5::kAny, 3}), "[*][3]");
  EXPECT_EQ(rtdg::h5::shape_text({}), "scalar");
}

TEST(H5, StringTypesAreUtf8OfTheGivenSize) {
  const Handle fixed = rtdg::h5::string_type(7);
  EXPECT_EQ(H5Tget_size(fixed.get()), 7u);
  EXPECT_EQ(H5Tget_cset(fixed.get()), H5T_CSET_UTF8);
  const Handle variable = rtdg::h5::string_type(H5T_VARIABLE);
  EXPECT_GT(H5Tis_variable_str(variable.get()), 0);
}

TEST(H5, OpenReadOnlySaysWhyNot) {
  std::string problem;
  const std::filesystem::path missing = scratch_file("absent");
  std::filesystem::remove(missing);
  EXPECT_FALSE(rtdg::h5::open_read_only(missing, problem).valid());
  EXPECT_EQ(problem, "no such file");

  const std::filesystem::path text = scratch_file("text");
  std::ofstream(text) << "not HDF5\n";
  problem.clear();
  EXPECT_FALSE(rtdg::h5::open_read_only(text, problem).valid());
  EXPECT_EQ(problem, "not an HDF5 file");
  std::filesystem::remove(text);

  const std::filesystem::path good = scratch_file("good");
  Handle(H5Fcreate(good.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose).close();
  problem.clear();
  EXPECT_TRUE(rtdg::h5::open_read_only(good, problem).valid());
  EXPECT_EQ(problem, "");
  std::filesystem::remove(good);
}

// Writes `values` as a 1D string attribute of type `type` on the file's root, reads it back.
std::vector<std::string> round_trip(hid_t file, const char* name, const Handle& type, const void* data, hsize_t count) {
  const Handle space(H5Screate_simple(1, &count, nullptr), H5Sclose);
  const Handle attribute(H5Acreate2(file, name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  EXPECT_GE(H5Awrite(attribute.get(), type.get(), data), 0);
  const Handle file_type(H5Aget_type(attribute.get()), H5Tclose);
  std::vector<std::string> values;
  const auto read = [&](hid_t memory, void* buffer) { return H5Aread(attribute.get(), memory, buffer); };
  EXPECT_TRUE(rtdg::h5::read_string_values(file_type.get(), count, read, values));
  return values;
}

TEST(H5, ReadsVariableAndFixedLengthStrings) {
  const std::filesystem::path path = scratch_file("strings");
  const Handle file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
  ASSERT_TRUE(file.valid());
  const char* variable[] = {"E.x", "", "H.z \u00b5"};
  EXPECT_EQ(round_trip(file.get(), "variable", rtdg::h5::string_type(H5T_VARIABLE), variable, 3),
            (std::vector<std::string>{"E.x", "", "H.z \u00b5"}));
  // Fixed length 4: "ab" is NUL-padded, "wxyz" fills its slot with no terminator.
  const char fixed[] = {'a', 'b', '\0', '\0', 'w', 'x', 'y', 'z'};
  EXPECT_EQ(round_trip(file.get(), "fixed", rtdg::h5::string_type(4), fixed, 2), (std::vector<std::string>{"ab", "wxyz"}));
  std::vector<std::string> values{"left over"};
  EXPECT_TRUE(rtdg::h5::read_string_values(H5T_C_S1, 0, [](hid_t, void*) -> herr_t { return -1; }, values));
  EXPECT_TRUE(values.empty());
  EXPECT_FALSE(rtdg::h5::read_string_values(H5T_C_S1, 2, [](hid_t, void*) -> herr_t { return -1; }, values));
  std::filesystem::remove(path);
}

}  // namespace
