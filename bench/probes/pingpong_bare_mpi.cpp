// The bare MPI ping-pong that bench/suites/pingpong_vs_bare_mpi.sh sets xferbench
// pingpong against: host buffers, MPI_Send + MPI_Recv, one-way time =
// round trip / 2, bandwidth = bytes / mean one-way time (1e9 B/s), as
// xferbench reports it. Two buffer modes:
//   separate  each rank sends from its send buffer and receives into its
//             receive buffer (osu_latency, the mpi-ping-pong seed)
//   echo      rank 1 sends back from the buffer it has just received into
// Per size: fill, barrier, WARMUP untimed round trips, barrier, REPS timed
// round trips, then a data check on both ranks outside the timed loop, so
// a broken run is marked verified=no and exits 1.
// Build: mpicxx -O2 -o pingpong_bare_mpi pingpong_bare_mpi.cpp
// Run:   mpirun -np 2 pingpong_bare_mpi separate|echo BYTES REPS WARMUP
// Prints one line on rank 0:
//   bare mode=separate bytes=1048576 reps=500 one_way_s=5.1e-05 gbps=20.5 verified=yes
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

unsigned char byte_of(int rank, long i) { return static_cast<unsigned char>((i * 131 + rank * 71 + 7) & 0xFF); }

void fill(std::vector<unsigned char>& buf, int rank) {
  for (long i = 0; i < static_cast<long>(buf.size()); ++i) buf[i] = byte_of(rank, i);
}

bool holds(const std::vector<unsigned char>& buf, int rank) {
  for (long i = 0; i < static_cast<long>(buf.size()); ++i) {
    if (buf[i] != byte_of(rank, i)) return false;
  }
  return true;
}

void round_trips(int rank, bool echo, std::vector<unsigned char>& send, std::vector<unsigned char>& recv, int count) {
  const int n = static_cast<int>(send.size());
  for (int i = 0; i < count; ++i) {
    if (rank == 0) {
      MPI_Send(send.data(), n, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
      MPI_Recv(recv.data(), n, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(recv.data(), n, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send((echo ? recv : send).data(), n, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
    }
  }
}

int usage(int rank) {
  if (rank == 0) std::fprintf(stderr, "usage: mpirun -np 2 pingpong_bare_mpi separate|echo BYTES REPS WARMUP\n");
  MPI_Finalize();
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc != 5 || size != 2) return usage(rank);
  const std::string mode = argv[1];
  const long bytes = std::atol(argv[2]);
  const int reps = std::atoi(argv[3]), warmup = std::atoi(argv[4]);
  if ((mode != "separate" && mode != "echo") || bytes < 1 || bytes > 0x7fffffffL || reps < 1 || warmup < 0)
    return usage(rank);
  const bool echo = mode == "echo";
  std::vector<unsigned char> send(static_cast<std::size_t>(bytes)), recv(static_cast<std::size_t>(bytes), 0xA5);
  fill(send, rank);
  MPI_Barrier(MPI_COMM_WORLD);
  round_trips(rank, echo, send, recv, warmup);
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  round_trips(rank, echo, send, recv, reps);
  const double one_way = (MPI_Wtime() - t0) / reps / 2;
  // Rank 1 holds rank 0's bytes; rank 0 holds rank 1's, or its own back when rank 1 echoes.
  const int ok = holds(recv, rank == 1 || echo ? 0 : 1);
  int all_ok = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (rank == 0) {
    std::printf("bare mode=%s bytes=%ld reps=%d one_way_s=%.6e gbps=%.6f verified=%s\n", mode.c_str(), bytes, reps,
                one_way, static_cast<double>(bytes) / one_way / 1e9, all_ok ? "yes" : "no");
  }
  MPI_Finalize();
  return all_ok ? 0 : 1;
}
