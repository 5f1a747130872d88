#include "firsttouch/options.hpp"

#include <climits>

#include <fmt/format.h>

#include "base/error.hpp"
#include "base/names.hpp"
#include "base/units.hpp"

namespace xb::firsttouch {
namespace {

const char* const kNames[] = {"ITERATIONS", "SUB_ITERATIONS", "P2P_SIZE", "BUFFER_SIZE", "OVERALLOC_SIZE"};

// Counts above this are typing mistakes; every iteration allocates fresh memory.
constexpr std::int64_t kMaxCount = 1000000;

int parse_count(const std::string& text, const char* name) {
  if (!text.empty() && text[0] == '-') {
    fail(ErrorKind::usage, fmt::format("{} must be a positive whole number, got '{}'", name, text));
  }
  const std::int64_t v = parse_int(text, name);
  if (v < 1 || v > kMaxCount) {
    fail(ErrorKind::usage, fmt::format("{} must be between 1 and {}, got {}", name, kMaxCount, text));
  }
  return static_cast<int>(v);
}

std::uint64_t parse_positive_size(const std::string& text, const char* name) {
  if (!text.empty() && text[0] == '-') {
    fail(ErrorKind::usage, fmt::format("{} must be a positive number of bytes, got '{}'", name, text));
  }
  const std::uint64_t v = parse_size(text, name);
  if (v == 0) fail(ErrorKind::usage, fmt::format("{} must be at least 1 byte, got '{}'", name, text));
  return v;
}

constexpr Named<Memory> kMemories[] = {{Memory::gpu, "gpu"}, {Memory::host, "host"}};

void check_positional_count(const RawArgs& raw) {
  const std::size_t n = raw.positional.size();
  const std::size_t need = raw.sweep ? 4 : 5;
  if (n >= need && n <= 5) return;
  fail(ErrorKind::usage,
       fmt::format("first-touch takes ITERATIONS SUB_ITERATIONS P2P_SIZE BUFFER_SIZE OVERALLOC_SIZE{}, got {} "
                   "value(s); e.g. mpirun -np 2 xferbench first-touch 5 3 1K 1G 1",
                   raw.sweep ? " (OVERALLOC_SIZE optional with --sweep-overalloc)" : "", n));
}

// 0, 1 B, 4 KiB, 64 KiB, 2 MiB: none, the seed's worst case, and the small,
// medium and large GPU page sizes.
std::vector<std::uint64_t> default_sweep_overallocs() { return {0, 1, 4096, 65536, 2097152}; }

// Comma-separated sizes with binary suffixes: "0,1,4K" -> {0, 1, 4096}.
std::vector<std::uint64_t> parse_size_list(const std::string& text, const std::string& what) {
  std::vector<std::uint64_t> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start);
    if (item.empty()) fail(ErrorKind::usage, fmt::format("invalid {} '{}': empty list item", what, text));
    if (item[0] == '-') fail(ErrorKind::usage, fmt::format("invalid {} '{}': '{}' is negative", what, text, item));
    out.push_back(parse_size(item, what));
    start = comma + 1;
  }
  return out;
}

}  // namespace

Options to_options(const RawArgs& raw) {
  check_positional_count(raw);
  Options o;
  o.iterations = parse_count(raw.positional[0], kNames[0]);
  o.sub_iterations = parse_count(raw.positional[1], kNames[1]);
  o.p2p_bytes = parse_positive_size(raw.positional[2], kNames[2]);
  o.buffer_sizes = {parse_positive_size(raw.positional[3], kNames[3])};
  if (!raw.buffer_sizes.empty()) o.buffer_sizes = parse_size_list(raw.buffer_sizes, "--buffer-sizes");
  o.sweep = raw.sweep;
  if (raw.sweep) {
    o.overallocs = raw.sweep_list.empty() ? default_sweep_overallocs()
                                          : parse_size_list(raw.sweep_list, "--sweep-overalloc");
  } else {
    // 0 would make both of the seed's variants the same allocation.
    o.overallocs = {parse_positive_size(raw.positional[4], kNames[4])};
  }
  o.host_analogue = raw.host;
  o.memory = parse_named(kMemories, raw.memory, "--memory", "gpu or host");
  o.transport = pingpong::parse_transport(raw.transport);
  o.cuda_aware = pingpong::parse_cuda_aware(raw.cuda_aware);
  o.timeout_s = raw.timeout_s;
  validate(o);
  return o;
}

