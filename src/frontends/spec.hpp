// Transfer specs in the multi-gpu-bwtest `--do` grammar, and their expansion
// into a Scenario. Pure: no CUDA here, so every rule is unit-tested and fuzzed
// on a machine without a GPU.
//
// Grammar (as multi-gpu-bwtest documents it):
//
//   <device>[:<direction>][:<size>][:<memory options>...]
//
//   device     a GPU id (0, 1, ...) or `all` (every GPU, in id order)
//   direction  HtoD | DtoH | both (HtoD then DtoH; default)
//              | reverse (DtoH then HtoD); case-insensitive
//   size       bytes, starting with a digit; binary suffixes as parse_size
//              (1024, 64K, 32MiB); default 32 MiB
//   options    comma list: `mapped` (pinned and mapped into the GPU address
//              space), `wc` (pinned write-combined)
//
// Fields after the device come in any order and are recognised by content,
// so `all:1024:both` and `all:both:1024` mean the same. A direction and a
// size may each appear once; repeated or conflicting fields are errors.
//
// Extensions (each uses words or forms the original grammar does not
// document, so no documented spec changes meaning):
//   - memory options `pinned` (the default), `pageable`, `managed`,
//     `hugepages` (pinned memory on 2 MiB pages of the hugetlb pool); one
//     host memory kind per transfer, so mapped, wc, pageable, managed and
//     hugepages (and an explicit pinned) exclude each other. The original
//     allowed `mapped,wc` together; here that is an error because MemKind
//     holds one kind.
//   - key=value items in an options field:
//       numa=N        NUMA node of the host buffer (default: the GPU's own
//                     node, kGpuNumaNode)
//       engine=ce|sm  copy engine (cudaMemcpyAsync, default) or SM kernel
//       peer=N        destination GPU of a DtoD copy (required with DtoD)
//       issuer=src|dst  which GPU's stream issues a DtoD copy (default src)
//   - direction `DtoD`: copy from <device> to GPU <peer>. It needs one
//     device (not `all`), a peer other than the device, and no host memory
//     option or numa= (it has no host buffer); `managed` makes both buffers
//     managed. peer= and issuer= without DtoD are errors.
//   - several specs in one string, separated by whitespace
//     ("0:HtoD 1:DtoH"); each keeps its own text for error messages.
//
// Expansion order: `both`/`reverse` give two legs; for `all` every GPU runs
// the first leg, then every GPU runs the second, which is the row order of
// the original tool's output.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/model.hpp"

namespace xb {

inline constexpr std::uint64_t kDefaultSpecBytes = 32ull << 20;  // 32 MiB

enum class Direction {
  htod,     // host to device
  dtoh,     // device to host
  both,     // HtoD, then DtoH
  reverse,  // DtoH, then HtoD
  dtod,     // device to peer device
};

// "HtoD", "DtoH", "both", "reverse", "DtoD": the spelling users type.
const char* to_string(Direction direction) noexcept;

// Which GPU's stream issues a DtoD copy.
enum class Issuer { src, dst };

struct TransferRequest {
  bool all_devices = false;   // `all`: expanded over every GPU
  int device = 0;             // the GPU when !all_devices
  Direction direction = Direction::both;
  std::uint64_t bytes = kDefaultSpecBytes;
  MemKind memory = MemKind::pinned;  // host side; for DtoD device or managed
  int numa = kGpuNumaNode;  // host buffer node, or kNoNumaPlacement
  Engine engine = Engine::copy_engine;
  int peer = -1;              // DtoD destination GPU; -1 otherwise
  Issuer issuer = Issuer::src;
  std::string spec;           // the text this request came from
};

// Parses one `--do` value (one or more whitespace-separated specs).
// Throws Error(usage) with a one-line message quoting the offending spec.
std::vector<TransferRequest> parse_transfer_spec(const std::string& text);

// "per-transfer", "per-device", "only-one" (case-insensitive).
StreamMode parse_stream_mode(const std::string& text);

// Turns requests into transfers for a machine with `device_count` GPUs.
// HtoD: host buffer -> device memory; DtoH the reverse; DtoD device memory
// on `device` -> device memory on `peer`. A managed buffer on the host side
// is Location{managed, device -1, numa}: managed memory resident on the host
// (on `numa`), not on any GPU; for DtoD each managed buffer has its GPU.
// Labels: "host->gpu0", "gpu0->host(numa1)", "managed->gpu0", "gpu0->gpu1".
// Throws Error(no_device) when device_count is 0, Error(usage) for an id
// that does not exist.
Scenario expand_requests(const std::vector<TransferRequest>& requests, int device_count,
                         StreamMode streams);

}  // namespace xb
