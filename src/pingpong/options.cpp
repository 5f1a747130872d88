#include "pingpong/options.hpp"

#include <climits>

#include <fmt/format.h>

#include "base/error.hpp"
#include "base/names.hpp"
#include "base/units.hpp"

namespace xb::pingpong {

namespace {

constexpr Named<TransportKind> kTransports[] = {
    {TransportKind::automatic, "auto"}, {TransportKind::mpi, "mpi"},   {TransportKind::staged, "staged"},
    {TransportKind::ipc, "ipc"},        {TransportKind::nccl, "nccl"}, {TransportKind::device, "device"}};
constexpr Named<Mode> kModes[] = {{Mode::pingpong, "pingpong"}, {Mode::bw, "bw"}, {Mode::bibw, "bibw"}};
constexpr Named<CudaAware> kCudaAware[] = {
    {CudaAware::automatic, "auto"}, {CudaAware::yes, "yes"}, {CudaAware::no, "no"}};
constexpr Named<Buffers> kBuffers[] = {{Buffers::separate, "separate"}, {Buffers::echo, "echo"}};

// Limits checked by validate(): a window is a count of messages in flight
// (MPI requests, queued copies), not memory the user asked for.
constexpr int kMaxWindow = 1 << 20;
constexpr std::uint64_t kMaxLLBytes = 1 << 20;
constexpr std::uint64_t kMinStageChunk = 4 << 10;

}  // namespace

const char* to_string(TransportKind t) noexcept { return lookup_name(kTransports, t); }
const char* to_string(Mode m) noexcept { return lookup_name(kModes, m); }
const char* to_string(Buffers b) noexcept { return lookup_name(kBuffers, b); }

TransportKind parse_transport(const std::string& text) {
  return parse_named(kTransports, text, "transport", "auto, mpi, staged, ipc, nccl or device");
}
Mode parse_mode(const std::string& text) { return parse_named(kModes, text, "mode", "pingpong, bw or bibw"); }
CudaAware parse_cuda_aware(const std::string& text) {
  return parse_named(kCudaAware, text, "--cuda-aware", "yes, no or auto");
}
Buffers parse_buffers(const std::string& text) { return parse_named(kBuffers, text, "--buffers", "separate or echo"); }

Endpoint parse_endpoint(const std::string& text) {
  // "vh" (vector host) and "ve" (vector engine) are the seed tool's names.
  if (text == "host" || text == "vh") return Endpoint{};
  if (text == "gpu" || text == "ve") return Endpoint{true, -1};
  if (text.rfind("gpu:", 0) == 0) {
    const auto id = parse_int(text.substr(4), "gpu id");
    if (id > INT_MAX) fail(ErrorKind::usage, fmt::format("invalid gpu id in '{}'", text));
    return Endpoint{true, static_cast<int>(id)};
  }
  fail(ErrorKind::usage, fmt::format("invalid device '{}': use host, gpu or gpu:ID (seed spellings vh, ve)", text));
}

std::string to_string(const Endpoint& e) {
  if (!e.gpu) return "host";
  return e.device < 0 ? "gpu" : fmt::format("gpu:{}", e.device);
}

std::vector<std::uint64_t> message_sizes(const Options& o) {
  std::vector<std::uint64_t> sizes;
  std::uint64_t bytes = o.min_bytes;
  for (int i = 0; i < o.num_sizes; ++i) {
    if (bytes > static_cast<std::uint64_t>(INT_MAX)) {
      fail(ErrorKind::usage, fmt::format("-n {} with a first size of {} B goes above 2 GiB - 1 per message",
                                         o.num_sizes, o.min_bytes));
    }
    sizes.push_back(bytes);
    bytes *= 2;
  }
  return sizes;
}

void validate(const Options& o) {
  if (o.num_sizes < 1) fail(ErrorKind::usage, "-n must be at least 1");
  if (o.min_bytes < 1) fail(ErrorKind::usage, "the first message size must be at least 1 byte");
  if (o.loop_count < 1) fail(ErrorKind::usage, "--loop-count must be at least 1");
  if (o.warmup < 0) fail(ErrorKind::usage, "--warmup must not be negative");
  if (o.buffers == Buffers::echo && o.mode != Mode::pingpong) {
    fail(ErrorKind::usage, fmt::format("--buffers echo applies to --mode pingpong only, not --mode {}: in bw "
                                       "and bibw data is only ever sent from a send buffer",
                                       to_string(o.mode)));
  }
  if (o.window < 1) fail(ErrorKind::usage, "--window must be at least 1");
  if (o.window > kMaxWindow) {
    fail(ErrorKind::usage, fmt::format("--window {} is too large: at most {} messages in flight", o.window, kMaxWindow));
  }
  if (o.ll_max_bytes > kMaxLLBytes) {
    fail(ErrorKind::usage, fmt::format("--ll-max {} is too large: at most {} bytes", o.ll_max_bytes, kMaxLLBytes));
  }
  if (o.stage_chunk_bytes < kMinStageChunk || o.stage_chunk_bytes > static_cast<std::uint64_t>(INT_MAX)) {
    fail(ErrorKind::usage, fmt::format("--staged-chunk {} is out of range: {} bytes to 2 GiB - 1",
                                       o.stage_chunk_bytes, kMinStageChunk));
  }
  if (!(o.timeout_s > 0)) fail(ErrorKind::usage, "--timeout must be above 0 seconds");
  message_sizes(o);
}

}  // namespace xb::pingpong
