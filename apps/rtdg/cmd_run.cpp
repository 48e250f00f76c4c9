// rtdg run <config.toml> [--set key=value ...] [--overwrite]
// rtdg run --restart <checkpoint.h5> [--set key=value ...] [--overwrite]
// Runs a simulation from a config file (docs/config.md), or continues one from a checkpoint.
// The work is rtdg::runner::run; this file maps the command line onto it.
#include "rtdg/command.hpp"

#include <dg/parallel.hpp>
#include <runner/run.hpp>

#include <csignal>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

namespace {

struct RunArguments {
  std::string config;
  std::string restart;
  std::vector<std::string> overrides;
  bool overwrite = false;
};

void setup_run(CLI::App& rtdg) {
  auto arguments = std::make_shared<RunArguments>();
  CLI::App* command = rtdg.add_subcommand("run", "Run a simulation from a config file, or continue one from a checkpoint");
  command->add_option("config", arguments->config, "the run's config file (TOML; see docs/config.md)")
      ->check(CLI::ExistingFile);
  command->add_option("--restart", arguments->restart, "continue the run that wrote this checkpoint (.h5)")
      ->check(CLI::ExistingFile);
  command->add_option("--set", arguments->overrides,
                      "key=value: override a config value, e.g. --set discretization.order=3 (repeatable)")
      ->allow_extra_args(false);
  command->add_flag("--overwrite", arguments->overwrite,
                    "a new run: delete the earlier run's files (only those its manifest lists); a restart from an "
                    "earlier point: delete the outputs written after the checkpoint");
  command->callback([arguments] {
    if (arguments->config.empty() == arguments->restart.empty())
      throw CLI::ValidationError("rtdg run", "give either a config file or --restart <checkpoint>, not both or neither");
    rtdg::runner::RunOptions options;
    options.config = arguments->config;
    if (!arguments->restart.empty()) options.restart = arguments->restart;
    options.overrides = arguments->overrides;
    options.overwrite = arguments->overwrite;
    options.startup_from_launch = true;
    rtdg::runner::RunSummary summary;
    try {
      summary = rtdg::runner::run(options);
    } catch (const std::exception& e) {
      // Stopped by a signal at set-up (tuning, compiling): said, then the usual 128 + signal.
      const int signal = rtdg::runner::stop_signal().load();
      if (signal == 0) throw;
      if (rtdg::dg::world().rank() == 0) std::cerr << "rtdg: error: " << e.what() << "\n";
      throw CLI::RuntimeError(128 + signal);
    }
    if (rtdg::dg::world().rank() == 0) std::cout << rtdg::runner::format_summary(summary);
    // A run stopped by a signal has saved its checkpoint; report the signal the usual way.
    if (summary.interrupted && rtdg::runner::stop_signal().load() != 0)
      throw CLI::RuntimeError(128 + rtdg::runner::stop_signal().load());
  });
}

}  // namespace

RTDG_COMMAND(setup_run);
