#include "check/spec.hpp"

#include <algorithm>
#include <cctype>

#define TOML_HEADER_ONLY 1
#define TOML_EXCEPTIONS 1
#include <toml++/toml.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/error.hpp"
#include "base/names.hpp"
#include "base/input_file.hpp"

namespace xb::check {
namespace {

[[noreturn]] void bad(const std::string& where, const std::string& message) {
  fail(ErrorKind::usage, fmt::format("{}: {}", where, message));
}

std::string at(const std::string& file, const toml::source_region& src) {
  return fmt::format("{}:{}", file, src.begin.line);
}

std::string trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  std::size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  return s.substr(i);
}

std::string need_string(const toml::node& n, const std::string& where, const std::string& key) {
  if (!n.is_string()) bad(where, fmt::format("key '{}' must be a string", key));
  return *n.value<std::string>();
}

// Keys a table may hold; anything else is a typo worth an error.
void only_keys(const toml::table& t, const std::vector<std::string>& allowed, const std::string& file,
               const std::string& table) {
  for (auto&& [k, v] : t) {
    if (std::find(allowed.begin(), allowed.end(), k.str()) == allowed.end())
      bad(at(file, k.source()), fmt::format("unknown key '{}'{} (expected one of: {})", k.str(),
                                            table.empty() ? "" : " in [" + table + "]",
                                            fmt::format("{}", fmt::join(allowed, ", "))));
  }
}

// The number `text` starts with; `used` = how many characters it took (0:
// none).
double leading_number(const std::string& text, std::size_t& used) {
  used = 0;
  try {
    return std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
    return 0;
  }
}

constexpr Named<LinkClass> kLinkClasses[] = {{LinkClass::pcie, "pcie"},
                                              {LinkClass::pcie_bidir, "pcie_bidir"},
                                              {LinkClass::nvlink, "nvlink"},
                                              {LinkClass::pcie_peer, "pcie_peer"},
                                              {LinkClass::memory, "memory"},
                                              {LinkClass::c2c, "c2c"},
                                              {LinkClass::c2c_bidir, "c2c_bidir"}};

// "52 GB/s", "80%", "1300 ns", "1.3 us". Throws Error(usage) with `where`.
Threshold parse_threshold(const std::string& raw, bool latency, const std::string& where) {
  const std::string text = trim(raw);
  std::size_t used = 0;
  const double v = leading_number(text, used);
  std::string unit = trim(text.substr(used));
  for (auto& c : unit) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (used == 0 || !(v > 0) || v > 1e9)
    bad(where, fmt::format("'{}' is not a positive number with a unit", raw));
  Threshold t;
  t.value = v;
  if (unit == "%" && !latency) {
    t.unit = Threshold::Unit::percent_of_peak;
    if (v > 100) bad(where, fmt::format("'{}': a threshold above 100% of the theoretical peak cannot be met", raw));
  } else if (unit == "gb/s" && !latency) {
    t.unit = Threshold::Unit::gbps;
  } else if ((unit == "ns" || unit == "us") && latency) {
    t.unit = Threshold::Unit::ns;
    if (unit == "us") t.value = v * 1e3;
  } else {
    bad(where, fmt::format("'{}': unknown unit '{}' (expected {})", raw, unit,
                           latency ? "ns or us, for a latency" : "GB/s or %, for a bandwidth"));
  }
  return t;
}

Expectation parse_expect(const toml::table& t, const std::string& file) {
  only_keys(t, {"case", "link", "matrix", "min", "max", "max_ratio", "why"}, file, "[expect]");
  Expectation e;
  e.where = at(file, t.source());
  const CaseDef* def = nullptr;  // null for "*"
  if (auto* n = t.get("case")) {
    e.case_name = need_string(*n, at(file, n->source()), "case");
    def = find_case(e.case_name);
    if (!def && e.case_name != "*")
      bad(at(file, n->source()), fmt::format("key 'case': unknown case '{}' (see 'xferbench cases')", e.case_name));
  }
  if (auto* n = t.get("link")) {
    const std::string text = need_string(*n, at(file, n->source()), "link");
    if (text != "*") {
      e.link = lookup_value(kLinkClasses, text);
      if (!e.link)
        bad(at(file, n->source()), fmt::format("key 'link': unknown link kind '{}' (expected pcie, pcie_bidir, "
                                               "nvlink, pcie_peer, memory or *)", text));
    }
  }
  if (auto* n = t.get("matrix")) e.matrix = need_string(*n, at(file, n->source()), "matrix");
  if (auto* n = t.get("why")) e.why = need_string(*n, at(file, n->source()), "why");
  const toml::node* min = t.get("min");
  const toml::node* max = t.get("max");
  if (const toml::node* ratio = t.get("max_ratio")) {
    const std::string where = at(file, ratio->source());
    if (min || max) bad(e.where, "an [[expect]] entry needs exactly one of 'min', 'max' or 'max_ratio'");
    const auto v = ratio->value<double>();
    if (!(ratio->is_number() && v && *v >= 1 && *v <= 1000))
      bad(where, "key 'max_ratio' needs a number from 1 to 1000: the loaded latency over the idle one");
    if (def && def->load == LatencyLoad::none)
      bad(where, fmt::format("key 'max_ratio': case '{}' is not measured under load (see 'xferbench cases', the "
                             "*_under_* cases)", def->name));
    if (!e.matrix.empty()) bad(where, "key 'max_ratio' applies to the loaded-latency matrix: leave out 'matrix'");
    e.latency = true;
    e.threshold = {Threshold::Unit::ratio, *v};
    return e;
  }
  if (!min == !max)
    bad(e.where, "an [[expect]] entry needs exactly one of 'min' (bandwidth), 'max' (latency) or 'max_ratio' (a "
                 "latency under load)");
  const toml::node& n = min ? *min : *max;
  const std::string key = min ? "min" : "max";
  const std::string where = at(file, n.source());
  if (!n.is_string())
    bad(where, fmt::format("key '{}' needs a value with a unit, e.g. \"52 GB/s\", \"80%\" or \"1300 ns\"", key));
  e.latency = max != nullptr;
  e.threshold = parse_threshold(*n.value<std::string>(), e.latency, fmt::format("{}: key '{}'", where, key));
  const bool latency_case = def && is_latency(def->pattern);
  // A loaded-latency case has both: its latencies and the load's GB/s.
  if (def && latency_case != e.latency && def->load == LatencyLoad::none)
    bad(where, fmt::format("key '{}': case '{}' reports {}, so give '{}'", key, def->name,
                           latency_case ? "a latency (ns)" : "a bandwidth (GB/s)", latency_case ? "max" : "min"));
  return e;
}

void parse_lint(const toml::table& t, const std::string& file, CheckSpec& spec) {
  only_keys(t, {"nvlinks_per_gpu", "severity"}, file, "lint");
  if (auto* n = t.get("nvlinks_per_gpu")) {
    const auto v = n->value<std::int64_t>();
    if (!n->is_integer() || !v || *v < 0 || *v > 64)
      bad(at(file, n->source()), "key 'nvlinks_per_gpu' must be an integer from 0 to 64");
    spec.lint.nvlinks_per_gpu = static_cast<int>(*v);
  }
  if (auto* n = t.get("severity")) {
    if (!n->is_table()) bad(at(file, n->source()), "key 'severity' must be a table of rule = \"info|warn|error\"");
    for (auto&& [k, v] : *n->as_table()) {
      const std::string where = at(file, k.source());
      if (std::find(lint_rule_ids().begin(), lint_rule_ids().end(), k.str()) == lint_rule_ids().end())
        bad(where, fmt::format("key 'severity.{}': unknown lint rule (expected one of: {})", k.str(),
                               fmt::format("{}", fmt::join(lint_rule_ids(), ", "))));
      spec.lint.severity_override[std::string(k.str())] =
          parse_severity(need_string(v, where, "severity." + std::string(k.str())),
                         fmt::format("{}: key 'severity.{}'", where, k.str()));
    }
  }
}

// A percentage of the peers' median. A bandwidth floor is above 0 and at
// most 100%, a latency ceiling from 100% to 1000%: past 100% the wrong way
// even the median cell would fail, so every cell of every node would.
double parse_percent(const toml::node& n, const std::string& file, const std::string& key, bool latency) {
  const std::string where = at(file, n.source());
  const std::string text = trim(need_string(n, where, key));
  std::size_t used = 0;
  const double v = leading_number(text, used);
  if (used == 0 || trim(text.substr(used)) != "%")
    bad(where, fmt::format("key '{}': '{}' is not a percentage such as \"85%\"", key, text));
  const bool in_range = latency ? v >= 100 && v <= 1000 : v > 0 && v <= 100;
  if (!in_range)
    bad(where, fmt::format("key '{}': '{}' is out of range: give {} of the peers' median", key, text,
                           latency ? "100% to 1000%" : "more than 0% and at most 100%"));
  return v;
}

void parse_peers(const toml::table& t, const std::string& file, CheckSpec& spec) {
  only_keys(t, {"bandwidth_min", "latency_max"}, file, "peers");
  if (auto* n = t.get("bandwidth_min")) spec.peer_bandwidth_min_pct = parse_percent(*n, file, "bandwidth_min", false);
  if (auto* n = t.get("latency_max")) spec.peer_latency_max_pct = parse_percent(*n, file, "latency_max", true);
}

}  // namespace

