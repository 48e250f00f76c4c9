// MPI smoke test of the partitioned mesh (RTDG_WITH_MPI builds): every rank loads
// data/meshes/sphere.h5 and builds a periodic cube, partitions each itself (METIS, fixed seed),
// builds its rank-local mesh, and checks through MPI what a halo exchange relies on: all
// ranks computed the same partition, the local meshes cover every element once, each pair of
// ranks agrees on how many faces it shares, and the faces each side packs in the agreed order
// are the same faces, with face vertices that coincide (after the periodic shift) once the
// receiver applies its vertex_match. Exit status 0 on every rank when all holds, 1 on every
// rank otherwise (no rank is left waiting).
#include "fixtures.hpp"

#include <mesh/build.hpp>
#include <mesh/error.hpp>
#include <mesh/hdf5_io.hpp>
#include <mesh/local_mesh.hpp>
#include <mesh/partition.hpp>

#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using namespace rtdg::mesh;

std::size_t ix(int i) { return static_cast<std::size_t>(i); }

// Every check is collective: all ranks learn whether any failed and stop together, so a
// failure on one rank cannot leave the others waiting for a message or a collective.
void require(bool condition, const std::string& what) {
  int ok = condition ? 1 : 0, all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!condition) throw std::runtime_error(what);
  if (all == 0) throw std::runtime_error("stopped: another rank failed");
}

// What one side sends per shared face, in the agreed order: its (global element, face), the
// neighbour's (global element, face) as it sees them, and its face vertex coordinates.
constexpr int kInts = 4;
constexpr int kReals = 9;  // [Nfv <= 3][3]

