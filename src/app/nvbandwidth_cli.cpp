// nvbandwidth's command line and the run printed as nvbandwidth prints it.
// Options, short names and defaults follow nvbandwidth v0.9 (v0.8's plus
// -H/--useHugePages and -P/--targetNumPairs); --loopCount and
// --perfFormatter are hidden, as there. xferbench adds one option,
// --nvbandwidth-version 0.8|0.10: the text layout (default 0.10).
#include "app/nvbandwidth_cli.hpp"

#include <algorithm>
#include <iostream>

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>

#include "app/cli.hpp"
#include "app/progress.hpp"
#include "app/validators.hpp"
#include "cases/cases.hpp"
#include "base/error.hpp"
#include "base/stop.hpp"
#include "machine/topology.hpp"

namespace xb::app {
namespace {

struct NvbArgs {
  std::string buffer_mib = "512";
  std::vector<std::string> testcases, prefixes;
  bool list = false, verbose = false, skip = false, no_affinity = false, mean = false, json = false;
  bool huge_pages = false, perf = false;
  std::string layout;   // --nvbandwidth-version: empty = 0.10
  int samples = 0;      // -i: exactly N samples; 0: at least 3, more until the median is stable
  int loop_count = 0;   // --loopCount: copies per sample; 0: sized to about 20 ms per sample
  long long pairs = -1; // -P: -1 every pair
};

void add_options(CLI::App& app, NvbArgs& a) {
  app.add_option("-b,--bufferSize", a.buffer_mib, "Buffer size of each copy in MiB")->capture_default_str();
  app.add_flag("-l,--list", a.list, "List the test cases and exit");
  app.add_option("-t,--testcase", a.testcases, "Test cases to run, by name or index (several after one -t)");
  app.add_option("-p,--testcasePrefixes", a.prefixes, "Run every test case whose name starts with one of these");
  app.add_flag("-v,--verbose", a.verbose, "Print each sample, and MIN, MAX and AVG after each matrix");
  app.add_flag("-s,--skipVerification", a.skip, "Do not check the copied data");
  app.add_flag("-d,--disableAffinity", a.no_affinity, "Do not bind host buffers and this thread to the GPU's NUMA node");
  app.add_option("-i,--testSamples", a.samples,
                 "Exactly N samples per value (default: at least 3, more until the median is stable)");
  app.add_option("-P,--targetNumPairs", a.pairs, "GPU pairs to sample in GPU <-> GPU cases; -1: every pair")
      ->capture_default_str();
  app.add_flag("-m,--useMean", a.mean, "Report the mean of the samples instead of the median");
  app.add_flag("-H,--useHugePages", a.huge_pages, "Host buffers from huge pages");
  app.add_flag("-j,--json", a.json, "Print nvbandwidth's JSON instead of text");
  app.add_option("--nvbandwidth-version", a.layout,
                 "xferbench's option: print the text as nvbandwidth 0.10 (default) or 0.8 lays it out");
  // Hidden in nvbandwidth too: no group, no help line.
  app.add_option("--loopCount", a.loop_count, "")->group("");
  app.add_flag("--perfFormatter", a.perf, "")->group("");
}

bool digits(const std::string& s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
}

// nvbandwidth's selection: names and indices in the order given, or every
// case matching any prefix in catalogue order. Unknown names and indices
// out of range are returned in `unknown`, each with its place in the list.
std::vector<std::string> select(const NvbArgs& a, std::vector<report::NvbNotFound>& unknown) {
  const auto& all = case_catalogue();
  std::vector<std::string> names;
  for (const std::string& t : a.testcases) {
    const bool index_ok = digits(t) && t.size() < 7 && std::stoul(t) < all.size();
    const bool name_ok = std::any_of(all.begin(), all.end(), [&](const CaseDef& d) { return d.name == t; });
    if (index_ok || name_ok) {
      names.push_back(t);
    } else {
      unknown.push_back({t, names.size()});
    }
  }
  for (const CaseDef& d : all) {
    const bool match = std::any_of(a.prefixes.begin(), a.prefixes.end(),
                                   [&](const std::string& p) { return d.name.compare(0, p.size(), p) == 0; });
    if (match) names.push_back(d.name);
  }
  return names;
}

RunOptions to_run_options(const NvbArgs& a, const std::vector<std::string>& names) {
  RunOptions o;
  o.testcases = names;
  if (names.empty()) o.suite = "full";  // nvbandwidth runs its whole catalogue
  o.buffer_mib = a.buffer_mib;
  if (a.samples > 0) o.samples = a.samples;  // parse_nvbandwidth refuses 0 and below
  o.copies = a.loop_count;
  o.mean = a.mean;
  o.skip_verification = a.skip;
  o.disable_affinity = a.no_affinity;
  o.verbose = a.verbose;
  if (a.huge_pages) o.host_mem = "hugepages";
  if (a.pairs == 0 || a.pairs < -1)
    fail(ErrorKind::usage, fmt::format("invalid -P/--targetNumPairs '{}': use -1 (every pair) or a positive number "
                                       "of GPU pairs", a.pairs));
  o.sample_pairs = a.pairs < 0 ? 0 : static_cast<int>(std::min<long long>(a.pairs, 1 << 30));
  return o;
}

// A usage error after the options parsed: one line on `err`; with -j also
// nvbandwidth's JSON with its "error" field on `out`, as nvbandwidth -j does.
int usage_error(const std::string& message, bool json, std::ostream& out, std::ostream& err) {
  fmt::print(err, "nvbandwidth (xferbench): error: {}\n", message);
  if (json) out << report::nvb_json_text(report::nvb_json_unmeasured(System{}, {}, message));
  return exit_code(ErrorKind::usage);
}

int convert(const NvbArgs& a, NvbInvocation& inv, std::ostream& out, std::ostream& err) {
  inv.list = a.list;
  inv.json = a.json;
  inv.print.verbose = a.verbose;
  inv.print.perf_formatter = a.perf;
  inv.listed = suite_cases("full");
  if (a.list) return -1;
  if (!a.layout.empty()) {
    try {
      inv.print.layout = report::parse_nvb_layout(a.layout);
    } catch (const Error& e) {
      return usage_error(e.what(), a.json, out, err);
    }
    if (a.json) return usage_error("--nvbandwidth-version applies to the text, not to -j/--json", true, out, err);
  }
  if (!a.testcases.empty() && !a.prefixes.empty())
    return usage_error("give test cases (-t) or prefixes (-p), not both", a.json, out, err);
  std::vector<report::NvbNotFound> unknown;
  const std::vector<std::string> names = select(a, unknown);
  if (!unknown.empty()) {
    // One line on stderr, as for every other bad input; nvbandwidth's own
    // lines come on stdout where its clients look, in the text or the JSON.
    std::vector<std::string> listed;
    for (const report::NvbNotFound& u : unknown) listed.push_back(u.name);
    fmt::print(err, "nvbandwidth (xferbench): error: unknown test case '{}'; see nvbandwidth --list\n",
               fmt::join(listed, "', '"));
    inv.print.not_found = unknown;
    // Nothing else named: nothing to measure, and no GPU is touched.
    if (names.empty()) {
      if (a.json) {
        out << report::nvb_json_text(report::nvb_json_unmeasured(System{}, unknown, ""));
      } else {
        for (const std::string& u : listed) fmt::print(out, "{}\n", report::nvb_not_found_line(u));
      }
      return exit_code(ErrorKind::usage);
    }
  }
  if (!a.prefixes.empty() && names.empty())
    return usage_error(fmt::format("no test case starts with '{}'; see nvbandwidth --list", fmt::join(a.prefixes, "' or '")),
                       a.json, out, err);
  try {
    inv.options = to_run_options(a, names);
    inv.request = build_request(inv.options, {});
  } catch (const Error& e) {
    return usage_error(e.what(), a.json, out, err);
  }
  return -1;
}

}  // namespace

int nvb_exit_code(const NvbInvocation& inv, int run_code) {
  if (inv.print.not_found.empty()) return run_code;
  const StopReason stop = stop_of_exit_code(run_code);
  return stop == StopReason::sigint || stop == StopReason::sigterm ? run_code : exit_code(ErrorKind::usage);
}

int parse_nvbandwidth(const std::vector<std::string>& args, NvbInvocation& inv, std::ostream& out, std::ostream& err) {
  NvbArgs a;
  CLI::App app(fmt::format("nvbandwidth: xferbench {} with nvbandwidth's options and output (see 'xferbench --help')",
                           XFERBENCH_VERSION),
               "nvbandwidth");
  add_options(app, a);
  set_exit_code_footer(app);
  if (const int code = parse_seed_app(app, args, "nvbandwidth", out, err); code >= 0) return code;
  // "" would read as "not given" (-b '': the default size) or match every case (-p '').
  if (const std::string flag = option_given_empty(app); !flag.empty())
    return usage_error(fmt::format("invalid {} '': the value is empty", flag), a.json, out, err);
  if (a.samples < 0 || (app.count("--testSamples") > 0 && a.samples == 0))
    return usage_error(fmt::format("invalid -i/--testSamples '{}': must be at least 1", a.samples), a.json, out, err);
  if (app.count("--loopCount") > 0 && a.loop_count < 1)
    return usage_error(fmt::format("invalid --loopCount '{}': must be at least 1", a.loop_count), a.json, out, err);
  const int code = convert(a, inv, out, err);
  if (code >= 0) return code;
  inv.request.command_line.assign(1, "nvbandwidth");
  inv.request.command_line.insert(inv.request.command_line.end(), args.begin(), args.end());
  return -1;
}

}  // namespace xb::app
