// What a node of a fleet measured, as records: its result document on the
// way (NodeDocument, opaque outside fleet/node_json.hpp) and the record
// decoded from it on rank 0 (ResultRecord).
#pragma once

#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "cases/sweep.hpp"
#include "records/check_verdict.hpp"
#include "records/result.hpp"
#include "records/scenario.hpp"

namespace xb::fleet {

// A node's result document as it travels: bytes only fleet/node_json.hpp
// writes and reads (made by node_document(), never from a JSON value by
// accident: the constructor is explicit).
struct NodeDocument {
  NodeDocument() = default;
  explicit NodeDocument(std::string b) : bytes(std::move(b)) {}
  std::string bytes;
  bool empty() const { return bytes.empty(); }
};

struct Node {
  std::string host;        // the communicator's host name of the leader
  std::vector<int> ranks;  // ascending; ranks[0] measures the node
  long pid = 0;            // process id of ranks[0]
};

// One node's result, on rank 0, as it arrived (its document still bytes).
struct NodeRecord {
  Node node;
  int exit_code = 0;         // the node's own status (0 passed, 1 failed, 3 no GPU, ...)
  std::string error_kind;    // empty when the node produced a result; else to_string(ErrorKind)
  std::string error;         // one line: why the node has no result
  NodeDocument document;     // the node's result document; empty with an error
  bool ok() const { return error_kind.empty(); }
};

// check's result: the run it judged and its verdict.
struct CheckedRun {
  RunResult run;
  records::CheckVerdict check;
};

// A node's result: none (an error row), a run, a check, a size sweep or a
// concurrent scenario.
using ResultRecord = std::variant<std::monostate, RunResult, CheckedRun, SweepResult, ScenarioResult>;

// The run of a run or check result; nullptr for the others.
const RunResult* run_of(const ResultRecord& r);
// The verdict of a check result; nullptr for the others.
const records::CheckVerdict* check_of(const ResultRecord& r);

}  // namespace xb::fleet
