#include "fabric/result.hpp"

#include <fmt/format.h>

#include "base/names.hpp"

namespace xb::fabric {
namespace {

constexpr Named<CulpritKind> kCulpritKinds[] = {{CulpritKind::rail, "rail"},
                                                {CulpritKind::node, "node"},
                                                {CulpritKind::node_rail, "node_rail"},
                                                {CulpritKind::pair, "pair"},
                                                {CulpritKind::pair_rail, "pair_rail"}};

double gbps_at(const Leg& l, double seconds) {
  return seconds > 0 ? static_cast<double>(l.bytes) / seconds / 1e9 : 0;
}

}  // namespace

const char* to_string(CulpritKind k) noexcept { return lookup_name(kCulpritKinds, k); }

bool measured(const Leg& l) { return l.error.empty() && l.one_way_s.count > 0; }
double gbps_p50(const Leg& l) { return measured(l) ? gbps_at(l, l.one_way_s.median) : 0; }
double gbps_p99(const Leg& l) { return measured(l) ? gbps_at(l, l.one_way_s.p99) : 0; }

std::string pair_name(const Result& r, const PairRecord& p) {
  return fmt::format("{}-{} rail {}", r.nodes.at(static_cast<std::size_t>(p.a)).name,
                     r.nodes.at(static_cast<std::size_t>(p.b)).name, p.rail);
}

std::optional<ErrorKind> failure_kind(const Result& r) {
  bool verification = false;
  for (const PairRecord& p : r.pairs) {
    if (!p.error.empty()) return p.error_kind;
    for (const auto* leg : {&p.ab, &p.ba, &p.latency}) {
      if (!*leg) continue;
      if (!(*leg)->error.empty()) return (*leg)->error_kind;
      if (!(*leg)->verified) verification = true;
    }
  }
  if (!r.lost.empty()) return ErrorKind::timeout;
  if (verification) return ErrorKind::verification;
  return std::nullopt;
}

}  // namespace xb::fabric
