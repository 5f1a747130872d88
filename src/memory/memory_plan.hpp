// What a run needs in memory, worked out without touching a GPU: the buffers
// of a scenario (they must coexist), and whether a need fits the memory
// there is now (a planned cell's and a case's need: case_plan.hpp).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "memory/buffer_pool.hpp"
#include "base/model.hpp"

namespace xb {

// Host locations with numa -1 resolved for the transfer's GPU; identity
// when empty (the need does not depend on the node).
using LocationResolver = std::function<Location(const Location&, int gpu)>;

// The buffers of one scenario, in transfer order: source then destination,
// each only where the engine uses it (uses_source / uses_destination).
std::vector<BufferRequest> scenario_requests(const Scenario& sc, const LocationResolver& resolve = {});
// Why `need` cannot be met, naming needed and free bytes and the option
// that would help; nullopt when it fits.
std::optional<std::string> memory_shortfall(const MemoryAmount& need, const MemoryAvailable& avail);
// budget_shortfall (why a need exceeds a --max-memory budget): buffer_pool.hpp.

// /proc parsing, separate from the reads so it is tested with fixed text.
// MemAvailable of /proc/meminfo in bytes; nullopt when absent.
std::optional<std::uint64_t> parse_mem_available(const std::string& meminfo);
// Whether CapEff of /proc/self/status holds CAP_IPC_LOCK (locks any amount).
bool parse_cap_ipc_lock(const std::string& proc_status);

}  // namespace xb
