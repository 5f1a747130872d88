// JUnit XML, for CI: check's verdicts (check --junit FILE).
// No XML library on Debian offers a small writer with correct escaping that
// is lighter than the few lines below; what matters is the escaping, which is
// unit-tested.
#include <algorithm>
#include <sstream>
#include <utility>

#include <fmt/format.h>

#include "report/reporter.hpp"

namespace xb::report {
namespace {

using namespace xb::check;

struct Test {
  enum class Kind { pass, failure, error, skipped };
  Test(std::string cls, std::string n) : classname(std::move(cls)), name(std::move(n)) {}
  std::string classname, name;
  Kind kind = Kind::pass;
  std::string message, detail;
};

struct Suite {
  std::string name;
  std::vector<Test> tests;
};

int count(const Suite& s, Test::Kind k) {
  return static_cast<int>(std::count_if(s.tests.begin(), s.tests.end(), [k](const Test& t) { return t.kind == k; }));
}

void write_test(std::ostringstream& os, const Test& t) {
  os << fmt::format("    <testcase classname=\"{}\" name=\"{}\"", xml_escape(t.classname), xml_escape(t.name));
  if (t.kind == Test::Kind::pass && t.detail.empty()) {
    os << "/>\n";
    return;
  }
  os << ">\n";
  const char* tag = t.kind == Test::Kind::failure ? "failure" : t.kind == Test::Kind::error ? "error" : "skipped";
  if (t.kind != Test::Kind::pass)
    os << fmt::format("      <{} message=\"{}\"/>\n", tag, xml_escape(t.message));
  if (!t.detail.empty()) os << fmt::format("      <system-out>{}</system-out>\n", xml_escape(t.detail));
  os << "    </testcase>\n";
}

Suite lint_suite(const CheckResult& r) {
  Suite s{"lint", {}};
  for (const auto& rule : r.lint.rules) {
    Test t{"lint", rule.rule};
    std::string errors, others;
    for (const auto& f : r.lint.findings) {
      if (f.rule != rule.rule) continue;
      const bool fails = f.severity == Severity::error || (r.strict && f.severity == Severity::warn);
      std::string& into = fails ? errors : others;
      into += fmt::format("{}{} {}: {} (fix: {})", into.empty() ? "" : "\n", to_string(f.severity), f.subject,
                          f.evidence, f.fix);
    }
    if (!errors.empty()) {
      t.kind = Test::Kind::failure;
      t.message = errors;
    } else if (rule.status == RuleStatus::skipped) {
      t.kind = Test::Kind::skipped;
      t.message = rule.note;
    }
    t.detail = others;
    s.tests.push_back(t);
  }
  return s;
}

// A judged link or cell: failed or skipped with `reason`, or passed with it as detail.
Test judged(std::string cls, std::string name, CellVerdict v, const std::string& reason) {
  Test t{std::move(cls), std::move(name)};
  if (v == CellVerdict::fail) t.kind = Test::Kind::failure;
  if (v == CellVerdict::unjudged) t.kind = Test::Kind::skipped;
  (t.kind == Test::Kind::pass ? t.detail : t.message) = reason;
  return t;
}

Suite link_suite(const CheckResult& r) {
  Suite s{"links", {}};
  for (const auto& l : r.links)
    s.tests.push_back(judged("links", fmt::format("{} {}", l.link_key, l.link_label), l.verdict,
                             check_cell_reason(r.cells[l.worst])));
  return s;
}

Suite cell_suite(const CheckResult& r) {
  Suite s{"cells", {}};
  for (const auto& c : r.cells) s.tests.push_back(judged(c.case_name, c.key, c.verdict, check_cell_reason(c)));
  for (const auto& p : r.problems) {
    Test t{p.case_name, p.case_name};
    t.kind = p.status == CaseStatus::waived ? Test::Kind::skipped : Test::Kind::error;
    t.message = fmt::format("{}: {}", to_string(p.status), p.message);
    s.tests.push_back(t);
  }
  return s;
}

}  // namespace

std::string xml_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      case '\n': out += "&#10;"; break;  // kept inside attribute values too
      case '\t': out += "&#9;"; break;
      case '\r': out += "&#13;"; break;
      default:
        if (c < 0x20 || c == 0x7f) out += "\xEF\xBF\xBD";  // not representable in XML 1.0
        else out += ch;
    }
  }
  return out;
}

namespace {

std::string junit_document(const std::vector<Suite>& suites, const std::string& name, const std::string& host,
                           double seconds) {
  int tests = 0, failures = 0, errors = 0, skipped = 0;
  for (const auto& s : suites) {
    tests += static_cast<int>(s.tests.size());
    failures += count(s, Test::Kind::failure);
    errors += count(s, Test::Kind::error);
    skipped += count(s, Test::Kind::skipped);
  }
  std::ostringstream os;
  os << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  os << fmt::format("<testsuites name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" "
                    "time=\"{:.3f}\">\n",
                    xml_escape(name), tests, failures, errors, skipped, seconds);
  for (const auto& s : suites) {
    os << fmt::format("  <testsuite name=\"{}\" hostname=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" "
                      "skipped=\"{}\">\n",
                      xml_escape(s.name), xml_escape(host), s.tests.size(), count(s, Test::Kind::failure),
                      count(s, Test::Kind::error), count(s, Test::Kind::skipped));
    for (const auto& t : s.tests) write_test(os, t);
    os << "  </testsuite>\n";
  }
  os << "</testsuites>\n";
  return os.str();
}

// JUnit for a fleet: one test per node, failed with its summary line.
std::string fleet_junit(const fleet::Fleet& f) {
  Suite s{"nodes", {}};
  double seconds = 0;
  for (const auto& n : f.nodes) {
    Test t{"nodes", n.key};
    const std::string status = fleet::node_status(n);
    if (status != "passed") t.kind = status == "failed" ? Test::Kind::failure : Test::Kind::error;
    const records::CheckVerdict* check = fleet::check_of(n.result);
    (t.kind == Test::Kind::pass ? t.detail : t.message) = check ? check->summary : n.record.error;
    if (check) seconds = std::max(seconds, check->wall_seconds);
    s.tests.push_back(t);
  }
  return junit_document({s}, "xferbench check fleet", "", seconds);
}

// Suites "lint" (one test per rule), "links" (one per link) and "cells" (one per
// cell); failures carry the reason, unjudged cells and skipped rules are <skipped/>.
std::string check_junit(const CheckResult& r) {
  return junit_document({lint_suite(r), link_suite(r), cell_suite(r)}, "xferbench check " + r.hostname(), r.hostname(),
                        r.wall_seconds);
}

class JunitReporter : public Reporter {
 public:
  using Reporter::Reporter;

  void check(const check::CheckResult& r) override { out_ << check_junit(r); }
  void check_fleet(const fleet::Fleet& f) override { out_ << fleet_junit(f); }
};

}  // namespace

std::unique_ptr<Reporter> junit_reporter(std::ostream& out) { return std::make_unique<JunitReporter>(out); }

}  // namespace xb::report
