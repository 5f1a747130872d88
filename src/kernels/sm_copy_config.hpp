// The launch shape of the SM copy kernels: what --sm-config sets and
// sm_shape.hpp chooses. Plain data, shared by the kernels and the records.
#pragma once

namespace xb {

// Launch shape of the SM copy kernel. Zero fields mean "choose".
//  - vector: every thread moves 16-byte vectors, `unroll` loads in flight;
//  - bulk (Hopper and later): one thread per block drives the SM's bulk
//    asynchronous copy unit (cp.async.bulk) through `stages` shared-memory
//    buffers of `chunk_kib` KiB each: global -> shared -> global.
struct SmCopyConfig {
  enum class Method { vector, bulk };
  Method method = Method::vector;
  int blocks_per_sm = 0;
  int threads = 0;   // per block (vector)
  int unroll = 0;    // 16-byte vectors in flight per thread: 1, 2, 4, 8, 12 or 16 (vector)
  bool streaming = false;  // evict-first cache hints on loads and stores (vector)
  bool l2_256b = false;    // loads ask L2 for 256-byte blocks (vector)
  bool l2_only = false;    // loads and stores cached in L2 only, .cg (vector)
  int chunk_kib = 0;  // bulk
  int stages = 0;     // bulk: 2, 3 or 4
};

// The unrolls the vector kernel is built for (sm_kernels.cu's with_unroll).
constexpr bool vector_unroll_supported(int u) noexcept { return u == 1 || u == 2 || u == 4 || u == 8 || u == 12 || u == 16; }

}  // namespace xb
