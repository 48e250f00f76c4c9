// Subcommands of `rtdg` register themselves: each cmd_<name>.cpp defines a setup function
// that adds a CLI11 subcommand with its callback, and registers it with RTDG_COMMAND.
#pragma once

#include <CLI/CLI.hpp>

#include <vector>

namespace rtdg::app {

using CommandSetup = void (*)(CLI::App& rtdg);

std::vector<CommandSetup>& command_setups();

struct CommandRegistration {
  explicit CommandRegistration(CommandSetup setup) { command_setups().push_back(setup); }
};

}  // namespace rtdg::app

#define RTDG_COMMAND(setup) \
  static const ::rtdg::app::CommandRegistration rtdg_command_registration_##setup { setup }
