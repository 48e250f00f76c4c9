// Experiment (session 39, not built by CMake): what one halo exchange of rtdg's 2-rank run costs on
// two GPUs of one host, in the parts the pinned-host staging does one after the other: the copy of
// the packed traces to the host, MPI_Isend/Irecv/Waitall between the ranks' page-locked buffers,
// the copy back (1,488,000 bytes is the order-4 205k-tet run's: 2,066 halo faces x 15 nodes x 6
// components x 8 bytes). Measured on the H200 x2 (benchmarks/results/parallel-2gpu-h200-2026-11-29-
// session39.md): 307 + 67 + 60 us, more than the interior elements' 0.40 ms per stage hide.
//   mpicxx -O2 -I/usr/local/cuda/include halo_exchange_probe.cpp -L/usr/local/cuda/lib64 -lcudart -o halo_exchange_probe
//   mpirun -np 2 ./halo_exchange_probe
#include <mpi.h>
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <vector>
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  cudaSetDevice(rank);
  const size_t sizes[] = {186000 * 8, 93000 * 8, 500000 * 8};
  for (size_t bytes : sizes) {
    char *hs, *hr, *d;
    cudaMallocHost(&hs, bytes); cudaMallocHost(&hr, bytes); cudaMalloc(&d, bytes);
    cudaStream_t st; cudaStreamCreate(&st);
    const int other = 1 - rank, reps = 200;
    std::vector<double> mpi, d2h, h2d;
    for (int r = 0; r < reps; ++r) {
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime();
      MPI_Request q[2];
      MPI_Irecv(hr, (int)bytes, MPI_BYTE, other, 0, MPI_COMM_WORLD, &q[0]);
      MPI_Isend(hs, (int)bytes, MPI_BYTE, other, 0, MPI_COMM_WORLD, &q[1]);
      MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
      mpi.push_back(MPI_Wtime() - t0);
      t0 = MPI_Wtime();
      cudaMemcpyAsync(hs, d, bytes, cudaMemcpyDeviceToHost, st); cudaStreamSynchronize(st);
      d2h.push_back(MPI_Wtime() - t0);
      t0 = MPI_Wtime();
      cudaMemcpyAsync(d, hr, bytes, cudaMemcpyHostToDevice, st); cudaStreamSynchronize(st);
      h2d.push_back(MPI_Wtime() - t0);
    }
    auto med = [](std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2] * 1e6; };
    if (rank == 0) std::printf("%zu bytes: MPI exchange %.1f us, D2H %.1f us, H2D %.1f us (medians of %d)\n", bytes, med(mpi), med(d2h), med(h2d), reps);
    cudaFreeHost(hs); cudaFreeHost(hr); cudaFree(d);
  }
  MPI_Finalize();
}
