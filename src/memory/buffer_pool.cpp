#include "memory/buffer_pool.hpp"

namespace xb {
namespace {

// Page-locked host memory, which also counts against RLIMIT_MEMLOCK
// (huge-page buffers are registered with CUDA, so they count too).
bool is_page_locked(const Location& loc) noexcept {
  return loc.kind == MemKind::pinned || loc.kind == MemKind::write_combined || loc.kind == MemKind::mapped ||
         loc.kind == MemKind::hugepages;
}

// The message of a request set that exceeds a fixed budget.
std::string over_budget_message(int group, std::uint64_t need, std::uint64_t budget) {
  const std::string where = group == kHostGroup ? "host memory" : fmt::format("gpu{}", group);
  return fmt::format("needs {} of {} at once, above the --max-memory budget of {}; raise --max-memory or lower -b",
                     bytes_label(need), where, bytes_label(budget));
}

}  // namespace

MemoryAmount memory_need(const std::vector<BufferRequest>& requests) {
  MemoryAmount need;
  for (const auto& r : requests) {
    const std::uint64_t f = footprint_bytes(r.loc, r.bytes);
    need.add(memory_group(r.loc), f);
    if (is_page_locked(r.loc)) need.host_locked += f;
    if (r.loc.kind == MemKind::hugepages) need.host_hugepages += f;
  }
  return need;
}

std::optional<std::string> budget_shortfall(const MemoryAmount& need, const MemoryAmount& budget) {
  const int gpus = static_cast<int>(std::max(need.gpu.size(), budget.gpu.size()));
  for (int g = kHostGroup; g < gpus; ++g)
    if (need.get(g) > budget.get(g)) return over_budget_message(g, need.get(g), budget.get(g));
  return std::nullopt;
}

}  // namespace xb
