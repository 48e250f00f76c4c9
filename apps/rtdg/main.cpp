// rtdg: the command line. Errors from any layer arrive here as exceptions whose message is
// complete; print it and exit non-zero. Under an MPI launcher (an rtdg built with MPI) every
// rank runs this; a failure on one rank ends them all (docs/parallel.md).
#include "rtdg/command.hpp"

#include <dg/parallel.hpp>
#include <rtcg/error.hpp>
#include <runner/run.hpp>

#include <chrono>
#include <cstdio>
#include <exception>
#include <iostream>
#include <thread>

namespace {

int run_command(int argc, char** argv) {
  CLI::App app{"rtdg: discontinuous Galerkin solvers with run-time generated kernels"};
  app.set_version_flag("--version", std::string("rtdg ") + RTDG_VERSION);
  app.require_subcommand(1);
  for (auto setup : rtdg::app::command_setups()) setup(app);
  const rtdg::dg::Communicator& world = rtdg::dg::world();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return world.rank() == 0 ? app.exit(e) : e.get_exit_code();
  } catch (const rtdg::runner::RunFailure& e) {
    // Every rank of a parallel run fails together with the same message: rank 0 says it.
    if (world.rank() == 0) std::cerr << "rtdg: error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    if (world.size() == 1) {
      std::cerr << "rtdg: error: " << e.what() << "\n";
      return 1;
    }
    // One rank failed on its own (or all did, each saying so): its message, then the whole
    // job ends, so no rank waits forever for this one.
    std::cerr << "rtdg: error on rank " << world.rank() << " of " << world.size() << ": " << e.what() << std::endl;
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // lets the other ranks' messages out
    world.abort(1);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  rtdg::dg::init_parallel(&argc, &argv);
  const int code = run_command(argc, argv);
  rtdg::dg::finish_parallel();
  return code;
}
