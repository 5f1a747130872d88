#include "check/fleet.hpp"

#include "base/stop.hpp"

namespace xb::check {

using json = nlohmann::json;

std::vector<json> gather_node_records(comm::Communicator& comm, const std::function<json()>& node_work,
                                      comm::Seconds timeout) {
  std::string mine;
  if (comm.local_rank() == 0) {
    json record;
    try {
      record = node_work();
    } catch (const Error& e) {
      record = {{"hostname", comm.host_name()}, {"verdict", "error"}, {"error", e.what()},
                {"exit_code", exit_code(e.kind())}};
    }
    if (!record.contains("hostname")) record["hostname"] = comm.host_name();
    mine = record.dump();
  }
  std::vector<json> nodes;
  for (const std::string& s : comm.allgather(mine, timeout))
    if (!s.empty()) nodes.push_back(json::parse(s));
  return nodes;
}

int fleet_exit_code(const std::vector<json>& nodes) {
  // A node stopped by a signal makes the job's code 130 / 143, as one
  // process's would; any other node not passing makes it 1; every node
  // passing or cut short by --time-limit alone, 10.
  for (const json& n : nodes)
    if (n.value("verdict", "error") == "interrupted") return n.value("exit_code", 1);
  bool partial = false;
  for (const json& n : nodes) {
    const std::string v = n.value("verdict", "error");
    if (v == "partial") partial = true;
    else if (v != "pass") return 1;
  }
  if (nodes.empty()) return 1;
  return partial ? stop_exit_code(StopReason::time_limit) : 0;
}

}  // namespace xb::check
