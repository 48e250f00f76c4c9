// A .msh file is read only as far as its size allows: counts that are not whole numbers or that
// the file cannot hold are refused with the file, line and column, before Gmsh allocates by
// them. Every flavour Gmsh writes still reads. Skipped without the Gmsh SDK.
#include "fixtures.hpp"

#include <mesh/error.hpp>
#include <mesh/gmsh_io.hpp>
#include <mesh/load.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <string>

namespace rtdg::mesh {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using testing::TemporaryFolder;
using testing::write_text;

class MshBounds : public ::testing::Test {
protected:
  void SetUp() override {
    if (!have_gmsh()) GTEST_SKIP() << "built without the Gmsh SDK";
  }
};

std::string load_error(const std::filesystem::path& file) {
  try {
    load_mesh(file);
  } catch (const MeshError& error) {
    return error.what();
  }
  return "";
}

// The 2-triangle square of MSH 2.2 with `nodes` as the $Nodes count line (line 8).
std::string square(const std::string& nodes) {
  return "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$PhysicalNames\n2\n1 1 \"walls\"\n2 2 \"domain\"\n$EndPhysicalNames\n"
         "$Nodes\n" + nodes + "\n1 0 0 0\n2 1 0 0\n3 1 1 0\n4 0 1 0\n$EndNodes\n$Elements\n6\n1 1 2 1 1 1 2\n"
         "2 1 2 1 1 2 3\n3 1 2 1 1 3 4\n4 1 2 1 1 4 1\n11 2 2 2 1 1 2 3\n12 2 2 2 1 1 3 4\n$EndElements\n";
}

TEST_F(MshBounds, TheSquareReads) {
  const TemporaryFolder folder;
  write_text(folder / "square.msh", square("4"));
  EXPECT_EQ(load_mesh(folder / "square.msh").num_elements(), 2);
}

TEST_F(MshBounds, ACountInScientificNotationIsNamedWhereItIs) {
  const TemporaryFolder folder;
  write_text(folder / "e.msh", square("1e12"));
  EXPECT_EQ(load_error(folder / "e.msh"), (folder / "e.msh").string() +
                                              ":10:1: '1e12' after $Nodes is not a whole number: MSH counts and tags "
                                              "are written as integers (the file is damaged, or was not written by Gmsh)");
}

TEST_F(MshBounds, ACountTheFileCannotHoldIsRefusedBeforeGmshAllocates) {
  const TemporaryFolder folder;
  write_text(folder / "big.msh", square("1000000000000"));
  const std::string error = load_error(folder / "big.msh");
  EXPECT_THAT(error, StartsWith((folder / "big.msh").string() + ":10:1: $Nodes declares 1000000000000 nodes, more "
                                                                "than a file of "));
  EXPECT_THAT(error, HasSubstr("the file is truncated or damaged"));
  // The elements too, in MSH 4.1 (blocks, count, tags).
  const std::string msh4 =
      "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n1 3 1 3\n2 1 0 3\n1\n2\n3\n0 0 0\n1 0 0\n0 1 0\n$EndNodes\n"
      "$Elements\n1 99999999999 1 1\n2 1 2 1\n1 1 2 3\n$EndElements\n";
  write_text(folder / "big4.msh", msh4);
  EXPECT_THAT(load_error(folder / "big4.msh"),
              StartsWith((folder / "big4.msh").string() + ":15:1: $Elements declares 99999999999 elements"));
}

// The other counts Gmsh reads a section by: $PhysicalNames (any version) and $Entities (MSH 4).
TEST_F(MshBounds, PhysicalNamesAndEntitiesAreBoundedToo) {
  const TemporaryFolder folder;
  std::string text = square("4");
  text.replace(text.find("$PhysicalNames\n2\n"), 17, "$PhysicalNames\n2000000000\n");
  write_text(folder / "names.msh", text);
  EXPECT_THAT(load_error(folder / "names.msh"),
              StartsWith((folder / "names.msh").string() + ":5:1: $PhysicalNames declares 2000000000 physical names"));
  write_text(folder / "entities.msh", "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Entities\n3 0 1e9 0\n");
  EXPECT_EQ(load_error(folder / "entities.msh"),
            (folder / "entities.msh").string() +
                ":5:5: '1e9' after $Entities is not a whole number: MSH counts and tags are written as integers (the "
                "file is damaged, or was not written by Gmsh)");
}

TEST_F(MshBounds, ABadFormatLineIsNamed) {
  const TemporaryFolder folder;
  write_text(folder / "v9.msh", "$MeshFormat\n9.0 0 8\n$EndMeshFormat\n");
  EXPECT_THAT(load_error(folder / "v9.msh"),
              StartsWith((folder / "v9.msh").string() + ":2:1: the $MeshFormat line '9.0 0 8' is not"));
}

// A binary MSH 4.1 file whose node count was overwritten: refused at its $Nodes line.
TEST_F(MshBounds, BinaryCountsAreCheckedToo) {
  const TemporaryFolder folder;
  write_msh(testing::geometries() / "square.geo", {{"h", 0.5}}, folder / "bin.msh", {4.1, true});
  EXPECT_GT(load_mesh(folder / "bin.msh").num_elements(), 0);
  std::fstream file(folder / "bin.msh", std::ios::in | std::ios::out | std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  const std::size_t nodes = text.find("\n$Nodes\n");
  ASSERT_NE(nodes, std::string::npos);
  const long long line = 1 + std::count(text.begin(), text.begin() + static_cast<long long>(nodes) + 1, '\n');
  const unsigned long long huge = 1ULL << 50;
  file.seekp(static_cast<std::streamoff>(nodes + 8 + 8));  // past the block count: the node count
  file.write(reinterpret_cast<const char*>(&huge), sizeof huge);
  file.close();
  EXPECT_THAT(load_error(folder / "bin.msh"),
              StartsWith((folder / "bin.msh").string() + ":" + std::to_string(line) + ":1: $Nodes declares " +
                         std::to_string(huge) + " nodes"));
}

}  // namespace
}  // namespace rtdg::mesh
