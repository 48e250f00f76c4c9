// The shared HDF5 pieces: handles close exactly once, HDF5's own error text reaches our
// messages (and nothing is appended when HDF5 has none), errors are not printed while quiet.
#include <h5/h5.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

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

}  // namespace
