// write_vtu without VTK: a clear error (this build has no VTK; see vtu.hpp).
#include "output/error.hpp"
#include "output/vtu.hpp"

namespace rtdg::output {

bool vtu_available() { return false; }

void write_vtu(const std::filesystem::path& file, const Solution&) {
  throw Error(file.string() +
              ": cannot write VTU: this rtdg was built without VTK (RTDG_WITH_VTK). Write HDF5 solutions instead and "
              "convert them on a machine whose rtdg has VTK: rtdg export solution.h5 -o solution.vtu");
}

}  // namespace rtdg::output
