// dg/parallel.hpp: the serial communicator, and the MPI one when RTDG_HAVE_MPI.
#include "dg/parallel.hpp"

#include "dg/error.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

#if RTDG_HAVE_MPI
#include <mpi.h>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>  // Open MPI's MPIX_CUDA_AWARE_SUPPORT, MPIX_Query_cuda_support
#endif
#endif

namespace rtdg::dg {
namespace {

class Serial final : public Communicator {
public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  int local_rank() const override { return 0; }
  bool cuda_aware() const override { return false; }
  double max(double value) const override { return value; }
  double min(double value) const override { return value; }
  long long sum(long long value) const override { return value; }
  double sum(double value) const override { return value; }
  bool any(bool value) const override { return value; }
  int any_bits(int flags) const override { return flags; }
  int rank_of_max(double) const override { return 0; }
  std::string broadcast(const std::string& text, int) const override { return text; }
  std::string scatter(const std::function<std::string(int)>& part_for, int) const override { return part_for(0); }
  std::vector<double> gather(std::span<const double> values) const override { return {values.begin(), values.end()}; }
  std::vector<int> gather(std::span<const int> values) const override { return {values.begin(), values.end()}; }
  std::vector<double> all_to_all(std::span<const double> send, std::span<const int>) const override {
    return {send.begin(), send.end()};
  }
  std::vector<int> all_to_all(std::span<const int> send, std::span<const int>) const override {
    return {send.begin(), send.end()};
  }
  const void* mpi_comm() const override { return nullptr; }
  std::unique_ptr<HaloExchange> halo_exchange(const mesh::LocalMesh& local) const override {
    if (!local.neighbours.empty())
      throw Error("a part with neighbour ranks needs an MPI run (mpirun -np P with an rtdg built with RTDG_WITH_MPI=ON)");
    return nullptr;
  }
  void barrier() const override {}
  [[noreturn]] void abort(int code) const override { std::exit(code); }
  std::string describe() const override { return "serial"; }
};

#if RTDG_HAVE_MPI

// NaN compares larger than everything (the reductions' convention).
double nan_as_infinity(double value) { return std::isnan(value) ? std::numeric_limits<double>::infinity() : value; }

int env_int(const char* name, int fallback) {
  const char* text = std::getenv(name);
  return text && *text ? std::atoi(text) : fallback;
}

void check(int code, const char* what) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw Error(std::string("MPI: ") + what + " failed: " + std::string(text, static_cast<std::size_t>(length)));
}

// One message each way per neighbour rank: the faces it shares with us, in the agreed order
// (mesh/local_mesh.hpp), so our send range for it is its receive range for us.
class MpiExchange final : public HaloExchange {
public:
  MpiExchange(const mesh::LocalMesh& local, bool device_memory)
      : neighbours_(local.neighbours), device_memory_(device_memory) {
    requests_.resize(2 * neighbours_.size(), MPI_REQUEST_NULL);
  }
  bool device_memory() const override { return device_memory_; }
  void start(const void* send, void* recv, std::size_t face_bytes) override {
    constexpr int tag = 4107;
    std::size_t r = 0;
    for (const mesh::HaloNeighbour& n : neighbours_) {
      const std::size_t offset = static_cast<std::size_t>(n.first) * face_bytes;
      const int bytes = static_cast<int>(static_cast<std::size_t>(n.count) * face_bytes);
      check(MPI_Irecv(static_cast<char*>(recv) + offset, bytes, MPI_BYTE, n.rank, tag, MPI_COMM_WORLD, &requests_[r++]),
            "MPI_Irecv of halo traces");
    }
    for (const mesh::HaloNeighbour& n : neighbours_) {
      const std::size_t offset = static_cast<std::size_t>(n.first) * face_bytes;
      const int bytes = static_cast<int>(static_cast<std::size_t>(n.count) * face_bytes);
      check(MPI_Isend(static_cast<const char*>(send) + offset, bytes, MPI_BYTE, n.rank, tag, MPI_COMM_WORLD,
                      &requests_[r++]),
            "MPI_Isend of halo traces");
    }
  }
  void finish() override {
    check(MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE), "MPI_Waitall of halo traces");
  }

private:
  std::vector<mesh::HaloNeighbour> neighbours_;
  bool device_memory_ = false;
  std::vector<MPI_Request> requests_;
};

// Whether the MPI library takes CUDA device pointers: built with CUDA support (Open MPI's
// MPIX_CUDA_AWARE_SUPPORT) and saying so at run time (MPIX_Query_cuda_support). RTDG_CUDA_AWARE_MPI=0
// turns it off (staging through host memory).
bool query_cuda_aware() {
  const char* off = std::getenv("RTDG_CUDA_AWARE_MPI");
  if (off && std::strcmp(off, "0") == 0) return false;
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
}

