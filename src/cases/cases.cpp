#include "cases/cases.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "base/error.hpp"
#include "machine/hugepages.hpp"
#include "machine/pairs.hpp"
#include "base/units.hpp"

namespace xb {
namespace {

using P = Pattern;
constexpr Engine CE = Engine::copy_engine;
constexpr Engine SM = Engine::sm;
constexpr Engine TMA = Engine::tma;
constexpr const char* XB = kOriginXferbench;

// Cases added after nvbandwidth v0.8 (its indices end at 34).
void add_xferbench_cases(std::vector<CaseDef>& c) {
  c.push_back({35, "host_to_all_bidirectional_memcpy_sm_streaming", P::host_to_all_bidir, SM,
               "as host_to_all_bidirectional_memcpy_sm's own figure (every copy walks the whole buffer), "
               "without measuring nvbandwidth's in-place order too",
               XB, true});
  c.push_back({36, "all_to_host_bidirectional_memcpy_sm_streaming", P::all_to_host_bidir, SM,
               "as all_to_host_bidirectional_memcpy_sm's own figure (every copy walks the whole buffer), "
               "without measuring nvbandwidth's in-place order too",
               XB, true});
  c.push_back({37, "managed_migration_host_to_device", P::managed_migration_to_device, SM,
               "GPU kernel touches managed pages that sit on the host: GB/s when every byte is read, "
               "ns per 4 KiB and per 2 MiB page touched",
               XB});
  c.push_back({38, "managed_migration_device_to_host", P::managed_migration_to_host, Engine::cpu,
               "a host thread touches managed pages that sit on the GPU: GB/s when every byte is read, "
               "ns per 4 KiB and per 2 MiB page touched",
               XB});
  c.push_back({39, "device_to_device_memcpy_read_tma", P::d2d_read, TMA,
               "GPU(row) reads from GPU(column) through the Tensor Memory Accelerator (cp.async.bulk), sm_90+", XB});
  c.push_back({40, "device_to_device_memcpy_write_tma", P::d2d_write, TMA,
               "GPU(row) writes to GPU(column) through the Tensor Memory Accelerator (cp.async.bulk), sm_90+", XB});
  c.push_back({41, "device_to_device_latency_tma", P::d2d_latency, TMA,
               "GPU(row) chain of dependent 16-byte TMA copies from GPU(column) memory: ns per copy, sm_90+", XB});
  c.push_back({42, "device_local_copy_tma", P::local_copy, TMA,
               "copy within each GPU's own memory through the Tensor Memory Accelerator, sm_90+", XB});
  c.push_back({43, "device_local_read_sm", P::local_read, Engine::sm_read,
               "each GPU reads its own memory with a read-only SM kernel: memory read bandwidth", XB});
  c.push_back({44, "device_local_write_sm", P::local_write, Engine::sm_write,
               "each GPU writes its own memory with a write-only SM kernel: memory write bandwidth", XB});
  c.push_back({45, "device_local_latency_sm", P::local_latency, SM,
               "GPU pointer chase through its own memory (a 512 MiB ring of scattered cache lines, past the L2): "
               "ns per dependent access", XB});
  // Loaded latency: the chase idle, then while copy-engine copies keep the same link busy.
  const std::string loaded = ", idle and while {}: the two latencies, their ratio, and the load's GB/s and % of peak";
  auto under = [&](int index, const char* name, Pattern p, LatencyLoad load, const std::string& chase, const char* by) {
    CaseDef d{index, name, p, SM, chase + fmt::format(fmt::runtime(loaded), by), XB};
    d.load = load;
    c.push_back(d);
  };
  const std::string host_chase = "GPU pointer chase through host memory";
  under(46, "host_device_latency_sm_under_host_to_device_ce", P::host_device_latency, LatencyLoad::host_to_device,
        host_chase, "host -> GPU copy-engine copies load the host link");
  under(47, "host_device_latency_sm_under_device_to_host_ce", P::host_device_latency, LatencyLoad::device_to_host,
        host_chase, "GPU -> host copy-engine copies load the host link");
  under(48, "host_device_latency_sm_under_bidirectional_ce", P::host_device_latency, LatencyLoad::bidirectional,
        host_chase, "copy-engine copies load the host link both ways");
  under(49, "device_local_latency_sm_under_local_copy_ce", P::local_latency, LatencyLoad::local_copy,
        "GPU pointer chase through its own memory", "a copy-engine copy within the same memory loads it");
  under(50, "device_to_device_latency_sm_under_read_ce", P::d2d_latency, LatencyLoad::peer_read,
        "GPU(row) pointer chase through GPU(column) memory",
        "GPU(row)'s copy engine reads GPU(column) memory over the same link");
}

bool is_all(Pattern p) { return p == P::all_to_host_bidir || p == P::host_to_all_bidir; }

std::vector<CaseDef> make_catalogue() {
  // Index order is nvbandwidth's, so `-t 5` means the same case in both tools.
  std::vector<CaseDef> c = {
      {0, "host_to_device_memcpy_ce", P::host_to_device, CE, "host -> each GPU, copy engine, one GPU at a time"},
      {1, "device_to_host_memcpy_ce", P::device_to_host, CE, "each GPU -> host, copy engine, one GPU at a time"},
      {2, "host_to_device_bidirectional_memcpy_ce", P::host_to_device_bidir, CE,
       "host -> GPU measured while GPU -> host runs the other way"},
      {3, "device_to_host_bidirectional_memcpy_ce", P::device_to_host_bidir, CE,
       "GPU -> host measured while host -> GPU runs the other way"},
      {4, "device_to_device_memcpy_read_ce", P::d2d_read, CE, "GPU(row) reads from GPU(column), copy engine of the reader"},
      {5, "device_to_device_memcpy_write_ce", P::d2d_write, CE, "GPU(row) writes to GPU(column), copy engine of the writer"},
      {6, "device_to_device_bidirectional_memcpy_read_ce", P::d2d_bidir_read, CE,
       "both GPUs of a pair read from each other at once; each direction and the total"},
      {7, "device_to_device_bidirectional_memcpy_write_ce", P::d2d_bidir_write, CE,
       "both GPUs of a pair write to each other at once; each direction and the total"},
      {8, "all_to_host_memcpy_ce", P::all_to_host, CE, "GPU -> host measured while every other GPU also copies to host"},
      {9, "all_to_host_bidirectional_memcpy_ce", P::all_to_host_bidir, CE,
       "GPU -> host measured while every GPU copies both ways"},
      {10, "host_to_all_memcpy_ce", P::host_to_all, CE, "host -> GPU measured while host also copies to every other GPU"},
      {11, "host_to_all_bidirectional_memcpy_ce", P::host_to_all_bidir, CE,
       "host -> GPU measured while every GPU copies both ways"},
      {12, "all_to_one_write_ce", P::all_to_one_write, CE, "every peer writes to GPU(column) at once; total inbound"},
      {13, "all_to_one_read_ce", P::all_to_one_read, CE, "every peer reads from GPU(column) at once; total outbound"},
      {14, "one_to_all_write_ce", P::one_to_all_write, CE, "GPU(column) writes to every peer at once; total outbound"},
      {15, "one_to_all_read_ce", P::one_to_all_read, CE, "GPU(column) reads from every peer at once; total inbound"},
  };
  const std::size_t ce_count = c.size();
  for (std::size_t i = 0; i < ce_count; ++i) {
    CaseDef sm = c[i];
    sm.index = static_cast<int>(16 + i);
    sm.engine = SM;
    sm.name.replace(sm.name.size() - 2, 2, "sm");
    const auto pos = sm.description.find("copy engine");
    if (pos != std::string::npos) sm.description.replace(pos, 11, "SM copy kernel");
    if (is_host_bidir(sm.pattern))
      sm.description = fmt::format("{}: one split-warp SM kernel per GPU moves half the bytes each way, reported "
                                   "per direction, walking the whole buffer; nvbandwidth's in-place order is measured "
                                   "too (its layouts print that figure)",
                                   is_all(sm.pattern) ? "every GPU copies both ways at once, the column GPU measured"
                                                      : "host <-> GPU both ways at once");
    c.push_back(sm);
  }
  c.push_back({32, "host_device_latency_sm", P::host_device_latency, SM,
               "GPU pointer chase through host memory: ns per dependent access"});
  c.push_back({33, "device_to_device_latency_sm", P::d2d_latency, SM,
               "GPU(row) pointer chase through GPU(column) memory: ns per dependent access"});
  c.push_back({34, "device_local_copy", P::local_copy, CE, "copy within each GPU's own memory, copy engine"});
  add_xferbench_cases(c);
  return c;
}

bool is_index(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char ch) { return std::isdigit(ch); });
}

