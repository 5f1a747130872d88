// nvbandwidth's formats (report/nvbandwidth.hpp): its text, case by case as
// each ends, and its JSON at the end. They render named cases only.
#include "base/error.hpp"
#include "cases/cases.hpp"
#include "report/reporter.hpp"

namespace xb::report {
namespace {

class NvbandwidthFormat : public Reporter {
 public:
  NvbandwidthFormat(const std::string& format, std::ostream& out) : Reporter(out), format_(format) {}

  bool nvbandwidth_run() const override { return true; }
  void cases() override {
    std::vector<const CaseDef*> all;
    for (const CaseDef& d : case_catalogue()) all.push_back(&d);
    nvb_text_list(out_, all);
  }
  void require(Kind kind) const override {
    if (kind == Kind::plan) fail(ErrorKind::usage, "--dry-run writes its plan as text or JSON, not --format " + format_);
    if (kind == Kind::scenario)
      fail(ErrorKind::usage, "--format " + format_ +
                               " applies to named cases (-t, -p, --suite), not to transfers (--do, --htod, --dtoh, --dtod)");
  }

 private:
  std::string format_;
};

class NvbandwidthText : public NvbandwidthFormat {
 public:
  NvbandwidthText(std::ostream& out, std::ostream& err, const ReportOptions& o)
      : NvbandwidthFormat("nvbandwidth", out), err_(err), options_(o) {}

  bool streams() const override { return true; }
  void run_begin(const RunResult& header) override {
    nvb_text_header(out_, header.system, header.settings.buffer_bytes);
    out_.flush();
  }
  void run_case(const CaseResult& c) override {
    nvb_text_case(out_, c, options_);
    out_.flush();
    if (const std::string why = nvb_waiver_line(c); !why.empty()) err_ << why << "\n";
  }

 private:
  std::ostream& err_;
  NvbOptions options_;
};

class NvbandwidthJson : public NvbandwidthFormat {
 public:
  explicit NvbandwidthJson(std::ostream& out) : NvbandwidthFormat("nvbandwidth-json", out) {}

  void run(const RunResult& r) override { out_ << nvb_json_text(nvb_json(r)); }
  // nvbandwidth -j reports a fatal error in its JSON.
  void run_failed(const std::string& message) override { out_ << nvb_json_text(nvb_json_not_found({}, message)); }
};

}  // namespace

std::unique_ptr<Reporter> nvbandwidth_reporter(const std::string& format, std::ostream& out, std::ostream& err,
                                               const ReportOptions& o) {
  if (format == "nvbandwidth") return std::make_unique<NvbandwidthText>(out, err, o);
  return std::make_unique<NvbandwidthJson>(out);
}

}  // namespace xb::report
