// Multi-node check under mpirun / srun, as a thin adapter over the
// communicator: one process per node (local rank 0) checks its node, every
// rank takes part in gathering the nodes' records, and all ranks learn the
// same fleet verdict, so they exit alike. Until the shared fleet mechanism
// (issue 22) lands, this is check's own; its records are what that
// mechanism will gather (a node's "check" section plus its hostname).
#pragma once

#include <functional>
#include <vector>

#include <nlohmann/json.hpp>

#include "comm/communicator.hpp"

namespace xb::check {

// Runs `node_work` on the first rank of every host and returns, on every
// rank, the records of all nodes in rank order. A node whose work throws
// xb::Error contributes {"hostname", "verdict": "error", "error",
// "exit_code"} instead; other ranks of the job are not disturbed.
std::vector<nlohmann::json> gather_node_records(comm::Communicator& comm,
                                                const std::function<nlohmann::json()>& node_work,
                                                comm::Seconds timeout);

// 0 when every node passed, 1 when any failed or could not check itself,
// 130 / 143 when a signal stopped one (its own code), 10 when the time
// limit alone kept some from passing.
int fleet_exit_code(const std::vector<nlohmann::json>& nodes);

}  // namespace xb::check
