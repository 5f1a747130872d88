#include "report/reporter.hpp"

#include <algorithm>
#include <sstream>

#include "base/error.hpp"
#include "base/printable.hpp"
#include "report/output_file.hpp"

namespace xb::report {
namespace {

// check --summary: the node's one line; a fleet of nodes as the format underneath prints it.
class SummaryReporter : public Reporter {
 public:
  SummaryReporter(std::ostream& out, std::unique_ptr<Reporter> inner) : Reporter(out), inner_(std::move(inner)) {}
  void check(const check::CheckResult& r) override { out_ << printable(check_summary_line(r)) << "\n"; }
  void check_fleet(const fleet::Fleet& f) override { inner_->check_fleet(f); }

 private:
  std::unique_ptr<Reporter> inner_;
};

std::unique_ptr<Reporter> unwrapped(const std::string& format, std::ostream& out, std::ostream& err,
                                    const ReportOptions& o) {
  if (format == "text") return text_reporter(out, o);
  if (format == "json") return json_reporter(out);
  if (format == "csv") return csv_reporter(out);
  if (format == "junit") return junit_reporter(out);
  if (format == "prometheus") return prometheus_reporter(out, o);
  if (format == "nvbandwidth" || format == "nvbandwidth-json") return nvbandwidth_reporter(format, out, err, o);
  if (format == "bwtest" || format == "cuts" || format == "seed") return seed_reporter(format, out);
  fail(ErrorKind::internal, "no reporter for --format '" + format + "'");
}

// The metrics are for a file a collector reads: given one, people read text.
std::string screen_format(const std::string& format, const std::string& file) {
  return format == "prometheus" && !file.empty() ? "text" : format;
}

}  // namespace

void Reporter::cuts_launch(const ScenarioResult& described) {
  if (described.front_end != "cuts") return;
  cuts_launch_text(out_, described);
  out_.flush();
}

bool is_text(const std::string& format) { return format == "text"; }

bool is_metrics(const std::string& format) { return format == "prometheus"; }

std::unique_ptr<Reporter> make_reporter(const std::string& format, std::ostream& out, std::ostream& err,
                                        const ReportOptions& o) {
  auto r = unwrapped(format, out, err, o);
  if (o.summary) return std::make_unique<SummaryReporter>(out, std::move(r));
  return r;
}

Outputs::Outputs(const std::string& format, const std::string& file, const ReportOptions& o, std::ostream& out,
                 std::ostream& err)
    : format_(screen_format(format, file)), options_(o), out_(out), screen_(make_reporter(format_, out, err, o)) {
  const bool csv = o.csv_file && file.size() >= 4 && file.compare(file.size() - 4, 4, ".csv") == 0;
  add_file(file, format == "prometheus" ? format : csv ? "csv" : "json");
}

void Outputs::add_file(const std::string& path, const std::string& format) {
  if (!path.empty()) files_.emplace_back(path, format);
}

void Outputs::require(Kind kind) const {
  screen_->require(kind);
  std::ostringstream none;
  for (const auto& [path, format] : files_) make_reporter(format, none)->require(kind);
}

void Outputs::emit(const std::function<void(Reporter&)>& render) {
  // A file's reporter: stdout's options without the summary line; a
  // metrics file also gets the text it replaces (its last successes).
  const auto rendered = [&](const std::string& format, const std::string& path = "") {
    ReportOptions o = options_;
    o.summary = false;
    if (format == "prometheus" && !path.empty()) o.previous_metrics = current_output_text(path);
    std::ostringstream text;
    render(*make_reporter(format, text, std::cerr, o));
    return text.str();
  };
  // A file in stdout's format (unless stdout has the summary line) gets the same text,
  // rendered once: a fleet's JSON is large.
  const auto same = [&](const auto& file) { return file.second == format_ && !options_.summary; };
  std::string shared;
  if (std::any_of(files_.begin(), files_.end(), same)) {
    out_ << (shared = rendered(format_));
  } else {
    render(*screen_);
  }
  out_.flush();
  for (const auto& file : files_)
    write_output_file(file.first, same(file) ? shared : rendered(file.second, file.first));
}

}  // namespace xb::report
