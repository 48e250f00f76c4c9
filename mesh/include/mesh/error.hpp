// The one error type of the mesh module. what() is a complete message for a user: it names
// the file (or "<memory>" for a mesh built in memory) and the culprit (element number and
// signed volume, face vertices, physical group, parameter name).
#pragma once

#include <stdexcept>
#include <string>

namespace rtdg::mesh {

class MeshError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

}  // namespace rtdg::mesh
