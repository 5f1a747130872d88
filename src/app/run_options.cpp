#include "app/run_options.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/units.hpp"

namespace xb::app {

void add_run_options(CLI::App& cmd, RunOptions& o) {
  cmd.add_option("-t,--testcase", o.testcases, "Case(s) by name or index (see 'xferbench cases')")->take_all();
  cmd.add_option("-p,--testcase-prefix", o.prefixes, "Every case whose name starts with PREFIX")->take_all();
  cmd.add_option("--suite", o.suite, "quick (default) or full (all 35 cases)");
  cmd.add_option("-b,--buffer-mib", o.buffer_mib, "Buffer size in MiB, as nvbandwidth (default 512)");
  cmd.add_option("--buffer-size", o.buffer_size, "Buffer size in bytes; K/M/G suffixes are binary (1K = 1024)");
  cmd.add_option("-i,--samples", o.samples, "Take exactly N samples per cell (default: adaptive)");
  cmd.add_option("--min-samples", o.min_samples, "Adaptive sampling: at least N samples")->capture_default_str();
  cmd.add_option("--max-samples", o.max_samples, "Adaptive sampling: at most N samples")->capture_default_str();
  cmd.add_option("--target-error", o.target_error_pct,
                 "Adaptive sampling: stop when the median's relative error is below PCT percent")->capture_default_str();
  cmd.add_option("--budget", o.budget_s, "Adaptive sampling: seconds per cell before stopping")->capture_default_str();
  cmd.add_option("--sample-ms", o.sample_ms, "Target duration of one sample in ms")->capture_default_str();
  cmd.add_option("--copies", o.copies, "Copies per sample (default: from --sample-ms)");
  cmd.add_option("--gate-timeout", o.gate_timeout_s, "Seconds the gate kernel waits before failing the sample")
      ->capture_default_str();
  cmd.add_option("--sm-config", o.sm_config, "SM copy kernel shape: BLOCKS_PER_SM,THREADS,UNROLL[,streaming]");
  cmd.add_flag("-m,--mean", o.mean, "Report the mean of samples instead of the median");
  cmd.add_flag("-s,--skip-verification", o.skip_verification, "Do not verify data after the timed copies");
  cmd.add_flag("-d,--disable-affinity", o.disable_affinity,
               "Do not place host buffers and the measuring thread on the GPU's NUMA node");
  cmd.add_flag("-l,--list", o.list, "List the cases and exit (as 'xferbench cases')");
  add_output_options(cmd, o.out);
}

namespace {

SmCopyConfig parse_sm_config(const std::string& text) {
  SmCopyConfig c;
  if (text.empty()) return c;
  const auto comma = text.rfind(',');
  std::string nums = text;
  if (comma != std::string::npos && text.substr(comma + 1) == "streaming") {
    c.streaming = true;
    nums = text.substr(0, comma);
  }
  const auto v = parse_int_list(nums, "--sm-config");
  if (v.size() != 3 || v[0] < 1 || v[1] < 32 || v[1] > 1024 || v[1] % 32 != 0 ||
      (v[2] != 1 && v[2] != 2 && v[2] != 4 && v[2] != 8))
    fail(ErrorKind::usage, fmt::format("invalid --sm-config '{}': expected BLOCKS_PER_SM,THREADS,UNROLL with THREADS a "
                                       "multiple of 32 up to 1024 and UNROLL 1, 2, 4 or 8", text));
  c.blocks_per_sm = v[0];
  c.threads = v[1];
  c.unroll = v[2];
  return c;
}

std::uint64_t buffer_bytes(const RunOptions& o) {
  if (!o.buffer_mib.empty() && !o.buffer_size.empty())
    fail(ErrorKind::usage, "give the buffer size once: -b/--buffer-mib or --buffer-size, not both");
  std::uint64_t bytes = 512ull << 20;
  if (!o.buffer_mib.empty()) {
    const std::int64_t mib = parse_int(o.buffer_mib, "-b/--buffer-mib (MiB)");
    if (mib > (1ll << 24)) fail(ErrorKind::usage, fmt::format("invalid -b/--buffer-mib '{}': too large", o.buffer_mib));
    bytes = static_cast<std::uint64_t>(mib) << 20;
  } else if (!o.buffer_size.empty()) {
    bytes = parse_size(o.buffer_size, "--buffer-size");
  }
  if (bytes == 0)
    fail(ErrorKind::usage, fmt::format("invalid buffer size '{}': must be greater than 0",
                                       o.buffer_mib.empty() ? o.buffer_size : o.buffer_mib));
  return bytes;
}

void check_positive(double v, const char* what) {
  if (!(v > 0)) fail(ErrorKind::usage, fmt::format("invalid {} '{}': must be greater than 0", what, v));
}

}  // namespace

RunRequest build_request(const RunOptions& o, const std::vector<std::string>& command_line) {
  RunRequest req;
  req.command_line = command_line;
  if (!o.suite.empty() && (!o.testcases.empty() || !o.prefixes.empty()))
    fail(ErrorKind::usage, "--suite cannot be combined with -t/--testcase or -p/--testcase-prefix");
  if (!o.testcases.empty() && !o.prefixes.empty())
    fail(ErrorKind::usage, "give cases by name/index (-t) or by prefix (-p), not both");
  req.cases = (o.testcases.empty() && o.prefixes.empty()) ? suite_cases(o.suite.empty() ? "quick" : o.suite)
                                                          : select_cases(o.testcases, o.prefixes);
  req.buffer_bytes = buffer_bytes(o);
  req.use_mean = o.mean;
  MeasureOptions& m = req.measure;
  if (o.samples == 0 || o.samples < -1)
    fail(ErrorKind::usage, fmt::format("invalid -i/--samples '{}': must be at least 1", o.samples));
  if (o.min_samples < 1) fail(ErrorKind::usage, fmt::format("invalid --min-samples '{}': must be at least 1", o.min_samples));
  if (o.max_samples < o.min_samples)
    fail(ErrorKind::usage, fmt::format("invalid --max-samples '{}': below --min-samples {}", o.max_samples, o.min_samples));
  check_positive(o.target_error_pct, "--target-error");
  check_positive(o.budget_s, "--budget");
  check_positive(o.sample_ms, "--sample-ms");
  check_positive(o.gate_timeout_s, "--gate-timeout");
  if (o.copies < 0) fail(ErrorKind::usage, fmt::format("invalid --copies '{}': must be at least 1", o.copies));
  m.min_samples = o.samples > 0 ? o.samples : o.min_samples;
  m.max_samples = o.samples > 0 ? o.samples : o.max_samples;
  m.target_rel_error = o.target_error_pct / 100.0;
  m.budget_s = o.budget_s;
  m.target_sample_s = o.sample_ms / 1e3;
  m.copies_per_sample = o.copies;
  m.gate_timeout_s = o.gate_timeout_s;
  m.verify = !o.skip_verification;
  m.numa_affinity = !o.disable_affinity;
  m.sm = parse_sm_config(o.sm_config);
  return req;
}

}  // namespace xb::app