const char* to_string(LinkClass c) noexcept { return lookup_name(kLinkClasses, c); }

const CaseDef* find_case(const std::string& name) {
  for (const auto& d : case_catalogue())
    if (d.name == name) return &d;
  return nullptr;
}

const Expectation* find_expectation(const CheckSpec& spec, const std::string& case_name, const std::string& matrix,
                                    LinkClass link, bool latency) {
  const Expectation* best = nullptr;
  int best_score = -1;
  for (const auto& e : spec.expect) {
    if (e.latency != latency || e.threshold.unit == Threshold::Unit::ratio) continue;
    if (e.case_name != "*" && e.case_name != case_name) continue;
    if (e.link && *e.link != link) continue;
    if (!e.matrix.empty() && e.matrix != matrix) continue;
    const int score = (e.case_name != "*" ? 4 : 0) + (e.link ? 2 : 0) + (e.matrix.empty() ? 0 : 1);
    if (score >= best_score) {
      best = &e;
      best_score = score;
    }
  }
  return best;
}

const Expectation* find_ratio_expectation(const CheckSpec& spec, const std::string& case_name, LinkClass link) {
  const Expectation* best = nullptr;
  int best_score = -1;
  for (const auto& e : spec.expect) {
    if (e.threshold.unit != Threshold::Unit::ratio) continue;
    if ((e.case_name != "*" && e.case_name != case_name) || (e.link && *e.link != link)) continue;
    const int score = (e.case_name != "*" ? 2 : 0) + (e.link ? 1 : 0);
    if (score >= best_score) {
      best = &e;
      best_score = score;
    }
  }
  return best;
}

