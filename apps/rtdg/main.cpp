// rtdg: the command line. Errors from any layer arrive here as exceptions whose message is
// complete; print it and exit non-zero.
#include "rtdg/command.hpp"

#include <rtcg/error.hpp>

#include <cstdio>
#include <exception>
#include <iostream>

int main(int argc, char** argv) {
  CLI::App app{"rtdg: discontinuous Galerkin solvers with run-time generated kernels"};
  app.set_version_flag("--version", std::string("rtdg ") + RTDG_VERSION);
  app.require_subcommand(1);
  for (auto setup : rtdg::app::command_setups()) setup(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    std::cerr << "rtdg: error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
