// From the pairs to the culprits (docs/fabric.md, "Reading the
// attribution"). Every measured bandwidth (both directions, p50) and
// latency (p50) is set against the median of all of them; a pair whose
// worst judged ratio is below min_ratio is low. Then, in this order:
//
//   rail       more than half of a rail's pairs are low, across more than
//              half of its nodes (at least 3): that rail's switch, or what
//              every node's rail shares;
//   node_rail  more than half (and at least 2) of one node's pairs on one
//              rail are low, counting only pairs not already explained:
//              that node's GPU, NIC, PCIe path or cable on the rail; taken
//              greedily, the clearest first, so a bad node does not make
//              its partners look bad; a node with every rail so is `node`
//              (its host, PCIe switch, every NIC);
//   pair_rail  a low pair that no rail or node explains: the cable, switch
//              ports or route between the two; low on every rail (2 or
//              more) it is `pair`.
//
// Failed pairs (a leg not measured, a failed data check) are counted and
// left out of the medians; they are named by the report and by check.
// O(pairs x culprits) time, O(pairs + nodes x rails) memory.
#pragma once

#include <string>
#include <vector>

#include "fabric/result.hpp"

namespace xb::fabric {

// `names[n]`, `rails_of[n]`: node n's name and rails.
Findings attribute(const std::vector<PairRecord>& pairs, const std::vector<std::string>& names,
                   const std::vector<int>& rails_of, double min_ratio, Judge judge);
// The same for a result, from its nodes and options.
Findings attribute(const Result& r);

}  // namespace xb::fabric
