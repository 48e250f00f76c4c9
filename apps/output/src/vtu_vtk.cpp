// write_vtu with VTK: Lagrange cells on the equispaced lattice of each element (vtu.hpp).
#include "output/vtu.hpp"

#include "support.hpp"

#include <dg/element.hpp>
#include <dg/equispaced.hpp>

#include <vtkCellArray.h>
#include <vtkCellType.h>
#include <vtkDataArray.h>
#include <vtkDoubleArray.h>
#include <vtkErrorCode.h>
#include <vtkFieldData.h>
#include <vtkFloatArray.h>
#include <vtkIdTypeArray.h>
#include <vtkNew.h>
#include <vtkPointData.h>
#include <vtkPoints.h>
#include <vtkSmartPointer.h>
#include <vtkTypeInt64Array.h>
#include <vtkUnsignedCharArray.h>
#include <vtkUnstructuredGrid.h>
#include <vtkXMLUnstructuredGridWriter.h>

#include <Eigen/Dense>

namespace rtdg::output {
namespace {

using detail::fail;
using detail::ix;
using Matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic>;
using ConstMap = Eigen::Map<const Matrix>;

unsigned char cell_type(dg::Shape shape) {
  switch (shape) {
    case dg::Shape::interval: return VTK_LAGRANGE_CURVE;
    case dg::Shape::triangle: return VTK_LAGRANGE_TRIANGLE;
    case dg::Shape::tetrahedron: return VTK_LAGRANGE_TETRAHEDRON;
  }
  return VTK_EMPTY_CELL;
}

vtkSmartPointer<vtkUnstructuredGrid> make_grid(const Solution& s) {
  const int N = s.N;
  const dg::Element element = dg::make_element(s.shape, N);
  const Matrix lattice = dg::equispaced_interpolation(element, N);
  const std::vector<int> perm = dg::vtk_lagrange_permutation(s.shape, N);
  // Interpolation straight to VTK's point order: row j is lattice row perm[j].
  Matrix P(lattice.rows(), lattice.cols());
  for (Eigen::Index j = 0; j < P.rows(); ++j) P.row(j) = lattice.row(perm[static_cast<std::size_t>(j)]);
  const Eigen::Index nl = P.rows();
  const vtkIdType points_per_cell = static_cast<vtkIdType>(nl);
  const vtkIdType num_points = points_per_cell * s.K;

  // Np x K nodal values -> nl x K lattice values; column k's points are k * nl ... in VTK order.
  const auto on_lattice = [&](const double* nodal) -> Matrix {
    if (s.K == 0) return Matrix(nl, 0);
    return P * ConstMap(nodal, s.Np, s.K);
  };

  auto grid = vtkSmartPointer<vtkUnstructuredGrid>::New();
  vtkNew<vtkDoubleArray> xyz;
  xyz->SetNumberOfComponents(3);
  xyz->SetNumberOfTuples(num_points);
  double* out = xyz->GetPointer(0);
  for (int d = 0; d < 3; ++d) {
    if (d >= s.dim) {
      for (vtkIdType p = 0; p < num_points; ++p) out[3 * p + d] = 0.0;
      continue;
    }
    const Matrix coordinate = on_lattice(d == 0 ? s.x.data() : d == 1 ? s.y.data() : s.z.data());
    for (vtkIdType p = 0; p < num_points; ++p) out[3 * p + d] = coordinate.data()[p];
  }
  vtkNew<vtkPoints> points;
  points->SetData(xyz);
  grid->SetPoints(points);

  vtkNew<vtkIdTypeArray> offsets;
  vtkNew<vtkIdTypeArray> connectivity;
  offsets->SetNumberOfTuples(s.K + 1);
  connectivity->SetNumberOfTuples(num_points);
  for (vtkIdType k = 0; k <= s.K; ++k) offsets->SetValue(k, k * points_per_cell);
  for (vtkIdType p = 0; p < num_points; ++p) connectivity->SetValue(p, p);
  vtkNew<vtkCellArray> cells;
  cells->SetData(offsets, connectivity);
  vtkNew<vtkUnsignedCharArray> types;
  types->SetNumberOfTuples(s.K);
  types->FillValue(cell_type(s.shape));
  grid->SetCells(types, cells);

  const bool single = s.precision == "float";
  std::vector<Matrix> lattice_values(s.names.size());
  for (const PointArray& array : point_arrays(s.names, s.dim)) {
    vtkSmartPointer<vtkDataArray> data;
    if (single) {
      data = vtkSmartPointer<vtkFloatArray>::New();
    } else {
      data = vtkSmartPointer<vtkDoubleArray>::New();
    }
    data->SetName(array.name.c_str());
    const int ncomp = static_cast<int>(array.components.size());
    data->SetNumberOfComponents(ncomp);
    data->SetNumberOfTuples(num_points);
    for (int c = 0; c < ncomp; ++c) {
      const int component = array.components[ix(c)];
      if (component < 0) {
        data->FillComponent(c, 0.0);
        continue;
      }
      const Matrix values = on_lattice(component_values(s, ix(component)));
      for (vtkIdType p = 0; p < num_points; ++p) data->SetComponent(p, c, values.data()[p]);
    }
    grid->GetPointData()->AddArray(data);
  }

  vtkNew<vtkDoubleArray> time;
  time->SetName("TIME");
  time->InsertNextValue(s.time);
  grid->GetFieldData()->AddArray(time);
  vtkNew<vtkTypeInt64Array> cycle;
  cycle->SetName("CYCLE");
  cycle->InsertNextValue(static_cast<vtkTypeInt64>(s.step));
  grid->GetFieldData()->AddArray(cycle);
  return grid;
}

}  // namespace

bool vtu_available() { return true; }

void write_vtu(const std::filesystem::path& file, const Solution& solution) {
  const std::string source = file.string();
  check_solution(solution, source);
  if (solution.N > dg::max_order) {
    fail(source, "order N = " + std::to_string(solution.N) + " is above the highest order rtdg writes (" +
                     std::to_string(dg::max_order) + ")");
  }
  const vtkSmartPointer<vtkUnstructuredGrid> grid = make_grid(solution);
  // VTK writes into memory and we write the file, as for HDF5 (hdf5_solution.cpp): every I/O
  // error is ours to report, and VTK's writer, which leaks when a file write fails, never
  // meets one.
  std::string text;
  {
    vtkNew<vtkXMLUnstructuredGridWriter> writer;
    writer->SetInputData(grid);
    writer->WriteToOutputStringOn();
    writer->SetDataModeToAppended();
    writer->EncodeAppendedDataOff();
    writer->SetCompressorTypeToZLib();
    writer->SetHeaderTypeToUInt64();
    // VTK would print its pipeline's view of a failure to stderr; the error below says it.
    const vtkTypeBool display = vtkObject::GetGlobalWarningDisplay();
    vtkObject::GlobalWarningDisplayOff();
    const int written = writer->Write();
    vtkObject::SetGlobalWarningDisplay(display);
    if (written != 1 || writer->GetErrorCode() != vtkErrorCode::NoError) {
      fail(source, std::string("VTK could not write the file (") +
                       vtkErrorCode::GetStringFromErrorCode(writer->GetErrorCode()) + ")");
    }
    text = writer->GetOutputString();
  }
  detail::write_file_atomically(file, text);
}

}  // namespace rtdg::output
