// Baseline for xferbench pingpong: a bare MPI ping-pong on host buffers,
// one-way time = round trip / 2, median of 11 runs of 10000 round trips per
// size. Variants (argv[1]) show what a dead-peer-safe receive costs:
//   blocking    MPI_Send + MPI_Recv (the baseline)
//   test        MPI_Isend/MPI_Irecv + MPI_Test polling
//   send_test   MPI_Send + MPI_Irecv/MPI_Test polling
//   send_probe  MPI_Send + MPI_Iprobe polling + MPI_Recv
// Build: mpicxx -O2 -o mpi_bare_pingpong mpi_bare_pingpong.cpp
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

namespace {

enum Mode { blocking, test, send_test, send_probe };

void poll(MPI_Request* r) {
  int done = 0;
  while (!done) MPI_Test(r, &done, MPI_STATUS_IGNORE);
}

void send(Mode m, char* buf, int bytes, int peer) {
  if (m == test) {
    MPI_Request r;
    MPI_Isend(buf, bytes, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &r);
    poll(&r);
  } else {
    MPI_Send(buf, bytes, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
  }
}

void recv(Mode m, char* buf, int bytes, int peer) {
  if (m == blocking) {
    MPI_Recv(buf, bytes, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else if (m == send_probe) {
    int flag = 0;
    while (!flag) MPI_Iprobe(peer, 0, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    MPI_Recv(buf, bytes, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else {
    MPI_Request r;
    MPI_Irecv(buf, bytes, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &r);
    poll(&r);
  }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const char* name = argc > 1 ? argv[1] : "blocking";
  const Mode mode = !std::strcmp(name, "test") ? test : !std::strcmp(name, "send_test") ? send_test
                    : !std::strcmp(name, "send_probe") ? send_probe : blocking;
  const int iters = 10000;
  std::vector<char> buf(1 << 16);
  for (int bytes = 8; bytes <= 1024; bytes *= 2) {
    std::vector<double> runs;
    for (int r = 0; r < 11; ++r) {
      MPI_Barrier(MPI_COMM_WORLD);
      const double t0 = MPI_Wtime();
      for (int i = 0; i < iters; ++i) {
        if (rank == 0) {
          send(mode, buf.data(), bytes, 1);
          recv(mode, buf.data(), bytes, 1);
        } else {
          recv(mode, buf.data(), bytes, 0);
          send(mode, buf.data(), bytes, 0);
        }
      }
      runs.push_back((MPI_Wtime() - t0) / iters / 2);
    }
    std::sort(runs.begin(), runs.end());
    if (rank == 0) std::printf("bare_mpi %s bytes=%d one_way_us=%.4f\n", name, bytes, runs[runs.size() / 2] * 1e6);
  }
  MPI_Finalize();
  return 0;
}