CheckSpec parse_spec_text(const std::string& text, const std::string& file) {
  CheckSpec spec;
  spec.file = file;
  toml::table root;
  try {
    root = toml::parse(text, file);
  } catch (const toml::parse_error& e) {
    bad(at(file, e.source()), fmt::format("not valid TOML: {}", e.description()));
  }
  only_keys(root, {"model", "lint", "peers", "expect"}, file, "");
  if (auto* n = root.get("model")) spec.model = need_string(*n, at(file, n->source()), "model");
  if (auto* n = root.get("lint")) {
    if (!n->is_table()) bad(at(file, n->source()), "'lint' must be a table ([lint])");
    parse_lint(*n->as_table(), file, spec);
  }
  if (auto* n = root.get("peers")) {
    if (!n->is_table()) bad(at(file, n->source()), "'peers' must be a table ([peers])");
    parse_peers(*n->as_table(), file, spec);
  }
  if (auto* n = root.get("expect")) {
    if (!n->is_array_of_tables()) bad(at(file, n->source()), "'expect' must be an array of tables ([[expect]])");
    for (auto&& e : *n->as_array()) spec.expect.push_back(parse_expect(*e.as_table(), file));
  }
  return spec;
}

CheckSpec parse_spec_file(const std::string& path) {
  return parse_spec_text(read_input_file(path, "--spec file"), path);
}

}  // namespace xb::check
