// compare for two fabric files (compare.hpp, compare_fabrics).
#include <map>

#include <fmt/format.h>

#include "compare/compare.hpp"
#include "fabric/fabric_json.hpp"

namespace xb {
namespace {

using fabric::Leg;
using fabric::PairRecord;
using fabric::Result;

// One figure of a pair: its value (GB/s or ns), spread and count.
struct Figure {
  double value = 0, stddev = 0;
  int samples = 0;
};

Figure bandwidth(const Leg& l) {
  const double g = fabric::gbps_p50(l);
  const double rel = l.one_way_s.median > 0 ? l.one_way_s.stddev / l.one_way_s.median : 0;
  return {g, g * rel, l.one_way_s.count};
}

Figure latency(const Leg& l) { return {l.one_way_s.median * 1e9, l.one_way_s.stddev * 1e9, l.one_way_s.count}; }

// "n1-n2 rail 0" (names, so two launches that number their nodes
// differently still line up) -> the pair.
std::map<std::string, const PairRecord*> by_name(const Result& r) {
  std::map<std::string, const PairRecord*> out;
  for (const PairRecord& p : r.pairs) out[fabric::pair_name(r, p)] = &p;
  return out;
}

CompareEntry note(const std::string& key, Verdict v, const std::string& why) {
  CompareEntry e;
  e.key = key;
  e.verdict = v;
  e.note = why;
  return e;
}

void compare_pair(const std::string& name, const Result& o, const PairRecord& op, const Result& n,
                  const PairRecord& np, const CompareOptions& opts, CompareResult& out) {
  const std::string a = o.nodes[static_cast<std::size_t>(op.a)].name, b = o.nodes[static_cast<std::size_t>(op.b)].name;
  const bool swapped = n.nodes[static_cast<std::size_t>(np.a)].name != a;  // the other file holds it as b-a
  struct Item {
    std::string key;
    const std::optional<Leg>& old_leg;
    const std::optional<Leg>& new_leg;
    bool is_latency;
  };
  const Item items[] = {
      {fmt::format("{} {}->{}", name, a, b), op.ab, swapped ? np.ba : np.ab, false},
      {fmt::format("{} {}->{}", name, b, a), op.ba, swapped ? np.ab : np.ba, false},
      {fmt::format("{} latency", name), op.latency, np.latency, true},
  };
  for (const Item& it : items) {
    const bool old_ok = it.old_leg && fabric::measured(*it.old_leg) && it.old_leg->verified;
    const bool new_ok = it.new_leg && fabric::measured(*it.new_leg) && it.new_leg->verified;
    if (!old_ok) {
      out.entries.push_back(note(it.key, Verdict::skipped, "not measured in OLD"));
      continue;
    }
    if (!new_ok) {
      const std::string why = !np.error.empty() ? np.error : it.new_leg ? "its data check failed" : "not measured";
      out.entries.push_back(note(it.key, Verdict::failed, why));
      continue;
    }
    const Figure x = it.is_latency ? latency(*it.old_leg) : bandwidth(*it.old_leg);
    const Figure y = it.is_latency ? latency(*it.new_leg) : bandwidth(*it.new_leg);
    out.entries.push_back(compare_values(it.key, it.is_latency ? "ns" : "gbps", x.value, x.stddev, x.samples, y.value,
                                         y.stddev, y.samples, opts));
  }
}

}  // namespace

CompareResult compare_fabrics(const Result& o, const Result& n, const CompareOptions& opts, const std::string& old_name,
                              const std::string& new_name) {
  CompareResult out;
  out.schema = fabric::kFabricSchema;
  out.options = opts;
  const auto old_pairs = by_name(o);
  auto new_pairs = by_name(n);
  // A pair is the same pair whichever node the file lists first.
  for (const PairRecord& p : n.pairs) {
    const std::string flipped = fmt::format("{}-{} rail {}", n.nodes[static_cast<std::size_t>(p.b)].name,
                                            n.nodes[static_cast<std::size_t>(p.a)].name, p.rail);
    new_pairs.emplace(flipped, &p);
  }
  for (const auto& [name, op] : old_pairs) {
    const auto it = new_pairs.find(name);
    if (it == new_pairs.end()) {
      out.entries.push_back(note(name, Verdict::skipped, fmt::format("pair not measured in {}", new_name)));
      continue;
    }
    compare_pair(name, o, *op, n, *it->second, opts, out);
  }
  for (const PairRecord& p : n.pairs) {
    const std::string name = fabric::pair_name(n, p);
    const std::string flipped = fmt::format("{}-{} rail {}", n.nodes[static_cast<std::size_t>(p.b)].name,
                                            n.nodes[static_cast<std::size_t>(p.a)].name, p.rail);
    if (old_pairs.count(name) == 0 && old_pairs.count(flipped) == 0)
      out.entries.push_back(note(name, Verdict::skipped, fmt::format("pair not measured in {}", old_name)));
  }
  return out;
}

}  // namespace xb