bool needs_peers(Pattern p) { return is_fan(p) || is_pairwise(p); }

// "0-44": the indices the catalogue has, as ranges.
std::string index_ranges() {
  std::vector<int> indices;
  for (const CaseDef& d : case_catalogue()) indices.push_back(d.index);
  return int_ranges(indices, ", ");
}

}  // namespace

const std::vector<CaseDef>& case_catalogue() {
  static const std::vector<CaseDef> catalogue = make_catalogue();
  return catalogue;
}

std::vector<const CaseDef*> select_cases(const std::vector<std::string>& names,
                                         const std::vector<std::string>& prefixes) {
  const auto& all = case_catalogue();
  std::vector<const CaseDef*> out;
  auto add = [&out](const CaseDef* d) {
    if (std::find(out.begin(), out.end(), d) == out.end()) out.push_back(d);
  };
  for (const auto& n : names) {
    const bool by_index = is_index(n);
    const std::int64_t idx = !by_index || n.size() > 6 ? -1 : parse_int(n, "case index");
    auto at = std::find_if(all.begin(), all.end(), [&](const CaseDef& d) { return by_index ? d.index == idx : d.name == n; });
    if (at == all.end())
      fail(ErrorKind::usage, by_index ? fmt::format("case index {} out of range (the catalogue has {}); see 'xferbench "
                                                    "cases'", n, index_ranges())
                                      : fmt::format("unknown case '{}'; see 'xferbench cases'", n));
    add(&*at);
  }
  for (const auto& p : prefixes) {
    bool matched = false;
    for (const auto& d : all) {
      if (d.name.compare(0, p.size(), p) == 0) {
        add(&d);
        matched = true;
      }
    }
    if (!matched || p.empty())
      fail(ErrorKind::usage, fmt::format("case prefix '{}' matches no case; see 'xferbench cases'", p));
  }
  return out;
}

