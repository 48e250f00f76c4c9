// Errors raised by the dg layer (reference elements, discretization). Every message is
// complete for a user: it says what was wrong, the value found and what is allowed.
#pragma once

#include <stdexcept>

namespace rtdg::dg {

class Error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

}  // namespace rtdg::dg