void validate(const Options& o) {
  if (o.iterations < 1) fail(ErrorKind::usage, fmt::format("ITERATIONS must be at least 1, got {}", o.iterations));
  if (o.sub_iterations < 1) {
    fail(ErrorKind::usage, fmt::format("SUB_ITERATIONS must be at least 1, got {}", o.sub_iterations));
  }
  if (o.p2p_bytes == 0) fail(ErrorKind::usage, "P2P_SIZE must be at least 1 byte, got 0");
  if (o.buffer_sizes.empty() || o.overallocs.empty()) fail(ErrorKind::usage, "no buffer size or overalloc given");
  for (const auto b : o.buffer_sizes) {
    if (b == 0) fail(ErrorKind::usage, "BUFFER_SIZE must be at least 1 byte, got 0");
    if (o.p2p_bytes > b) {
      fail(ErrorKind::usage, fmt::format("P2P_SIZE {} is larger than the buffer size {}: the message is sent from "
                                         "the start of the buffer and must fit in it",
                                         o.p2p_bytes, b));
    }
  }
  for (const auto v : o.overallocs) {
    if (v > (1ULL << 40)) fail(ErrorKind::usage, fmt::format("overalloc size {} is above 1 TiB", v));
  }
  const bool through_mpi = o.memory == Memory::host || o.transport == pingpong::TransportKind::mpi ||
                           o.transport == pingpong::TransportKind::staged;
  if (!o.host_analogue && through_mpi && o.p2p_bytes > static_cast<std::uint64_t>(INT_MAX)) {
    fail(ErrorKind::usage, fmt::format("P2P_SIZE {} is above MPI's 2 GiB - 1 message count; use ipc or nccl",
                                       o.p2p_bytes));
  }
  if (!(o.timeout_s > 0)) fail(ErrorKind::usage, fmt::format("--timeout must be positive, got {}", o.timeout_s));
  if (o.transport == pingpong::TransportKind::device) {
    fail(ErrorKind::usage, "first-touch has no device transport (it measures the first send of a library path); "
                           "use auto, mpi, staged, ipc or nccl");
  }
  const bool gpu_only = o.transport == pingpong::TransportKind::ipc || o.transport == pingpong::TransportKind::nccl;
  if (o.memory == Memory::host && gpu_only) {
    fail(ErrorKind::usage, fmt::format("--transport {} needs GPU buffers; use --memory gpu, or mpi for host buffers",
                                       pingpong::to_string(o.transport)));
  }
  if (o.host_analogue && o.memory == Memory::host) {
    fail(ErrorKind::usage, "--host measures host -> GPU copies; it cannot be combined with --memory host");
  }
}

std::vector<Variant> variants(const Options& o) {
  std::vector<Variant> out;
  for (const auto b : o.buffer_sizes) {
    if (o.sweep) {
      for (const auto v : o.overallocs) out.push_back(Variant{b, v});
    } else {
      out.push_back(Variant{b, o.overallocs.at(0)});
      out.push_back(Variant{b, 0});
    }
  }
  return out;
}

std::string variant_label(const Options& o, const Variant& v) {
  if (!o.sweep) return v.overalloc_bytes > 0 ? "with overalloc" : "without overalloc";
  return fmt::format("+{} B", v.overalloc_bytes);
}

}  // namespace xb::firsttouch
