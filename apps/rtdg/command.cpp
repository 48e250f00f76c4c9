#include "rtdg/command.hpp"

namespace rtdg::app {

std::vector<CommandSetup>& command_setups() {
  static std::vector<CommandSetup> setups;
  return setups;
}

}  // namespace rtdg::app
