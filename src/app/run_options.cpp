#include "app/run_options.hpp"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "app/validators.hpp"
#include "base/error.hpp"
#include "machine/pairs.hpp"
#include "base/units.hpp"
#include "frontends/cuts.hpp"
#include "kernels/sm_copy_config.hpp"
#include "report/reporter.hpp"

namespace xb::app {
namespace {

void add_transfer_options(CLI::App& cmd, RunOptions& o) {
  ConcurrentOptions& c = o.concurrent;
  cmd.add_option("--do", c.specs,
                 "Concurrent transfer, multi-gpu-bwtest grammar <device>[:<direction>][:<size>][:<options>], "
                 "e.g. --do=all:1024:both (repeatable; docs/concurrent.md). bwtest's --list is 'xferbench --list'")
      ->allow_extra_args(false);
  cmd.add_option("--streams", c.streams, "Stream mode for transfers: per-transfer (default), per-device, only-one");
  o.cuts_flags.htod = cmd.add_option("--htod", c.htod, "CUts: a host-to-device transfer with GPU ID (repeatable)")
                          ->allow_extra_args(false);
  o.cuts_flags.dtoh = cmd.add_option("--dtoh", c.dtoh, "CUts: a device-to-host transfer with GPU ID (repeatable)")
                          ->allow_extra_args(false);
  o.cuts_flags.dtod =
      cmd.add_option("--dtod", c.dtod, "CUts: a peer copy given as DST,SRC (repeatable)")->allow_extra_args(false);
  cmd.add_option("--iterations", c.iterations, "CUts: copies per transfer per sample (default 100)")
      ->check(non_empty("--iterations"));
  cmd.add_option("--size", c.size, "CUts: bytes per copy, K/M/G binary (default 1G)")->check(non_empty("--size"));
  cmd.add_flag("-n,--no-numa-affinity", c.no_numa_affinity, "CUts: do not place host buffers on the GPU's NUMA node");
}

// Bounded memory (docs/memory.md).
void add_memory_options(CLI::App& cmd, RunOptions& o) {
  cmd.add_option("--max-memory", o.max_memory,
                 "Most memory the buffers of named cases may hold, per GPU and on the host, as GPU,HOST "
                 "(e.g. 8G,16G); cells needing more are waived (exit 10). Default: what the largest cell needs");
}

// The nvbandwidth v0.9/v0.10 block of RunOptions.
void add_dedicated_engine_options(CLI::App& cmd, RunOptions& o) {
  cmd.add_option("--host-mem", o.host_mem,
                 "Host buffers of the named cases: pinned (default) or hugepages (2 MiB pages from the hugetlb pool, "
                 "then pinned; cases are waived with the fix when the pool is empty)");
  cmd.add_option("--pair", o.pairs, "Pairwise cases measure only GPU(row) A -> GPU(column) B (repeatable); A,B")
      ->allow_extra_args(false);
  cmd.add_option("--sample-pairs", o.sample_pairs,
                 "Pairwise cases measure N ordered GPU pairs: first one for every GPU, then random ones")
      ->check(int_at_least("--sample-pairs", 1));
  cmd.add_option("--seed", o.seed, "Seed of --sample-pairs (default 1; the same seed gives the same pairs)")
      ->check(unsigned_number("--seed"));
  cmd.add_flag("--dry-run", o.dry_run,
               "Print the plan (cases, cells, bytes moved, estimated time) without measuring anything");
  cmd.add_option("--topology", o.topology,
                 "With --dry-run: plan for the machine of a recorded 'xferbench list --format json' (or a run JSON)");
}

[[noreturn]] void bad_sm_config(const std::string& text) {
  fail(ErrorKind::usage, fmt::format("invalid --sm-config '{}': expected BLOCKS_PER_SM,THREADS,UNROLL[,streaming|,l2_256b|,cg] "
                                     "(THREADS a multiple of 32 up to 1024, UNROLL 1, 2, 4, 8, 12 or 16) or "
                                     "bulk,CHUNK_KIB,STAGES,BLOCKS_PER_SM (STAGES 2-4, CHUNK_KIB x STAGES <= 224)",
                                     text));
}

SmCopyConfig parse_sm_config(const std::string& text) {
  SmCopyConfig c;
  if (text.empty()) return c;
  if (text.rfind("bulk,", 0) == 0) {
    std::vector<int> v;
    try {
      v = parse_int_list(text.substr(5), "--sm-config");
    } catch (const Error&) {
      bad_sm_config(text);
    }
    if (v.size() != 3 || v[0] < 1 || v[1] < 2 || v[1] > 4 || v[0] * v[1] > 224 || v[2] < 1 || v[2] > 32)
      bad_sm_config(text);
    c.method = SmCopyConfig::Method::bulk;
    c.chunk_kib = v[0];
    c.stages = v[1];
    c.blocks_per_sm = v[2];
    return c;
  }
  std::string nums = text;
  const auto comma = text.rfind(',');
  const std::string hint = comma == std::string::npos ? "" : text.substr(comma + 1);
  if (hint == "streaming" || hint == "l2_256b" || hint == "cg") {
    c.streaming = hint == "streaming";
    c.l2_256b = hint == "l2_256b";
    c.l2_only = hint == "cg";
    nums = text.substr(0, comma);
  }
  std::vector<int> v;
  try {
    v = parse_int_list(nums, "--sm-config");
  } catch (const Error&) {
    bad_sm_config(text);
  }
  if (v.size() != 3 || v[0] < 1 || v[0] > 1024 || v[1] < 32 || v[1] > 1024 || v[1] % 32 != 0 ||
      !vector_unroll_supported(v[2]))
    bad_sm_config(text);
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

// Options that belong to one kind of run, given in the other, or two kinds
// of transfer description in one run.
void check_option_mix(const RunOptions& o) {
  const ConcurrentOptions& c = o.concurrent;
  const bool cuts = !c.htod.empty() || !c.dtoh.empty() || !c.dtod.empty();
  const bool named = !o.testcases.empty() || !o.prefixes.empty() || !o.suite.empty() || o.list;
  if (c.any_transfer() && named)
    fail(ErrorKind::usage, "named cases (-t, -p, --suite, -l) and transfers (--do, --htod, --dtoh, --dtod) cannot be "
                           "mixed in one run; run them separately");
  if (!c.specs.empty() && cuts)
    fail(ErrorKind::usage, fmt::format("--do '{}' and CUts flags (--htod/--dtoh/--dtod) cannot be mixed; write every "
                                       "transfer as a --do spec (e.g. --do=0:HtoD:1G --do=1:DtoD:peer=0)", c.specs[0]));
  if (c.any_transfer() && (!o.buffer_mib.empty() || !o.buffer_size.empty()))
    fail(ErrorKind::usage, "-b/--buffer-mib/--buffer-size size named cases; a --do spec carries its own size "
                           "(e.g. --do=0:HtoD:64M) and CUts flags use --size");
  std::string cuts_only;
  if (!c.iterations.empty()) cuts_only = fmt::format("--iterations '{}'", c.iterations);
  if (!c.size.empty()) cuts_only = fmt::format("--size '{}'", c.size);
  if (c.no_numa_affinity) cuts_only = "-n/--no-numa-affinity";
  if (!cuts_only.empty() && !cuts)
    fail(ErrorKind::usage, fmt::format("{} applies to CUts transfers (--htod, --dtoh, --dtod){}", cuts_only,
                                       c.specs.empty() ? "" : "; a --do spec takes its size as a field (0:HtoD:64M) "
                                                              "and its NUMA node as numa=N"));
  if (!o.max_memory.empty() && c.any_transfer())
    fail(ErrorKind::usage, fmt::format("--max-memory '{}' applies to named cases, not to transfers (--do, --htod, "
                                       "--dtoh, --dtod): they allocate what they name", o.max_memory));
  if (!c.streams.empty() && !c.any_transfer())
    fail(ErrorKind::usage, fmt::format("--streams '{}' applies to transfers (--do, --htod, --dtoh, --dtod), not to "
                                       "named cases", c.streams));
  if (!c.iterations.empty() && o.copies > 0)
    fail(ErrorKind::usage, "give --iterations or --copies, not both (each sets the copies per sample)");
  if (c.any_transfer()) {
    std::string named_only;
    if (!o.host_mem.empty()) named_only = fmt::format("--host-mem '{}'", o.host_mem);
    if (!o.pairs.empty()) named_only = fmt::format("--pair '{}'", o.pairs[0]);
    if (o.sample_pairs > 0) named_only = fmt::format("--sample-pairs {}", o.sample_pairs);
    if (o.dry_run) named_only = "--dry-run";
    if (!named_only.empty())
      fail(ErrorKind::usage, fmt::format("{} applies to named cases, not to --do/CUts transfers{}", named_only,
                                         o.host_mem.empty() ? "" : " (a --do spec takes the memory option hugepages, "
                                                                   "e.g. --do=0:HtoD:64M:hugepages)"));
  }
}

MemKind host_mem_kind(const std::string& text) {
  if (text.empty() || text == "pinned") return MemKind::pinned;
  if (text == "hugepages") return MemKind::hugepages;
  fail(ErrorKind::usage, fmt::format("invalid --host-mem '{}': expected pinned or hugepages", text));
}

// The v0.10 block: values, and options that need another one.
void apply_dedicated_engine_options(const RunOptions& o, RunRequest& req) {
  req.measure.host_kind = host_mem_kind(o.host_mem);
  for (const std::string& p : o.pairs) req.given_pairs.push_back(parse_pair(p));
  // The option itself takes N >= 1 (CLI11 checks it); front-ends may store
  // nvbandwidth's -1 ("every pair"): 0 and below mean every pair.
  if (!o.pairs.empty() && o.sample_pairs > 0)
    fail(ErrorKind::usage, fmt::format("give --pair '{}' or --sample-pairs {}, not both", o.pairs[0], o.sample_pairs));
  req.sample_pairs = std::max(0, o.sample_pairs);
  if (!o.seed.empty()) {
    if (o.sample_pairs <= 0) fail(ErrorKind::usage, fmt::format("--seed '{}' applies to --sample-pairs N", o.seed));
    req.pair_seed = parse_unsigned(o.seed, "--seed");
  }
  if (!o.topology.empty() && !o.dry_run)
    fail(ErrorKind::usage, fmt::format("--topology '{}' plans for another machine: it needs --dry-run", o.topology));
}

MeasureOptions measure_options(const RunOptions& o) {
  MeasureOptions m;
  m.statistic = o.mean ? Statistic::mean : Statistic::median;
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
  m.sm_repeat_in_kernel = !o.sm_launch_per_copy;
  m.nvbandwidth_way = !o.no_nvbandwidth_way;
  return m;
}

int cuts_id(const std::string& text, const char* flag) {
  std::int64_t id = -1;
  try {
    id = parse_int(text, flag);
  } catch (const Error&) {
    id = -1;
  }
  if (id < 0 || id > std::numeric_limits<int>::max())
    fail(ErrorKind::usage, fmt::format("invalid {} '{}': expected a GPU id such as 0", flag, text));
  return static_cast<int>(id);
}

CutsOptions cuts_options(const ConcurrentOptions& c) {
  CutsOptions out;
  for (const std::string& id : c.htod) out.htod.push_back(cuts_id(id, "--htod"));
  for (const std::string& id : c.dtoh) out.dtoh.push_back(cuts_id(id, "--dtoh"));
  for (const std::string& pair : c.dtod) out.dtod.push_back(parse_cuts_pair(pair));
  if (!c.size.empty()) out.size = parse_size(c.size, "--size");
  if (!c.iterations.empty()) {
    const std::int64_t n = parse_int(c.iterations, "--iterations");
    if (n > 1000000) fail(ErrorKind::usage, fmt::format("invalid --iterations '{}': at most 1000000", c.iterations));
    out.iterations = static_cast<int>(n);
  }
  out.no_numa_affinity = c.no_numa_affinity;
  out.order = c.order;
  return out;
}

// Error(usage) for an option that applies only to named cases given with
// transfers (-v, --format nvbandwidth), or a format that cannot write a plan
// (CSV, nvbandwidth's) with --dry-run.
void check_run_features(const RunOptions& o) {
  const bool transfers = o.concurrent.any_transfer();
  if (transfers && o.verbose)
    fail(ErrorKind::usage, "-v/--verbose applies to named cases (-t, -p, --suite), not to transfers (--do, --htod, "
                           "--dtoh, --dtod)");
  if (!o.nvbandwidth_version.empty()) {
    (void)report::parse_nvb_layout(o.nvbandwidth_version);
    if (o.out.format != "nvbandwidth")
      fail(ErrorKind::usage, fmt::format("--nvbandwidth-version applies to --format nvbandwidth, not --format {}",
                                         o.out.format));
  }
  if (o.no_nvbandwidth_way && o.out.format.rfind("nvbandwidth", 0) == 0)
    fail(ErrorKind::usage, fmt::format("--no-nvbandwidth-way cannot go with --format {}: nvbandwidth's layouts print "
                                       "the figures measured its way", o.out.format));
  const report::Outputs out(o.out.format, o.out.file);
  if (transfers) out.require(report::Kind::scenario);
  if (o.dry_run) out.require(report::Kind::plan);
}

}  // namespace

MemoryLimit parse_max_memory(const std::string& text) {
  const auto comma = text.find(',');
  if (comma == std::string::npos || text.find(',', comma + 1) != std::string::npos)
    fail(ErrorKind::usage, fmt::format("invalid --max-memory '{}': expected GPU,HOST sizes such as 8G,16G", text));
  auto size = [&](const std::string& part, const char* which) {
    try {
      return parse_size(part, which);
    } catch (const Error&) {
      fail(ErrorKind::usage, fmt::format("invalid --max-memory '{}': the {} size '{}' is not a size such as 8G "
                                         "(expected GPU,HOST)", text, which, part));
    }
  };
  MemoryLimit m;
  m.gpu = size(text.substr(0, comma), "GPU");
  m.host = size(text.substr(comma + 1), "HOST");
  return m;
}

void record_cuts_order(const CLI::App& cmd, const CutsFlagOptions& flags, ConcurrentOptions& o) {
  o.order.clear();
  for (const CLI::Option* opt : cmd.parse_order()) {
    if (opt == flags.htod) o.order.push_back(Direction::htod);
    if (opt == flags.dtoh) o.order.push_back(Direction::dtoh);
    if (opt == flags.dtod) o.order.push_back(Direction::dtod);
  }
  // An occurrence carrying several values breaks the one-to-one match; the
  // grouped order (every --htod, --dtoh, --dtod) is then the fallback.
  if (o.order.size() != o.htod.size() + o.dtoh.size() + o.dtod.size()) o.order.clear();
}

void add_run_options(CLI::App& cmd, RunOptions& o) {
  cmd.add_option("-t,--testcase", o.testcases, "Case(s) by name or index (see 'xferbench cases')")->take_all();
  cmd.add_option("-p,--testcase-prefix", o.prefixes, "Every case whose name starts with PREFIX")->take_all();
  cmd.add_option("--suite", o.suite, "quick (default), full (nvbandwidth v0.8's 35 cases), loaded (latency idle and under load) or all (every case)");
  cmd.add_option("-b,--buffer-mib", o.buffer_mib, "Buffer size in MiB, as nvbandwidth (default 512)")
      ->check(non_empty("-b/--buffer-mib"));
  cmd.add_option("--buffer-size", o.buffer_size, "Buffer size in bytes; K/M/G suffixes are binary (1K = 1024)")
      ->check(non_empty("--buffer-size"));
  cmd.add_option("-i,--samples", o.samples, "Take exactly N samples per cell (default: adaptive)")
      ->check(int_at_least("-i/--samples", 1));
  cmd.add_option("--min-samples", o.min_samples, "Adaptive sampling: at least N samples")->capture_default_str();
  cmd.add_option("--max-samples", o.max_samples, "Adaptive sampling: at most N samples")->capture_default_str();
  cmd.add_option("--target-error", o.target_error_pct,
                 "Adaptive sampling: stop when the median's relative error is below PCT percent")->capture_default_str();
  cmd.add_option("--budget", o.budget_s, "Adaptive sampling: seconds per cell before stopping")->capture_default_str();
  cmd.add_option("--sample-ms", o.sample_ms, "Target duration of one sample in ms")->capture_default_str();
  cmd.add_option("--copies", o.copies, "Copies per sample (default: from --sample-ms)")
      ->check(int_at_least("--copies", 1));
  cmd.add_option("--gate-timeout", o.gate_timeout_s, "Seconds the gate kernel waits before failing the sample")
      ->capture_default_str();
  cmd.add_option("--sm-config", o.sm_config, "SM copy kernel shape: BLOCKS_PER_SM,THREADS,UNROLL[,streaming|,l2_256b|,cg] or bulk,CHUNK_KIB,STAGES,BLOCKS_PER_SM");
  cmd.add_flag("--sm-launch-per-copy", o.sm_launch_per_copy,
               "Launch one SM kernel per copy (default: one kernel repeats a sample's copies, as nvbandwidth's do)");
  cmd.add_flag("--no-nvbandwidth-way", o.no_nvbandwidth_way,
               "Do not also measure the cells nvbandwidth measures another way (fan totals on 3+ GPUs, split-warp "
               "host cells; docs/nvbandwidth.md): faster, and without the note where the two ways differ");
  cmd.add_flag("-m,--mean", o.mean, "Report the mean of samples instead of the median");
  cmd.add_flag("-s,--skip-verification", o.skip_verification, "Do not verify data after the timed copies");
  cmd.add_flag("-d,--disable-affinity", o.disable_affinity,
               "Do not place host buffers and the measuring thread on the GPU's NUMA node");
  cmd.add_flag("-l,--list", o.list, "List the cases and exit (as 'xferbench cases')");
  cmd.add_option("--drift-check", o.drift_check,
                 "Measure reference cells (host->gpu0, gpu0->peer) at the start and the end of the run and report "
                 "how far they moved: on, off, or auto (on for runs of 3 or more cases)")
      ->capture_default_str();
  cmd.add_option("--drift-tolerance", o.drift_tolerance_pct,
                 "Drift in percent above which the run is reported unstable")->capture_default_str();
  add_transfer_options(cmd, o);
  add_memory_options(cmd, o);
  add_dedicated_engine_options(cmd, o);
  add_nvbandwidth_spellings(cmd, o);
  add_output_options(cmd, o.out, true, {"nvbandwidth", "nvbandwidth-json", "prometheus"});
  cmd.add_option("--nvbandwidth-version", o.nvbandwidth_version,
                 "With --format nvbandwidth: the text layout of nvbandwidth 0.10 (default) or 0.8 (docs/nvbandwidth.md)")
      ->check(non_empty("--nvbandwidth-version"));
  add_stop_options(cmd, o.stop, true);
}

std::vector<const CaseDef*> named_cases(const std::vector<std::string>& testcases,
                                        const std::vector<std::string>& prefixes, const std::string& suite,
                                        const std::function<std::vector<const CaseDef*>()>& fallback) {
  if (!suite.empty() && (!testcases.empty() || !prefixes.empty()))
    fail(ErrorKind::usage, "--suite cannot be combined with -t/--testcase or -p/--testcase-prefix");
  if (!testcases.empty() && !prefixes.empty())
    fail(ErrorKind::usage, "give cases by name/index (-t) or by prefix (-p), not both");
  if (!testcases.empty() || !prefixes.empty()) return select_cases(testcases, prefixes);
  return suite.empty() ? fallback() : suite_cases(suite);
}

RunRequest build_request(const RunOptions& o, const std::vector<std::string>& command_line) {
  check_option_mix(o);
  check_run_features(o);
  RunRequest req;
  req.command_line = command_line;
  req.cases = named_cases(o.testcases, o.prefixes, o.suite, [] { return suite_cases("quick"); });
  req.buffer_bytes = buffer_bytes(o);
  req.measure = measure_options(o);
  if (o.drift_check != "on" && o.drift_check != "off" && o.drift_check != "auto")
    fail(ErrorKind::usage, fmt::format("invalid --drift-check '{}': expected on, off or auto", o.drift_check));
  if (!(o.drift_tolerance_pct > 0))
    fail(ErrorKind::usage, fmt::format("invalid --drift-tolerance '{}': must be greater than 0", o.drift_tolerance_pct));
  req.stability_check = o.drift_check == "on" || (o.drift_check == "auto" && req.cases.size() >= 3);
  req.stability_tolerance_pct = o.drift_tolerance_pct;
  if (!o.max_memory.empty()) req.max_memory = parse_max_memory(o.max_memory);
  apply_dedicated_engine_options(o, req);
  return req;
}

ScenarioPlan build_scenario_plan(const RunOptions& o, const std::vector<std::string>& command_line) {
  check_option_mix(o);
  check_run_features(o);
  const ConcurrentOptions& c = o.concurrent;
  if (!c.any_transfer()) fail(ErrorKind::usage, "no transfer given (use --do=SPEC or --htod/--dtoh/--dtod)");
  ScenarioPlan plan;
  plan.command_line = command_line;
  plan.stop = o.stop;
  plan.streams = c.streams.empty() ? StreamMode::per_transfer : parse_stream_mode(c.streams);
  plan.measure = measure_options(o);
  if (!c.specs.empty()) {
    plan.front_end = "bwtest";
    for (const std::string& spec : c.specs) {
      const std::vector<TransferRequest> parsed = parse_transfer_spec(spec);
      plan.requests.insert(plan.requests.end(), parsed.begin(), parsed.end());
    }
    return plan;
  }
  plan.front_end = "cuts";
  const CutsOptions cuts = cuts_options(c);
  plan.requests = cuts_to_requests(cuts);
  // CUts runs its iterations once and times them: one sample of that many
  // copies, unless the user asked for samples.
  plan.measure.copies_per_sample = cuts.iterations;
  if (o.samples <= 0) plan.measure.min_samples = plan.measure.max_samples = 1;
  return plan;
}

}  // namespace xb::app