class Mpi final : public Communicator {
public:
  Mpi() {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    local_rank_ = env_int("OMPI_COMM_WORLD_LOCAL_RANK", env_int("MPI_LOCALRANKID", env_int("SLURM_LOCALID", -1)));
    if (local_rank_ < 0) {
      // No launcher variable: ranks sharing a node by MPI's own split.
      MPI_Comm node;
      MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node);
      MPI_Comm_rank(node, &local_rank_);
      MPI_Comm_free(&node);
    }
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int local_rank() const override { return local_rank_; }
  bool cuda_aware() const override { return cuda_aware_; }
  double max(double value) const override { return reduce(nan_as_infinity(value), MPI_MAX, value); }
  double min(double value) const override {
    double in = value, out = 0;
    check(MPI_Allreduce(&in, &out, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD), "MPI_Allreduce");
    return out;
  }
  long long sum(long long value) const override {
    long long out = 0;
    check(MPI_Allreduce(&value, &out, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
    return out;
  }
  double sum(double value) const override {
    double out = 0;
    check(MPI_Allreduce(&value, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
    return out;
  }
  bool any(bool value) const override {
    int in = value ? 1 : 0, out = 0;
    check(MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce");
    return out != 0;
  }
  int any_bits(int flags) const override {
    int out = 0;
    check(MPI_Allreduce(&flags, &out, 1, MPI_INT, MPI_BOR, MPI_COMM_WORLD), "MPI_Allreduce");
    return out;
  }
  int rank_of_max(double value) const override {
    struct {
      double value;
      int rank;
    } in{nan_as_infinity(value), rank_}, out{};
    check(MPI_Allreduce(&in, &out, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD), "MPI_Allreduce");
    return out.rank;
  }
  std::string broadcast(const std::string& text, int root) const override {
    long long length = static_cast<long long>(text.size());
    check(MPI_Bcast(&length, 1, MPI_LONG_LONG, root, MPI_COMM_WORLD), "MPI_Bcast");
    std::string out = rank_ == root ? text : std::string(static_cast<std::size_t>(length), '\0');
    // In pieces of at most 1 GiB: MPI counts are ints (a whole mesh may be larger).
    constexpr long long piece = 1LL << 30;
    for (long long at = 0; at < length; at += piece)
      check(MPI_Bcast(out.data() + at, static_cast<int>(std::min(piece, length - at)), MPI_CHAR, root, MPI_COMM_WORLD),
            "MPI_Bcast");
    return out;
  }
  std::string scatter(const std::function<std::string(int)>& part_for, int root) const override {
    // Its length, then the text in pieces of at most 1 GiB (MPI counts are ints).
    constexpr long long piece = 1LL << 30;
    if (rank_ != root) {
      long long length = 0;
      check(MPI_Recv(&length, 1, MPI_LONG_LONG, root, kScatterTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
      std::string out(static_cast<std::size_t>(length), '\0');
      for (long long at = 0; at < length; at += piece)
        check(MPI_Recv(out.data() + at, static_cast<int>(std::min(piece, length - at)), MPI_CHAR, root, kScatterTag,
                       MPI_COMM_WORLD, MPI_STATUS_IGNORE),
              "MPI_Recv");
      return out;
    }
    std::string own;
    for (int r = 0; r < size_; ++r) {
      std::string text = part_for(r);
      if (r == root) {
        own = std::move(text);
        continue;
      }
      long long length = static_cast<long long>(text.size());
      check(MPI_Send(&length, 1, MPI_LONG_LONG, r, kScatterTag, MPI_COMM_WORLD), "MPI_Send");
      for (long long at = 0; at < length; at += piece)
        check(MPI_Send(text.data() + at, static_cast<int>(std::min(piece, length - at)), MPI_CHAR, r, kScatterTag,
                       MPI_COMM_WORLD),
              "MPI_Send");
    }
    return own;
  }
  std::vector<double> gather(std::span<const double> values) const override { return gather_of(values, MPI_DOUBLE); }
  std::vector<int> gather(std::span<const int> values) const override { return gather_of(values, MPI_INT); }
  std::vector<double> all_to_all(std::span<const double> send, std::span<const int> counts) const override {
    return all_to_all_of(send, counts, MPI_DOUBLE);
  }
  std::vector<int> all_to_all(std::span<const int> send, std::span<const int> counts) const override {
    return all_to_all_of(send, counts, MPI_INT);
  }
  const void* mpi_comm() const override { return &world_; }
  std::unique_ptr<HaloExchange> halo_exchange(const mesh::LocalMesh& local) const override {
    return std::make_unique<MpiExchange>(local, cuda_aware_);
  }
  void barrier() const override { MPI_Barrier(MPI_COMM_WORLD); }
  [[noreturn]] void abort(int code) const override {
    MPI_Abort(MPI_COMM_WORLD, code);
    std::exit(code);
  }
  std::string describe() const override {
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int length = 0;
    MPI_Get_library_version(version, &length);
    std::string library(version, static_cast<std::size_t>(length));
    library = library.substr(0, library.find_first_of(",\n"));
    return "MPI (" + library + ", " + std::to_string(size_) + " ranks)";
  }

private:
  // max with NaN seen everywhere: the reduction runs on NaN-as-infinity values; a rank whose
  // own value is NaN keeps NaN, and an infinite result that came from a NaN stays infinite.
  double reduce(double in, MPI_Op op, double own) const {
    double out = 0;
    check(MPI_Allreduce(&in, &out, 1, MPI_DOUBLE, op, MPI_COMM_WORLD), "MPI_Allreduce");
    return std::isnan(own) ? own : out;
  }
  template <class T>
  std::vector<T> gather_of(std::span<const T> values, MPI_Datatype type) const {
    int count = static_cast<int>(values.size());
    std::vector<int> counts(rank_ == 0 ? static_cast<std::size_t>(size_) : 0), offsets;
    check(MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Gather");
    std::vector<T> out;
    if (rank_ == 0) {
      long long total = 0;
      for (const int c : counts) {
        offsets.push_back(static_cast<int>(total));
        total += c;
      }
      if (total > std::numeric_limits<int>::max())
        throw Error("MPI: gathering " + std::to_string(total) + " values on rank 0 needs more than 32-bit counts");
      out.resize(static_cast<std::size_t>(total));
    }
    check(MPI_Gatherv(values.data(), count, type, out.data(), counts.data(), offsets.data(), type, 0, MPI_COMM_WORLD),
          "MPI_Gatherv");
    return out;
  }

  template <class T>
  std::vector<T> all_to_all_of(std::span<const T> send, std::span<const int> counts, MPI_Datatype type) const {
    if (counts.size() != static_cast<std::size_t>(size_))
      throw Error("MPI all-to-all: " + std::to_string(counts.size()) + " counts for " + std::to_string(size_) + " ranks");
    std::vector<int> received(static_cast<std::size_t>(size_)), send_offsets, receive_offsets;
    check(MPI_Alltoall(counts.data(), 1, MPI_INT, received.data(), 1, MPI_INT, MPI_COMM_WORLD), "MPI_Alltoall");
    long long sent = 0, total = 0;
    for (int r = 0; r < size_; ++r) {
      send_offsets.push_back(static_cast<int>(sent));
      receive_offsets.push_back(static_cast<int>(total));
      sent += counts[static_cast<std::size_t>(r)];
      total += received[static_cast<std::size_t>(r)];
    }
    if (sent != static_cast<long long>(send.size()))
      throw Error("MPI all-to-all: the counts add up to " + std::to_string(sent) + " values, but " +
                  std::to_string(send.size()) + " were given");
    if (total > std::numeric_limits<int>::max())
      throw Error("MPI all-to-all: receiving " + std::to_string(total) + " values needs more than 32-bit counts");
    std::vector<T> out(static_cast<std::size_t>(total));
    check(MPI_Alltoallv(send.data(), counts.data(), send_offsets.data(), type, out.data(), received.data(),
                        receive_offsets.data(), type, MPI_COMM_WORLD),
          "MPI_Alltoallv");
    return out;
  }

  static constexpr int kScatterTag = 7301;  // apart from the halo exchange's tags
  MPI_Comm world_ = MPI_COMM_WORLD;
  int rank_ = 0, size_ = 1, local_rank_ = 0;
  bool cuda_aware_ = query_cuda_aware();
};

bool launched_by_mpi() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS", "SLURM_NTASKS"})
    if (std::getenv(name)) return true;
  return false;
}

std::unique_ptr<Communicator>& mpi_world() {
  static std::unique_ptr<Communicator> world;
  return world;
}

#endif

}  // namespace

bool built_with_mpi() { return RTDG_HAVE_MPI != 0; }

bool init_parallel(int* argc, char*** argv) {
#if RTDG_HAVE_MPI
  if (!launched_by_mpi()) return false;
  int provided = 0;
  MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  mpi_world() = std::make_unique<Mpi>();
  return true;
#else
  (void)argc;
  (void)argv;
  return false;
#endif
}

void finish_parallel() {
#if RTDG_HAVE_MPI
  if (mpi_world()) {
    mpi_world().reset();
    MPI_Finalize();
  }
#endif
}

const Communicator& world() {
#if RTDG_HAVE_MPI
  if (mpi_world()) return *mpi_world();
#endif
  static const Serial serial;
  return serial;
}

}  // namespace rtdg::dg
