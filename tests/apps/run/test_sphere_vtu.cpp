// The README's default example end to end (shortened in time): sphere.toml meshes the sphere
// with Gmsh, runs on the host backend and writes VTU snapshots, which VTK's own reader must
// read back with the fields and point counts of the run.
#include "run_support.hpp"

#include <output/hdf5_solution.hpp>

#include <vtkCellData.h>
#include <vtkCellType.h>
#include <vtkDataArray.h>
#include <vtkNew.h>
#include <vtkPointData.h>
#include <vtkUnstructuredGrid.h>
#include <vtkXMLUnstructuredGridReader.h>

#include <gtest/gtest.h>

#include <fstream>

namespace rtdg::runner {
namespace {

namespace fs = std::filesystem;

TEST(SphereExample, WritesVtuThatVtkReads) {
  const fs::path dir = test::scratch();
  RunOptions options;
  options.config = test::data("maxwell/sphere.toml");
  options.overrides = {"run.backend=host", "run.output_dir=\"" + dir.string() + "\"", "time.final=0.1",
                       "output.interval=0.05", "checkpoint.interval=0"};
  test::Quiet quiet;
  const RunSummary summary = quiet.run(options);
  ASSERT_FALSE(summary.interrupted);
  ASSERT_TRUE(fs::exists(dir / "sphere.pvd"));
  const output::Solution h5 = output::read_solution(dir / "snapshots" / "sphere_0002.h5");
  EXPECT_EQ(h5.N, 3);

  vtkNew<vtkXMLUnstructuredGridReader> reader;
  const fs::path vtu = dir / "snapshots" / "sphere_0002.vtu";
  reader->SetFileName(vtu.c_str());
  reader->Update();
  vtkUnstructuredGrid* grid = reader->GetOutput();
  ASSERT_NE(grid, nullptr);
  EXPECT_EQ(grid->GetNumberOfCells(), h5.K);
  EXPECT_EQ(grid->GetNumberOfPoints(), static_cast<vtkIdType>(h5.K) * 20);  // order-3 tetrahedron: 20 points
  EXPECT_EQ(grid->GetCellType(0), VTK_LAGRANGE_TETRAHEDRON);
  for (const char* name : {"E", "H"}) {
    vtkDataArray* array = grid->GetPointData()->GetArray(name);
    ASSERT_NE(array, nullptr) << name;
    EXPECT_EQ(array->GetNumberOfComponents(), 3) << name;
    EXPECT_EQ(array->GetNumberOfTuples(), grid->GetNumberOfPoints()) << name;
  }
  // The PVD lists every snapshot: t = 0, 0.05, 0.1.
  std::ifstream pvd(dir / "sphere.pvd");
  const std::string text((std::istreambuf_iterator<char>(pvd)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("sphere_0000.vtu"), std::string::npos) << text;
  EXPECT_NE(text.find("sphere_0002.vtu"), std::string::npos) << text;
}

}  // namespace
}  // namespace rtdg::runner
