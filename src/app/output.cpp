#include "app/output.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "app/validators.hpp"
#include "base/error.hpp"
#include "report/formats.hpp"
#include "report/output_file.hpp"

namespace xb::app {
namespace {

// std::cout's buffer: writes go to C's stdout, as with the default
// synchronised buffer (so the order with stdio writes, and the emergency
// writer's fflush(stdout), stay as they were), and the errno of the first
// failed write is kept. glibc drops a buffer whose write failed, so by the
// final fflush the cause may be gone (a command that flushed as it went).
class CheckedStdout : public std::streambuf {
 public:
  int first_error() const { return error_; }

 protected:
  int_type overflow(int_type c) override {
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    return noted(std::fputc(traits_type::to_char_type(c), stdout) != EOF) ? c : traits_type::eof();
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    const std::size_t written = std::fwrite(s, 1, static_cast<std::size_t>(n), stdout);
    noted(written == static_cast<std::size_t>(n));
    return static_cast<std::streamsize>(written);
  }
  int sync() override { return noted(std::fflush(stdout) == 0) ? 0 : -1; }

 private:
  bool noted(bool ok) {
    if (!ok && error_ == 0) error_ = errno != 0 ? errno : EIO;
    return ok;
  }
  int error_ = 0;
};

// Never destroyed: std::cout is flushed at exit, after main's statics are gone.
CheckedStdout* checked_stdout = nullptr;

}  // namespace

void add_output_options(CLI::App& cmd, OutputOptions& out, bool allow_csv,
                        const std::vector<std::string>& extra_formats) {
  std::vector<std::string> formats = {"text", "json"};
  if (allow_csv) formats.push_back("csv");
  formats.insert(formats.end(), extra_formats.begin(), extra_formats.end());
  const bool metrics = std::find(formats.begin(), formats.end(), "prometheus") != formats.end();
  const std::string prometheus = metrics ? "; with --format prometheus, Prometheus metrics (docs/prometheus.md)" : "";
  cmd.add_option("--format", out.format,
                 metrics ? "Format on stdout; prometheus with -o writes the metrics to FILE alone, text on stdout"
                         : "Format on stdout")
      ->check(CLI::IsMember(formats))
      ->capture_default_str();
  cmd.add_flag_callback("-j,--json", [&out]() { out.format = "json"; }, "Same as --format json");
  cmd.add_option("-o,--output", out.file,
                 (allow_csv ? "Also write results to FILE: CSV if it ends in .csv, JSON otherwise"
                            : "Also write results as JSON to FILE") + prometheus)
      ->check(non_empty("-o/--output"));
  if (metrics)
    cmd.add_option("--metrics-detail", out.metrics_detail,
                   "--format prometheus: summary (per node, link, and GPU and case: under 600 series for an 8-GPU "
                   "check) or cells (also every cell)")
        ->check(CLI::IsMember({"summary", "cells"}))
        ->capture_default_str();
}

report::ReportOptions report_options(const OutputOptions& out) {
  report::ReportOptions o;
  o.metrics_detail = out.metrics_detail;
  return o;
}

int with_unmeasured_metrics(const OutputOptions& out, const std::string& command, const std::function<int()>& body) {
  const auto start = std::chrono::system_clock::now();
  try {
    return body();
  } catch (const Error& e) {
    static const ErrorKind kCannotMeasure[] = {ErrorKind::no_device, ErrorKind::cuda,    ErrorKind::nvml,
                                               ErrorKind::resources, ErrorKind::timeout, ErrorKind::comm,
                                               ErrorKind::internal};
    const bool cannot = std::find(std::begin(kCannotMeasure), std::end(kCannotMeasure), e.kind()) !=
                        std::end(kCannotMeasure);
    if (out.format != "prometheus" || !cannot) throw;
    report::Unmeasured u;
    char host[256] = {};
    gethostname(host, sizeof(host) - 1);
    u.host = host;
    u.command = command;
    u.start_unix = static_cast<double>(std::chrono::system_clock::to_time_t(start));
    u.wall_seconds = std::chrono::duration<double>(std::chrono::system_clock::now() - start).count();
    u.exit_code = exit_code(e.kind());
    u.reason = to_string(e.kind());
    if (out.file.empty()) {
      std::cout << report::prometheus_unmeasured(u, "");
      std::cout.flush();
    } else {
      report::write_output_file(out.file, report::prometheus_unmeasured(u, report::current_output_text(out.file)));
    }
    throw;
  }
}

void check_output_writable(const OutputOptions& out) {
  if (!out.file.empty()) report::check_output_file(out.file);
}

void watch_standard_output() {
  for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; ++fd) {
    // open() takes the lowest free descriptor: this one.
    if (fcntl(fd, F_GETFD) < 0 && errno == EBADF) (void)open("/dev/null", O_RDONLY);
  }
  if (checked_stdout == nullptr) {
    checked_stdout = new CheckedStdout;
    std::cout.rdbuf(checked_stdout);
  }
}

int finish_standard_output(int code, std::ostream& err) {
  std::cout.flush();
  errno = 0;
  const bool flushed = std::fflush(stdout) == 0;
  std::string cause;
  if (checked_stdout != nullptr && checked_stdout->first_error() != 0)
    cause = std::strerror(checked_stdout->first_error());
  else if (!flushed)
    cause = std::strerror(errno != 0 ? errno : EIO);
  else if (std::ferror(stdout))
    cause = "an earlier write failed";  // a write outside std::cout: its errno is gone
  if (cause.empty()) return code;
  fmt::print(err, "xferbench: error: cannot write to standard output: {}\n", cause);
  return code == 0 || code == 1 || code == kExitPartial ? exit_code(ErrorKind::io) : code;
}

}  // namespace xb::app