// Returns the number of halo faces of this rank.
int check_mesh(const std::string& name, const Mesh& mesh, int rank, int size) {
  const Partition partition = partition_mesh(mesh, {size, {}, 0, 1.03}, name);

  // Every rank computed the same partition.
  std::size_t hash = 0;
  for (int p : partition.element_part) hash = hash * 1000003u + std::hash<int>{}(p);
  unsigned long mine = hash, lo = 0, hi = 0;
  MPI_Allreduce(&mine, &lo, 1, MPI_UNSIGNED_LONG, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&mine, &hi, 1, MPI_UNSIGNED_LONG, MPI_MAX, MPI_COMM_WORLD);
  require(lo == hi, name + ": the ranks computed different partitions");

  const LocalMesh local = build_local_mesh(mesh, partition, rank, name);
  validate_local(local, name);
  int elements = local.mesh.num_elements(), total = 0;
  MPI_Allreduce(&elements, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  require(total == mesh.num_elements(), name + ": the local meshes hold " + std::to_string(total) + " of " +
                                            std::to_string(mesh.num_elements()) + " elements");

  // Pairwise face counts: what I share with s equals what s shares with me.
  std::vector<int> count(ix(size), 0), theirs(ix(size), 0);
  for (const HaloNeighbour& n : local.neighbours) count[ix(n.rank)] = n.count;
  MPI_Alltoall(count.data(), 1, MPI_INT, theirs.data(), 1, MPI_INT, MPI_COMM_WORLD);
  std::string disagreement;
  for (int s = 0; s < size && disagreement.empty(); ++s) {
    if (count[ix(s)] != theirs[ix(s)]) {
      disagreement = name + ": rank " + std::to_string(rank) + " shares " + std::to_string(count[ix(s)]) +
                     " faces with rank " + std::to_string(s) + ", which says " + std::to_string(theirs[ix(s)]);
    }
  }
  require(disagreement.empty(), disagreement);

  // Exchange the faces in the agreed order, as a solver exchanges traces.
  const int nfv = mesh.num_face_vertices();
  const auto& fv = face_vertices(mesh.type);
  std::vector<std::vector<int>> send_ints, recv_ints;
  std::vector<std::vector<double>> send_reals, recv_reals;
  std::vector<MPI_Request> requests;
  for (const HaloNeighbour& n : local.neighbours) {
    std::vector<int> ints;
    std::vector<double> reals;
    for (int i = n.first; i < n.first + n.count; ++i) {
      const HaloFace& h = local.halo_faces[ix(i)];
      ints.insert(ints.end(), {local.element_global[ix(h.element)], h.face, h.neighbour_element, h.neighbour_face});
      for (int v = 0; v < 3; ++v) {
        const int lv = v < nfv ? local.mesh.EToV[ix(h.element)][ix(fv[ix(h.face)][ix(v)])] : -1;
        for (std::size_t d = 0; d < 3; ++d) reals.push_back(lv < 0 ? 0.0 : local.mesh.vertices[ix(lv)][d]);
      }
    }
    send_ints.push_back(std::move(ints));
    send_reals.push_back(std::move(reals));
    recv_ints.emplace_back(ix(n.count * kInts));
    recv_reals.emplace_back(ix(n.count * kReals));
  }
  for (std::size_t i = 0; i < local.neighbours.size(); ++i) {
    const int peer = local.neighbours[i].rank;
    const int n = local.neighbours[i].count;
    requests.resize(requests.size() + 4);
    MPI_Request* r = &requests[requests.size() - 4];
    MPI_Irecv(recv_ints[i].data(), n * kInts, MPI_INT, peer, 1, MPI_COMM_WORLD, &r[0]);
    MPI_Irecv(recv_reals[i].data(), n * kReals, MPI_DOUBLE, peer, 2, MPI_COMM_WORLD, &r[1]);
    MPI_Isend(send_ints[i].data(), n * kInts, MPI_INT, peer, 1, MPI_COMM_WORLD, &r[2]);
    MPI_Isend(send_reals[i].data(), n * kReals, MPI_DOUBLE, peer, 2, MPI_COMM_WORLD, &r[3]);
  }
  MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);

  std::string mismatch;
  const auto check = [&mismatch](bool condition, const std::string& what) {
    if (!condition && mismatch.empty()) mismatch = what;
  };
  for (std::size_t i = 0; i < local.neighbours.size(); ++i) {
    const HaloNeighbour& n = local.neighbours[i];
    for (int j = 0; j < n.count; ++j) {
      const HaloFace& h = local.halo_faces[ix(n.first + j)];
      const int* in = &recv_ints[i][ix(j * kInts)];
      const std::string where = name + ": rank " + std::to_string(rank) + ", face " + std::to_string(j) +
                                " shared with rank " + std::to_string(n.rank);
      check(in[0] == h.neighbour_element && in[1] == h.neighbour_face &&
                  in[2] == local.element_global[ix(h.element)] && in[3] == h.face,
              where + ": the two sides packed different faces at this position");
      for (int v = 0; v < nfv; ++v) {
        const int lv = local.mesh.EToV[ix(h.element)][ix(fv[ix(h.face)][ix(v)])];
        const double* theirs_x = &recv_reals[i][ix(j * kReals + 3 * h.vertex_match[ix(v)])];
        for (std::size_t d = 0; d < 3; ++d) {
          const double expected = local.mesh.vertices[ix(lv)][d] + h.shift[d];
          check(std::abs(theirs_x[d] - expected) <= 1e-12 * (1.0 + std::abs(expected)),
                  where + ": face vertex " + std::to_string(v) + " does not meet its neighbour's through vertex_match");
        }
      }
    }
  }
  require(mismatch.empty(), mismatch);
  return local.num_halo_faces();
}

Mesh periodic_cube() {
  RawMesh raw = rtdg::mesh::testing::structured_cube(3);
  for (const auto& [a, b] : {std::pair("xmin", "xmax"), std::pair("ymin", "ymax"), std::pair("zmin", "zmax")}) {
    raw.periodic.push_back({rtdg::mesh::testing::group(raw, a), rtdg::mesh::testing::group(raw, b), std::nullopt});
  }
  return build_mesh(raw);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::string error;
  std::string report;
  try {
    const std::string sphere = std::string(RTDG_MESHES_DIR) + "/sphere.h5";
    report += "sphere.h5 " + std::to_string(check_mesh(sphere, read_hdf5(sphere), rank, size)) + " halo faces";
    report += ", periodic cube " + std::to_string(check_mesh("periodic cube", periodic_cube(), rank, size)) +
              " halo faces";
  } catch (const std::exception& e) {
    error = e.what();
  }
  // Errors thrown outside require (reading the mesh, METIS) happen alike on every rank; the
  // reduction tells each rank whether all succeeded.
  int ok = error.empty() ? 1 : 0, all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!error.empty()) std::fprintf(stderr, "rank %d of %d: %s\n", rank, size, error.c_str());
  else std::printf("rank %d of %d: %s\n", rank, size, report.c_str());
  MPI_Finalize();
  return all == 1 ? 0 : 1;
}
