#include "records/check_verdict_json.hpp"

#include "records/document.hpp"
#include "records/run_json.hpp"

namespace xb::records {
namespace {

using json = nlohmann::json;

// An optional value as itself, or null.
template <class T>
json or_null(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

template <class T>
void read_optional(const Fields& f, const std::string& key, std::optional<T>& v) {
  if (f.has(key)) v = f.get<T>(key);
}

constexpr auto sample_fields = [](auto& io, auto& s) {
  if constexpr (std::decay_t<decltype(io)>::reading) {
    const Fields& f = io.fields();
    read_optional(f, "sm_clock_mhz", s.sm_clock_mhz);
    read_optional(f, "mem_clock_mhz", s.mem_clock_mhz);
    read_optional(f, "clock_reasons", s.clock_reasons);
    read_optional(f, "pcie_gen", s.pcie_gen);
    read_optional(f, "pcie_width", s.pcie_width);
  } else {
    io.text("sm_clock_mhz", or_null(s.sm_clock_mhz));
    io.text("mem_clock_mhz", or_null(s.mem_clock_mhz));
    io.text("clock_reasons", or_null(s.clock_reasons));
    io.text("pcie_gen", or_null(s.pcie_gen));
    io.text("pcie_width", or_null(s.pcie_width));
  }
};

constexpr auto window_fields = [](auto& io, auto& w) {
  io("case", w.case_name);
  io("row", w.row);
  io("col", w.col);
  io("gpus_used", w.gpus_used);
  io("throttled", w.throttled);
  io("slowdown_reasons", w.slowdown_reasons);
  io("power_throttle_ns", w.power_throttle_ns);
  io("thermal_throttle_ns", w.thermal_throttle_ns);
  io.list("gpus", w.gpus, [](auto& g, auto& x) {
    g("gpu", x.gpu);
    g.object("before", x.before, sample_fields);
    g.object("after", x.after, sample_fields);
  });
};

constexpr auto cell_fields = [](auto& io, auto& c) {
  if constexpr (std::decay_t<decltype(io)>::reading) c.latency = io.fields().has("value_ns");
  const std::string unit = c.latency ? "ns" : "gbps";
  io.need("key", c.key);
  io("case", c.case_name);
  io("matrix", c.matrix);
  io("row", c.row);
  io("col", c.col);
  io("link", c.link);
  io("link_label", c.link_label);
  io("link_class", c.link_class);
  io.need("value_" + unit, c.value);
  io.need("verdict", c.verdict);
  io("basis", c.basis);
  io("reason", c.reason);
  io("throttled", c.throttled);
  io("remeasured", c.remeasured);
  io.null_unless(c.threshold > 0, "threshold_" + unit, c.threshold);
  io.when(c.threshold_pct > 0, "threshold_percent_of_peak", c.threshold_pct);
  io.when(!c.source.empty(), "source", c.source);
  io.when(!c.why.empty(), "why", c.why);
  io.when(c.throttled, "throttle_reasons", c.throttle_reasons);
};

constexpr auto link_fields = [](auto& io, auto& l) {
  io.need("link", l.link);
  io("label", l.label);
  io.need("verdict", l.verdict);
  io("cells", l.cells);
  io("failed", l.failed);
  io("unjudged", l.unjudged);
  io("reason", l.reason);
};

constexpr auto lint_fields = [](auto& io, auto& v) {
  io.list("rules", v.rules, [](auto& r, auto& x) {
    r("id", x.id);
    r("title", x.title);
    r("status", x.status);
    r("note", x.note);
  });
  io.list("findings", v.findings, [](auto& f, auto& x) {
    f("rule", x.rule);
    f("severity", x.severity);
    f("subject", x.subject);
    f("evidence", x.evidence);
    f("fix", x.fix);
  });
};

constexpr auto expectation_fields = [](auto& io, auto& v) {
  io.null_unless(!v.spec_file.empty(), "spec", v.spec_file);
  io.null_unless(!v.baseline_file.empty(), "baseline", v.baseline_file);
  io("builtin_min_percent_of_peak", v.builtin_min_pct);
};

bool known_verdict(const std::string& word) {
  return word == "pass" || word == "fail" || word == "partial" || word == "interrupted";
}

constexpr auto verdict_fields = [](auto& io, auto& v) {
  io.need("verdict", v.verdict);
  io.check(known_verdict(v.verdict), "verdict",
           fmt::format("unknown verdict '{}' (pass, fail, partial or interrupted)", v.verdict));
  io.need("exit_code", v.exit_code);
  io("summary", v.summary);
  io("hostname", v.hostname);
  io("wall_seconds", v.wall_seconds);
  io("strict", v.strict);
  io.object("expectations", v, expectation_fields);
  io.object("lint", v, lint_fields);
  io.list("links", v.links, link_fields);
  io.list("cells", v.cells, cell_fields);
  io.list("case_problems", v.problems, [](auto& p, auto& x) {
    p("case", x.case_name);
    p("status", x.status);
    p("message", x.message);
  });
  io("remeasured_cases", v.remeasured_cases);
  io.list("telemetry", v.telemetry, window_fields);
};

}  // namespace

Outcome outcome_of(const CheckVerdict& v) {
  if (v.verdict == "pass") return Outcome::passed;
  if (v.verdict == "partial") return Outcome::partial;
  if (v.verdict == "interrupted") return Outcome::interrupted;
  return Outcome::failed;
}

json check_verdict_json(const CheckVerdict& v) { return Writer::of(v, verdict_fields); }

CheckVerdict decode_check_verdict(const json& section, const std::string& name) {
  return decode_document(name, kSchemaName, [&section] {
    if (!section.is_object()) throw DecodeError(std::string(kCheckSectionKey) + ": not an object");
    CheckVerdict v;
    Reader::into(Fields(section, kCheckSectionKey), v, verdict_fields);
    return v;
  });
}

}  // namespace xb::records
