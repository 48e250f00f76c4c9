// The ranks of a run (docs/parallel.md): one process (serial) or the processes of an MPI job,
// one per GPU. The solver needs only dg::HaloExchange (dg/solver.hpp); the run driver uses the
// communicator for the few global decisions (time step, blow-up checks, stop requests) and to
// gather output on rank 0. MPI is optional at build time (RTDG_WITH_MPI): without it, or when
// the process was not started by an MPI launcher, world() is the serial communicator.
#pragma once

#include "dg/solver.hpp"

#include <mesh/local_mesh.hpp>

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace rtdg::dg {

class Communicator {
public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Node-local rank (for choosing a GPU): OMPI_COMM_WORLD_LOCAL_RANK and the like.
  virtual int local_rank() const = 0;
  // Whether the MPI library takes GPU device pointers (CUDA-aware MPI, as it reports itself;
  // RTDG_CUDA_AWARE_MPI=0 says no). The halo exchanges of a CUDA run then send from and
  // receive into the device arrays; otherwise the traces are staged through pinned host memory.
  virtual bool cuda_aware() const = 0;
  // Reductions over all ranks; every rank gets the result. max/min treat NaN as larger than
  // everything (so a NaN anywhere is seen everywhere).
  virtual double max(double value) const = 0;
  virtual double min(double value) const = 0;
  virtual long long sum(long long value) const = 0;
  virtual double sum(double value) const = 0;
  virtual bool any(bool value) const = 0;
  // Bitwise or of every rank's flags (several yes/no decisions in one reduction).
  virtual int any_bits(int flags) const = 0;
  // The rank holding the largest value (NaN largest); ties go to the lowest rank.
  virtual int rank_of_max(double value) const = 0;
  // `text` of rank `root`, on every rank.
  virtual std::string broadcast(const std::string& text, int root) const = 0;
  // A text for each rank from rank `root`: there, part_for(r) for every rank r in rank order,
  // each sent to r as soon as it is made (the root holds one at a time), and the root's own
  // returned; elsewhere, the text the root made for this rank. part_for must not throw (a rank
  // would wait forever): put a failure into the text.
  virtual std::string scatter(const std::function<std::string(int)>& part_for, int root) const = 0;
  // Every rank's `values` concatenated in rank order, on rank 0 (empty elsewhere).
  virtual std::vector<double> gather(std::span<const double> values) const = 0;
  virtual std::vector<int> gather(std::span<const int> values) const = 0;
  // Personalised all-to-all: `send` holds counts[r] values for rank r, in rank order; returns
  // what every rank sent to this one, in rank order (MPI_Alltoallv).
  virtual std::vector<double> all_to_all(std::span<const double> send, std::span<const int> counts) const = 0;
  virtual std::vector<int> all_to_all(std::span<const int> send, std::span<const int> counts) const = 0;
  // The MPI communicator (a pointer to an MPI_Comm) for libraries that take one, such as the
  // parallel HDF5; nullptr for the serial communicator.
  virtual const void* mpi_comm() const = 0;
  // The halo exchange of this rank's part (MPI point-to-point, one message each way per
  // neighbour rank). Throws for a serial communicator when the part has neighbours.
  virtual std::unique_ptr<HaloExchange> halo_exchange(const mesh::LocalMesh& local) const = 0;
  virtual void barrier() const = 0;
  // Ends every rank of the job at once with this exit code (a failure on one rank must not
  // leave the others waiting).
  [[noreturn]] virtual void abort(int code) const = 0;
  // "MPI (Open MPI 4.1, 2 ranks)", "serial".
  virtual std::string describe() const = 0;
};

// The process's communicator: MPI's world when this rtdg was built with MPI and started by an
// MPI launcher (init_parallel was called), else the serial one.
const Communicator& world();

// Called once at the start of main: initialises MPI when the process was started by an MPI
// launcher (mpirun, srun) and this rtdg was built with MPI; a no-op otherwise. Returns whether
// MPI is in use. finish_parallel() at the end of main.
bool init_parallel(int* argc, char*** argv);
void finish_parallel();

// Whether this rtdg was built with MPI.
bool built_with_mpi();

}  // namespace rtdg::dg
