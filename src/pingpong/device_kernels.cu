#include "pingpong/device_kernels.hpp"

#include "machine/cuda_check.hpp"

namespace xb::pingpong {

using namespace devproto;

namespace {

constexpr int kMaxThreads = 512;

__device__ __forceinline__ std::uint64_t global_ns() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__device__ __forceinline__ std::uint64_t ld_acquire(const std::uint64_t* p) {
  std::uint64_t v;
  asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}

__device__ __forceinline__ void st_release(std::uint64_t* p, std::uint64_t v) {
  asm volatile("st.release.sys.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

__device__ __forceinline__ void ld_pair(const std::uint64_t* p, std::uint64_t& a, std::uint64_t& b) {
  asm volatile("ld.volatile.global.v2.u64 {%0, %1}, [%2];" : "=l"(a), "=l"(b) : "l"(p) : "memory");
}

__device__ __forceinline__ void st_pair(std::uint64_t* p, std::uint64_t a, std::uint64_t b) {
  asm volatile("st.volatile.global.v2.u64 [%0], {%1, %2};" ::"l"(p), "l"(a), "l"(b) : "memory");
}

__device__ __forceinline__ std::uint64_t ld_volatile(const std::uint64_t* p) {
  std::uint64_t v;
  asm volatile("ld.volatile.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}

// The block that stamps the times and raises ready and ack flags: block 0,
// or for LL words (one block runs them) that block.
__device__ __forceinline__ bool lead_block(const RunSpec& s) { return s.ll || blockIdx.x == 0; }
__device__ __forceinline__ bool lead_thread(const RunSpec& s) { return lead_block(s) && threadIdx.x == 0; }

// Called after each unsuccessful poll of one wait. The clock is read only
// every 64 polls, so a wait that succeeds soon never reads %globaltimer and
// the poll loop stays one load long. A wait longer than 64 polls (tens of
// microseconds: a large message or a whole window) sleeps briefly between
// polls, so hundreds of blocks polling the same flags do not crowd the L2
// slice that the incoming data also goes through. LL words are polled by
// one block, each thread its own words: no nap (a poll of local memory
// takes tens of nanoseconds, so every wait passed 64 polls and each
// detection came up to a nap late), and the clock every 1024 polls.
struct Patience {
  std::uint64_t limit_ns;
  bool nap;
  std::uint64_t start = 0;
  std::uint32_t polls = 0;
  __device__ explicit Patience(std::uint64_t limit, bool nap_after_64 = true) : limit_ns(limit), nap(nap_after_64) {}
  __device__ bool exhausted() {
    ++polls;
    if (!nap) {
      if ((polls & 1023U) != 0) return false;
    } else {
      if (polls < 64) return false;
      __nanosleep(128);
      if ((polls & 63U) != 0) return false;
    }
    const std::uint64_t now = global_ns();
    if (start == 0) start = now;
    return now - start > limit_ns;
  }
};

__device__ void report_timeout(const DeviceRunArgs& a, WaitFor what, std::uint64_t seq, std::uint64_t seen,
                               std::uint32_t rep) {
  volatile KernelStatus* s = a.status;
  s->what = static_cast<std::uint32_t>(what);
  s->seq = seq;
  s->seen = seen;
  s->rep = rep;
  __threadfence_system();
  s->timed_out = 1;
  __threadfence_system();
}

// This thread waits for *word >= target; false when it gave up (reported).
__device__ bool wait_at_least(const DeviceRunArgs& a, const std::uint64_t* word, std::uint64_t target, WaitFor what,
                              std::uint32_t rep) {
  Patience patience(a.spec.timeout_ns);
  std::uint64_t seen;
  while ((seen = ld_acquire(word)) < target) {
    if (patience.exhausted()) {
      report_timeout(a, what, target, seen, rep);
      return false;
    }
  }
  return true;
}

// Thread 0 of every block waits for *word >= target; true on success, the
// same answer in every thread of the block. With a host peer (pull) the
// flag is in host memory, and only block 0 polls it: each poll is a read
// over PCIe, which the root complex orders behind every write the GPU has
// posted before it, so a hundred blocks polling while the others still
// store their parts cut GPU -> host stores from 52 to 3-23 GB/s in a probe
// (bench/results/2026-11-25-h200-limits). Block 0 copies what it saw into
// GPU memory, where the other blocks poll.
__device__ bool block_wait_word(const DeviceRunArgs& a, const std::uint64_t* word, std::uint64_t target,
                                WaitFor what, std::uint32_t rep) {
  bool ok = true;
  if (threadIdx.x == 0) {
    std::uint64_t* relay = a.spec.pull ? a.relay + static_cast<std::uint32_t>(what) : nullptr;
    if (relay == nullptr || blockIdx.x == 0) {
      ok = wait_at_least(a, word, target, what, rep);
      if (ok && relay != nullptr) st_release(relay, target);
    } else {
      ok = wait_at_least(a, relay, target, what, rep);
    }
  }
  return __syncthreads_and(ok) != 0;
}

// Every part flag of the incoming message must reach `seq`.
__device__ bool block_wait_parts(const DeviceRunArgs& a, std::uint64_t seq, std::uint32_t rep) {
  bool ok = true;
  for (std::uint32_t b = threadIdx.x; b < a.spec.peer_parts && ok; b += blockDim.x)
    ok = wait_at_least(a, &a.links.in.flags->parts[b], seq, WaitFor::message, rep);
  return __syncthreads_and(ok) != 0;
}

// This block's part of a large message, 4 vectors of 16 bytes in flight per
// thread; `begin` is 16-byte aligned, a tail shorter than 16 bytes goes byte
// by byte. Plain (weak) loads and stores: the release flag orders them. A
// pull (Fresh) fetches from the host's memory with .cv loads (fetched
// again, never served from a cached line), so a window of one message
// crosses PCIe each time.
template <bool Fresh = false>
__device__ void copy_range(unsigned char* dst, const unsigned char* src, std::uint64_t begin, std::uint64_t end) {
  const std::uint64_t nvec = (end - begin) / 16;
  const auto* s = reinterpret_cast<const uint4*>(src + begin);
  auto* d = reinterpret_cast<uint4*>(dst + begin);
  const std::uint64_t nt = blockDim.x;
  for (std::uint64_t i = threadIdx.x; i < nvec; i += 4 * nt) {
    uint4 v[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      if (i + k * nt < nvec) v[k] = Fresh ? __ldcv(s + i + k * nt) : s[i + k * nt];
    }
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      if (i + k * nt < nvec) d[i + k * nt] = v[k];
    }
  }
  for (std::uint64_t o = begin + nvec * 16 + threadIdx.x; o < end; o += nt)
    dst[o] = Fresh ? *static_cast<const volatile unsigned char*>(src + o) : src[o];
}

// Pull mode's receive: the host raised the flag of the window's last
// message (its one part); every block then fetches its part of each
// message, the host's message or, when the host answers with what it
// received (echo), the data this GPU stored there.
__device__ bool pull_messages(const DeviceRunArgs& a, std::uint32_t count, std::uint64_t last, std::uint32_t rep) {
  const RunSpec& s = a.spec;
  if (!block_wait_word(a, &a.links.in.flags->parts[0], last, WaitFor::message, rep)) return false;
  const bool host_echoes = s.mode == ModeCode::pingpong && s.initiator && s.echo;
  const unsigned char* src = host_echoes ? a.links.out.data : a.links.peer_send;
  std::uint64_t begin = 0, end = 0;
  part_range(s.bytes, s.my_parts, blockIdx.x, begin, end);
  for (std::uint32_t m = 0; m < count; ++m) copy_range<true>(a.links.in.data, src, begin, end);
  __syncthreads();
  if (threadIdx.x == 0) atomicAdd(a.pulled, 1ull);
  return true;
}

__device__ void flag_send(const DeviceRunArgs& a, const unsigned char* src, std::uint64_t seq) {
  std::uint64_t begin = 0, end = 0;
  part_range(a.spec.bytes, a.spec.my_parts, blockIdx.x, begin, end);
  copy_range(a.links.out.data, src, begin, end);
  __syncthreads();
  if (threadIdx.x == 0) st_release(&a.links.out.flags->parts[blockIdx.x], seq);
}

__device__ std::uint64_t load8(const unsigned char* p, std::uint64_t n) {
  return n >= 8 ? *reinterpret_cast<const std::uint64_t*>(p) : load_tail(p, n);
}

__device__ void store8(unsigned char* p, std::uint64_t v, std::uint64_t n) {
  if (n >= 8) {
    *reinterpret_cast<std::uint64_t*>(p) = v;
  } else {
    store_tail(p, v, n);
  }
}

// LL: thread t handles word pairs t, t + blockDim, ... in both directions,
// so an echo re-sends exactly what the same thread unpacked.
__device__ void ll_send(const DeviceRunArgs& a, const unsigned char* src, std::uint64_t seq) {
  const std::uint64_t bytes = a.spec.bytes;
  for (std::uint64_t v = threadIdx.x, n = ll_pairs(bytes); v < n; v += blockDim.x) {
    const std::uint64_t d = load8(src + 8 * v, bytes - 8 * v);
    st_pair(a.links.out.ll + 2 * v, ll_word(static_cast<std::uint32_t>(d), seq),
            ll_word(static_cast<std::uint32_t>(d >> 32), seq));
  }
}

__device__ bool ll_receive(const DeviceRunArgs& a, std::uint64_t seq, std::uint32_t rep) {
  const std::uint64_t bytes = a.spec.bytes;
  bool ok = true;
  for (std::uint64_t v = threadIdx.x, n = ll_pairs(bytes); v < n && ok; v += blockDim.x) {
    Patience patience(a.spec.timeout_ns, false);
    std::uint64_t lo, hi;
    ld_pair(a.links.in.ll + 2 * v, lo, hi);
    while (!(ll_at_least(lo, seq) && ll_at_least(hi, seq))) {
      if (patience.exhausted()) {
        report_timeout(a, WaitFor::message, seq, (ll_at_least(lo, seq) ? hi : lo) >> 32, rep);
        ok = false;
        break;
      }
      ld_pair(a.links.in.ll + 2 * v, lo, hi);
    }
    if (ok) store8(a.links.recv_ll + 8 * v, ll_data(lo) | (static_cast<std::uint64_t>(ll_data(hi)) << 32), bytes - 8 * v);
  }
  return __syncthreads_and(ok) != 0;
}

// Whether the run's one block is picked among one per SM (nearest_block):
// LL words with a GPU peer.
__host__ __device__ bool picks_block(const RunSpec& s) { return s.ll && !s.pull; }

// Whether a run takes the one-pair path below: a ping-pong of one LL word
// pair (messages up to 8 B) with a GPU peer.
__host__ __device__ bool one_pair_path(const RunSpec& s) {
  return picks_block(s) && s.mode == ModeCode::pingpong && ll_pairs(s.bytes) == 1;
}

// Thread 0 of every block (one block per SM, all resident: cooperative
// launch) times 32 dependent volatile loads of the first LL word it
// polls; true in the thread of the block whose loads were fastest. The
// key packs the inverted time above the block index, so the largest key
// (atomicMax, from the zeroed word) is the fastest block, ties to the
// higher index.
__device__ bool nearest_block(const DeviceRunArgs& a) {
  if (threadIdx.x != 0) return false;
  const std::uint64_t* word = a.links.in.ll;
  std::uint64_t v = 0;
  const long long c0 = clock64();
  for (int i = 0; i < 32; ++i) v = ld_volatile(word + (v == ~0ULL ? 1 : 0));  // each load waits for the last
  const unsigned long long cycles = static_cast<unsigned long long>(clock64() - c0);
  const unsigned long long fast = 0xffffffffULL - (cycles < 0xffffffffULL ? cycles : 0xffffffffULL);
  atomicMax(&a.pick[0], (fast << 32) | blockIdx.x);
  __threadfence();
  atomicAdd(&a.pick[1], 1ULL);
  while (atomicAdd(&a.pick[1], 0ULL) < gridDim.x) {
  }
  return (atomicAdd(&a.pick[0], 0ULL) & 0xffffffffULL) == blockIdx.x;
}

// nearest_block's answer in every thread of the block.
__device__ bool picked_block(const DeviceRunArgs& a) {
  __shared__ int picked;
  if (threadIdx.x == 0) picked = nearest_block(a) ? 1 : 0;
  __syncthreads();
  return picked != 0;
}

// A ping-pong of one LL word pair (messages up to 8 B) with a GPU peer:
// one thread (of the block nearest_block picked) runs every repetition,
// with no block barrier and no nap in its poll (the clock is read every
// 1024 polls, for the timeout). Through the general steps the same
// exchange took 1.17 us one-way, 0.78 this way, against 0.75 for a bare
// flag ping-pong (bench/probes/node_probe.cu flag) on the same two H100
// (bench/results/2026-11-27-h100x2-device-transport).
__device__ void ll_pingpong_one_pair(const DeviceRunArgs& a) {
  const RunSpec& s = a.spec;
  if (threadIdx.x != 0) return;
  std::uint64_t sent = s.base.sent, received = s.base.received, held = 0;
  for (std::uint32_t r = 0; r < s.reps; ++r) {
    for (int step = 0; step < 2; ++step) {
      if ((step == 0) == s.initiator) {
        const std::uint64_t d = s.echo && !s.initiator ? held : load8(a.links.send, s.bytes);
        ++sent;
        st_pair(a.links.out.ll, ll_word(static_cast<std::uint32_t>(d), sent),
                ll_word(static_cast<std::uint32_t>(d >> 32), sent));
        continue;
      }
      ++received;
      std::uint64_t lo, hi, start = 0;
      for (std::uint32_t polls = 1;; ++polls) {
        ld_pair(a.links.in.ll, lo, hi);
        if (ll_at_least(lo, received) && ll_at_least(hi, received)) break;
        if ((polls & 1023U) != 0) continue;
        const std::uint64_t now = global_ns();
        if (start == 0) start = now;
        if (now - start <= s.timeout_ns) continue;
        report_timeout(a, WaitFor::message, received, (ll_at_least(lo, received) ? hi : lo) >> 32, r);
        return;
      }
      held = ll_data(lo) | (static_cast<std::uint64_t>(ll_data(hi)) << 32);
      store8(a.links.recv_ll, held, s.bytes);
    }
    a.clocks[r + 1] = static_cast<std::uint64_t>(clock64());
  }
  a.timer[1] = global_ns();
}

// Runs one step; every thread keeps its own copy of the counters, so all
// agree without sharing them (`pulls` counts pull-mode receives of this
// run). False when a wait gave up.
__device__ bool run_step(const DeviceRunArgs& a, const Step& st, Counters& c, std::uint32_t rep,
                         unsigned long long& pulls) {
  const RunSpec& s = a.spec;
  switch (st.kind) {
    case StepKind::send:
    case StepKind::echo: {
      const unsigned char* src = st.kind == StepKind::send ? a.links.send : (s.ll ? a.links.recv_ll : a.links.in.data);
      for (std::uint32_t m = 0; m < st.count; ++m) {
        const std::uint64_t seq = ++c.sent;
        if (s.ll) {
          ll_send(a, src, seq);
        } else {
          flag_send(a, src, seq);
        }
      }
      return true;
    }
    case StepKind::receive:
      c.received += st.count;  // a window is complete when its last message is
      if (s.ll) return ll_receive(a, c.received, rep);
      if (!s.pull) return block_wait_parts(a, c.received, rep);
      ++pulls;
      return pull_messages(a, st.count, c.received, rep);
    case StepKind::send_ack: {
      ++c.acks_sent;
      bool ok = true;
      if (lead_thread(s)) {
        // Pull mode: the window is received when every block has fetched it.
        Patience patience(s.timeout_ns);
        while (ok && s.pull && !s.ll && atomicAdd(a.pulled, 0ull) < pulls * s.my_parts) {
          if (patience.exhausted()) {
            report_timeout(a, WaitFor::message, c.received, atomicAdd(a.pulled, 0ull), rep);
            ok = false;
          }
        }
        if (ok) st_release(&a.links.out.flags->ack, c.acks_sent);
      }
      return !lead_block(s) || __syncthreads_and(ok) != 0;
    }
    case StepKind::receive_ack:
      ++c.acks_received;
      return block_wait_word(a, &a.links.in.flags->ack, c.acks_received, WaitFor::ack, rep);
  }
  return true;
}

// The one-pair path in the block nearest its polled word (thread 0 alone):
// the ready handshake and the start stamps, then the exchange.
__device__ void one_pair_run(const DeviceRunArgs& a) {
  if (!nearest_block(a)) return;
  st_release(&a.links.out.flags->ready, a.spec.run);
  if (!wait_at_least(a, &a.links.in.flags->ready, a.spec.run, WaitFor::start, 0)) return;
  a.timer[0] = global_ns();
  a.clocks[0] = static_cast<std::uint64_t>(clock64());
  ll_pingpong_one_pair(a);
}

__global__ void __launch_bounds__(kMaxThreads) device_run_kernel(DeviceRunArgs a) {
  const RunSpec& s = a.spec;
  if (one_pair_path(s)) {
    one_pair_run(a);
    return;
  }
  if (picks_block(s) && !picked_block(a)) return;
  // Both sides announce the run and wait for each other, so the first
  // repetition does not include the peer's launch.
  if (lead_thread(s)) st_release(&a.links.out.flags->ready, s.run);
  if (!block_wait_word(a, &a.links.in.flags->ready, s.run, WaitFor::start, 0)) return;
  if (lead_thread(s)) {
    a.timer[0] = global_ns();
    a.clocks[0] = static_cast<std::uint64_t>(clock64());
  }
  const RepSteps steps = rep_steps(s.mode, s.initiator, s.window, s.echo);
  Counters c = s.base;
  unsigned long long pulls = 0;
  for (std::uint32_t r = 0; r < s.reps; ++r) {
#pragma unroll
    for (int i = 0; i < 2; ++i) {  // unrolled, so the steps stay in registers
      if (i < steps.n && !run_step(a, steps.step[i], c, r, pulls)) return;
    }
    if (lead_thread(s)) a.clocks[r + 1] = static_cast<std::uint64_t>(clock64());
  }
  if (lead_thread(s)) a.timer[1] = global_ns();
}

// Threads per block of a run: 512 for large messages; for LL, one thread per
// pair of words, rounded up to a warp, at most 512.
int device_run_threads(const RunSpec& spec) {
  if (!spec.ll) return kMaxThreads;
  const std::uint64_t pairs = ll_pairs(spec.bytes);
  const std::uint64_t warps = (pairs + 31) / 32;
  const std::uint64_t threads = (warps < 1 ? 1 : warps) * 32;
  return static_cast<int>(threads < kMaxThreads ? threads : kMaxThreads);
}

}  // namespace

std::uint32_t device_run_max_parts() {
  int device = 0, sms = 0, per_sm = 0;
  XB_CUDA_CHECK(cudaGetDevice(&device));
  XB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  XB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, device_run_kernel, kMaxThreads, 0));
  const int parts = per_sm > 0 ? sms : 1;
  return static_cast<std::uint32_t>(parts < static_cast<int>(kMaxParts) ? parts : static_cast<int>(kMaxParts));
}

void launch_device_run(const DeviceRunArgs& args, cudaStream_t stream) {
  DeviceRunArgs copy = args;
  void* params[] = {&copy};
  // Cooperative: the launch fails instead of deadlocking when not every
  // block can be resident at once (blocks wait on each other's flags).
  unsigned blocks = args.spec.ll ? 1U : args.spec.my_parts;
  if (picks_block(args.spec)) {  // one block per SM; the nearest runs the run
    int device = 0, sms = 1;
    XB_CUDA_CHECK(cudaGetDevice(&device));
    XB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    blocks = static_cast<unsigned>(sms);
  }
  XB_CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(&device_run_kernel), dim3(blocks),
                                            dim3(static_cast<unsigned>(device_run_threads(args.spec))), params, 0,
                                            stream));
}

}  // namespace xb::pingpong
