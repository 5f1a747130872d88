// Baseline for xferbench pingpong: a bare MPI_Send/MPI_Recv ping-pong on
// host buffers, one-way time = round trip / 2, median of 11 runs of 10000
// round trips per size. Build: mpicxx -O2 -o mpi_bare_pingpong mpi_bare_pingpong.cpp
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int iters = 10000;
  std::vector<char> buf(1 << 16);
  for (int bytes = 8; bytes <= 1024; bytes *= 2) {
    std::vector<double> runs;
    for (int r = 0; r < 11; ++r) {
      MPI_Barrier(MPI_COMM_WORLD);
      const double t0 = MPI_Wtime();
      for (int i = 0; i < iters; ++i) {
        if (rank == 0) {
          MPI_Send(buf.data(), bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
          MPI_Recv(buf.data(), bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
          MPI_Recv(buf.data(), bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          MPI_Send(buf.data(), bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
        }
      }
      runs.push_back((MPI_Wtime() - t0) / iters / 2);
    }
    std::sort(runs.begin(), runs.end());
    if (rank == 0) std::printf("bare_mpi bytes=%d one_way_us=%.4f\n", bytes, runs[runs.size() / 2] * 1e6);
  }
  MPI_Finalize();
  return 0;
}
