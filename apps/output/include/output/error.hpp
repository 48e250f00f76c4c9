// The one error type of the output module (HDF5 solutions and checkpoints, VTU and PVD files,
// probes). what() is a complete message for a user: it names the file (and dataset, probe or
// point) and says what was wrong.
#pragma once

#include <stdexcept>

namespace rtdg::output {

class Error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

}  // namespace rtdg::output
