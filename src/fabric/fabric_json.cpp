#include "fabric/fabric_json.hpp"

#include "fabric/attribution.hpp"
#include "records/document.hpp"

namespace xb::fabric {
namespace {

using json = nlohmann::json;
using records::Fields;
using records::Reader;
using records::Writer;

// An enum as its number, on the wire.
template <class Io, class E>
void number(Io& io, const std::string& key, E& e) {
  int n = static_cast<int>(e);
  io(key, n);
  if constexpr (Io::reading) e = static_cast<E>(n);
}

constexpr auto leg_fields = [](auto& io, auto& l) {
  io.need("bytes", l.bytes);
  io("repetitions", l.one_way_s.count);
  io.object("one_way_time_s", l, [](auto& t, auto& x) {
    t("median", x.one_way_s.median);
    t.text("p50", x.one_way_s.median);
    t("p95", x.one_way_s.p95);
    t("p99", x.one_way_s.p99);
    t("mean", x.one_way_s.mean);
    t("min", x.one_way_s.min);
    t("max", x.one_way_s.max);
    t("stddev", x.one_way_s.stddev);
    t("cov", x.one_way_s.cov);
  });
  io.text("gbps_p50", gbps_p50(l));
  io.text("gbps_p99", gbps_p99(l));
  io("verified", l.verified);
  io.null_unless(!l.verify_error.empty(), "verify_error", l.verify_error);
  io.null_unless(!l.error.empty(), "error", l.error);
};

constexpr auto wire_leg_fields = [](auto& io, auto& l) {
  leg_fields(io, l);
  number(io, "error_kind", l.error_kind);
};

constexpr auto node_fields = [](auto& io, auto& n) {
  io.need("name", n.name);
  io.need("ranks", n.ranks);
  io("gpus", n.gpus);
};

// A leg, or null when it was not measured (the pair's error or stop says why).
template <class Io, class L>
void optional_leg(Io& io, const std::string& key, L& leg) {
  if constexpr (Io::reading) {
    io.optional_object(key, leg, leg_fields);
  } else if (leg) {
    io.object(key, *leg, leg_fields);
  } else {
    io.text(key, nullptr);
  }
}

ErrorKind error_kind_of(const std::string& text) {
  for (int k = 0; k <= static_cast<int>(ErrorKind::internal); ++k)
    if (text == to_string(static_cast<ErrorKind>(k))) return static_cast<ErrorKind>(k);
  return ErrorKind::internal;
}

template <class Io, class P>
void pair_fields(Io& io, P& p) {
  io.need("node_a", p.a);
  io.need("node_b", p.b);
  io.need("rail", p.rail);
  io("round", p.round);
  io("rank_a", p.rank_a);
  io("rank_b", p.rank_b);
  io("gpu_a", p.gpu_a);
  io("gpu_b", p.gpu_b);
  io("transport", p.transport);
  io("path", p.path);
  io("path_ba", p.path_ba);
  optional_leg(io, "bandwidth_ab", p.ab);
  optional_leg(io, "bandwidth_ba", p.ba);
  optional_leg(io, "latency", p.latency);
  io.null_unless(!p.error.empty(), "error", p.error);
  std::string kind = p.error.empty() ? "" : to_string(p.error_kind);
  io.null_unless(!p.error.empty(), "error_kind", kind);
  if constexpr (Io::reading) p.error_kind = error_kind_of(kind);
}

constexpr auto lost_fields = [](auto& io, auto& l) {
  io.need("rank", l.rank);
  io("node", l.node);
  io("rail", l.rail);
  io("round", l.round);
  io("why", l.why);
};

constexpr auto settings_fields = [](auto& io, auto& o) {
  std::string buffers = pingpong::to_string(o.buffers);
  io("buffers", buffers);
  if constexpr (std::decay_t<decltype(io)>::reading) o.buffers = pingpong::parse_endpoint(buffers);
  io.need("bytes", o.bytes);
  io("window", o.window);
  io("loop_count", o.bw_reps);
  io("warmup", o.bw_warmup);
  io("latency_bytes", o.latency_bytes);
  io("latency_loop_count", o.latency_reps);
  io("latency_warmup", o.latency_warmup);
  std::string transport = pingpong::to_string(o.transport);
  io("transport", transport);
  if constexpr (std::decay_t<decltype(io)>::reading) o.transport = pingpong::parse_transport(transport);
  io("rails_one_at_a_time", o.rails_one);
  io("rounds", o.rounds);
  io("seed", o.seed);
  io.need("min_ratio", o.min_ratio);
  io.choice("metric", o.judge, {Judge::all, Judge::bandwidth, Judge::latency});
  io("fail_on_culprit", o.fail_on_culprit);
  io("timeout_seconds", o.timeout_s);
};

constexpr auto plan_fields = [](auto& io, auto& p) {
  io("nodes", p.nodes);
  io("rails", p.rails);
  io.text("schedule", p.all_pairs ? "all_pairs" : "random_matchings");
  io("all_pairs", p.all_pairs);
  io("seed", p.seed);
  io("node_rounds", p.node_rounds);
  io("rounds", p.rounds);
  io("node_pairs", p.node_pairs);
  io("pairs", p.pairs);
  io("estimated_seconds", p.estimated_s);
};

json judgement_json(const PairJudgement& j) {
  return {{"ratio_ab", j.ratio_ab}, {"ratio_ba", j.ratio_ba}, {"ratio_latency", j.ratio_latency},
          {"worst_ratio", j.worst},  {"low", j.low},           {"failed", j.failed}};
}

json findings_json(const Findings& f) {
  json culprits = json::array();
  for (const Culprit& c : f.culprits)
    culprits.push_back({{"kind", to_string(c.kind)}, {"what", c.what},           {"why", c.why},
                        {"node_a", c.a},            {"node_b", c.b},             {"rail", c.rail},
                        {"low_pairs", c.low},       {"pairs", c.pairs},          {"median_ratio", c.median_ratio}});
  return {{"min_ratio", f.min_ratio},       {"metric", to_string(f.judge)}, {"median_gbps", f.median_gbps},
          {"median_latency_s", f.median_latency_s}, {"low_pairs", f.low_pairs}, {"failed_pairs", f.failed_pairs},
          {"culprits", culprits},           {"notes", f.notes}};
}

}  // namespace

std::string status_text(const Result& r) {
  if (r.completion.status != RunStatus::complete) return to_string(r.completion.status);
  const bool failed = failure_kind(r).has_value() || (r.options.fail_on_culprit && !r.findings.culprits.empty());
  return failed ? "failed" : "passed";
}

json fabric_json(const Result& r) {
  json j;
  j["schema"] = kFabricSchema;
  j["schema_version"] = kFabricSchemaVersion;
  j["tool"] = records::tool_json();
  j["command_line"] = r.command_line;
  j["start_time_utc"] = r.start_time_utc;
  j["wall_seconds"] = r.wall_s;
  j["world_size"] = r.world_size;
  j["status"] = status_text(r);
  j["stop"] = records::completion_json(r.completion);
  j["gbps_definition"] = "1e9 bytes per second";
  j["settings"] = Writer::of(r.options, settings_fields);
  j["plan"] = Writer::of(r.plan, plan_fields);
  j["plan"]["assumed"] = {{"gbps", r.options.assume_gbps},
                          {"latency_seconds", r.options.assume_latency_s},
                          {"setup_seconds_per_leg", r.options.assume_setup_s}};
  json nodes = json::array(), pairs = json::array(), lost = json::array();
  for (const Node& n : r.nodes) nodes.push_back(Writer::of(n, node_fields));
  for (std::size_t i = 0; i < r.pairs.size(); ++i) {
    json p = Writer::of(r.pairs[i], [](auto& io, auto& x) { pair_fields(io, x); });
    p["a"] = r.nodes.at(static_cast<std::size_t>(r.pairs[i].a)).name;
    p["b"] = r.nodes.at(static_cast<std::size_t>(r.pairs[i].b)).name;
    if (i < r.findings.pairs.size()) p["judgement"] = judgement_json(r.findings.pairs[i]);
    pairs.push_back(std::move(p));
  }
  for (const LostRank& l : r.lost) lost.push_back(Writer::of(l, lost_fields));
  j["nodes"] = std::move(nodes);
  j["pairs"] = std::move(pairs);
  j["lost_ranks"] = std::move(lost);
  j["findings"] = findings_json(r.findings);
  return j;
}

bool is_fabric_document(const json& doc) {
  return doc.is_object() && doc.value("schema", json()).is_string() && doc["schema"].get<std::string>() == kFabricSchema;
}

namespace {

void check_pair_indices(const Result& r, const std::string& name) {
  const int nodes = static_cast<int>(r.nodes.size());
  for (std::size_t i = 0; i < r.pairs.size(); ++i) {
    const PairRecord& p = r.pairs[i];
    if (p.a < 0 || p.b < 0 || p.a >= nodes || p.b >= nodes || p.a == p.b || p.rail < 0)
      fail(ErrorKind::usage, fmt::format("{} is a malformed {} result: pairs[{}]: node_a {}, node_b {} or rail {} "
                                         "does not name two of its {} nodes",
                                         name, kFabricSchema, i, p.a, p.b, p.rail, nodes));
  }
}

}  // namespace

Result decode_fabric(const json& doc, const std::string& name) {
  const json& v = doc.is_object() ? doc.value("schema_version", json()) : json();
  if (!v.is_number_integer() || v.get<int>() != kFabricSchemaVersion)
    fail(ErrorKind::usage, fmt::format("{} has {} schema_version {}: this xferbench reads version {}", name,
                                       kFabricSchema, v.dump(), kFabricSchemaVersion));
  Result r = records::decode_document(name, kFabricSchema, [&doc] {
    const Fields d(doc, "");
    Result out;
    Reader::into(d.object("settings"), out.options, settings_fields);
    if (d.has("plan")) Reader::into(d.object("plan"), out.plan, plan_fields);
    for (const Fields& n : d.items("nodes")) Reader::into(n, out.nodes.emplace_back(), node_fields);
    for (const Fields& p : d.items("pairs")) Reader::into(p, out.pairs.emplace_back(), [](auto& io, auto& x) { pair_fields(io, x); });
    if (d.has("lost_ranks"))
      for (const Fields& l : d.items("lost_ranks")) Reader::into(l, out.lost.emplace_back(), lost_fields);
    out.command_line = d.get("command_line", out.command_line);
    out.start_time_utc = d.get<std::string>("start_time_utc", "");
    out.wall_s = d.get("wall_seconds", 0.0);
    out.world_size = d.get("world_size", 0);
    records::decode_completion(d, out.completion);
    return out;
  });
  check_pair_indices(r, name);
  if (!(r.options.min_ratio > 0 && r.options.min_ratio < 1))
    fail(ErrorKind::usage, fmt::format("{} is a malformed {} result: settings.min_ratio: {} is not between 0 and 1",
                                       name, kFabricSchema, r.options.min_ratio));
  r.findings = attribute(r);
  return r;
}

std::string legs_to_wire(int round, const std::vector<LegReport>& legs) {
  json out = {{"round", round}, {"legs", json::array()}};
  for (const LegReport& l : legs) {
    json j = {{"slot", l.slot}, {"leg", l.leg},  {"transport", l.transport}, {"path", l.path},
              {"error", l.error}, {"error_kind", static_cast<int>(l.error_kind)}, {"stop", static_cast<int>(l.stop)}};
    if (l.result) j["result"] = Writer::of(*l.result, wire_leg_fields);
    out["legs"].push_back(std::move(j));
  }
  return out.dump();
}

std::vector<LegReport> legs_from_wire(const std::string& text, int& round) {
  try {
    const json in = json::parse(text);
    round = in.at("round").get<int>();
    std::vector<LegReport> out;
    for (const json& j : in.at("legs")) {
      LegReport& l = out.emplace_back();
      l.slot = j.at("slot").get<int>();
      l.leg = j.at("leg").get<int>();
      l.transport = j.at("transport").get<std::string>();
      l.path = j.at("path").get<std::string>();
      l.error = j.at("error").get<std::string>();
      l.error_kind = static_cast<ErrorKind>(j.at("error_kind").get<int>());
      l.stop = static_cast<StopReason>(j.at("stop").get<int>());
      if (j.contains("result")) Reader::into(Fields(j.at("result"), "result"), l.result.emplace(), wire_leg_fields);
    }
    return out;
  } catch (const std::exception& e) {
    fail(ErrorKind::comm, fmt::format("a malformed fabric report from a rank: {}", e.what()));
  }
}

}  // namespace xb::fabric
