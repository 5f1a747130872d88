#include "check/fleet.hpp"

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
  for (const json& n : nodes)
    if (n.value("verdict", "error") != "pass") return 1;
  return nodes.empty() ? 1 : 0;
}

}  // namespace xb::check