std::vector<const CaseDef*> suite_cases(const std::string& suite) {
  std::vector<const CaseDef*> out;
  if (suite == "full" || suite == "all") {
    for (const auto& d : case_catalogue())
      if (suite == "all" || d.index < kNvbandwidthCases) out.push_back(&d);
    return out;
  }
  if (suite == "loaded") {
    for (const auto& d : case_catalogue())
      if (d.load != LatencyLoad::none) out.push_back(&d);
    return out;
  }
  if (suite == "quick") {
    return select_cases({"host_to_device_memcpy_ce", "device_to_host_memcpy_ce", "host_to_device_memcpy_sm",
                         "device_to_host_memcpy_sm", "device_to_device_memcpy_read_ce",
                         "device_to_device_memcpy_write_ce", "device_to_device_memcpy_read_sm",
                         "device_to_device_memcpy_write_sm", "device_local_copy"},
                        {});
  }
  fail(ErrorKind::usage, fmt::format("unknown suite '{}' (expected quick, full, loaded or all)", suite));
}

// Managed migration allocates managed memory, not host buffers of the
// --host-mem kind, so huge pages do not apply to it.
bool uses_host_memory(Pattern p) noexcept {
  return !needs_peers(p) && p != P::local_copy && p != P::local_read && p != P::local_write && p != P::local_latency &&
         p != P::managed_migration_to_device && p != P::managed_migration_to_host;
}

bool is_host_copy(Pattern p) noexcept { return uses_host_memory(p) && p != P::host_device_latency; }

bool is_pairwise(Pattern p) noexcept {
  return p == P::d2d_read || p == P::d2d_write || p == P::d2d_bidir_read || p == P::d2d_bidir_write ||
         p == P::d2d_latency;
}

bool is_host_bidir(Pattern p) noexcept {
  return p == P::host_to_device_bidir || p == P::device_to_host_bidir || p == P::all_to_host_bidir ||
         p == P::host_to_all_bidir;
}

bool is_latency(Pattern p) noexcept {
  return p == P::host_device_latency || p == P::d2d_latency || p == P::local_latency;
}

bool is_fan(Pattern p) noexcept {
  return p == P::all_to_one_write || p == P::all_to_one_read || p == P::one_to_all_write || p == P::one_to_all_read;
}

std::optional<std::string> waive_reason(const CaseDef& def, const System& sys) {
  if (def.pattern == P::managed_migration_to_device || def.pattern == P::managed_migration_to_host) {
    for (const auto& g : sys.gpus)
      if (!g.managed_memory) return fmt::format("gpu{} does not support managed memory", g.index);
    return std::nullopt;
  }
  if (def.engine == Engine::tma) {
    bool any = false;
    std::string have;
    for (const auto& g : sys.gpus) {
      any = any || g.cc_major >= 9;
      have += fmt::format("{}gpu{} {}.{}", have.empty() ? "" : ", ", g.index, g.cc_major, g.cc_minor);
    }
    if (!any)
      return fmt::format("needs a GPU with a Tensor Memory Accelerator (compute capability 9.0 or later); this machine "
                         "has {}", have.empty() ? "no GPU" : have);
  }
  if (!needs_peers(def.pattern)) return std::nullopt;
  if (sys.gpu_count() < 2) return fmt::format("needs at least 2 GPUs; this machine has {}", sys.gpu_count());
  if (!peer_pairs(sys).empty()) return std::nullopt;
  return std::string("no GPU pair has peer access");
}

std::vector<int> gpus_used(const CaseDef& def, int row, int col, int gpu_count) {
  switch (def.pattern) {
    case Pattern::all_to_host: case Pattern::all_to_host_bidir: case Pattern::host_to_all:
    case Pattern::host_to_all_bidir: case Pattern::all_to_one_write: case Pattern::all_to_one_read:
    case Pattern::one_to_all_write: case Pattern::one_to_all_read: {
      std::vector<int> all(static_cast<std::size_t>(gpu_count));
      for (int g = 0; g < gpu_count; ++g) all[static_cast<std::size_t>(g)] = g;
      return all;
    }
    case Pattern::d2d_read: case Pattern::d2d_write: case Pattern::d2d_bidir_read: case Pattern::d2d_bidir_write:
    case Pattern::d2d_latency:
      return {row, col};
    default:
      return {col};
  }
}

}  // namespace xb
