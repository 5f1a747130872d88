// nvbandwidth's spellings of 'xferbench run' options, so command lines
// written for nvbandwidth work with only the program name changed. They
// set the same fields as xferbench's own options; the help lists them in a
// group of their own.
#include <algorithm>

#include <fmt/format.h>

#include "app/run_options.hpp"
#include "base/error.hpp"

namespace xb::app {

void add_nvbandwidth_spellings(CLI::App& cmd, RunOptions& o) {
  const std::string group = "nvbandwidth spellings";
  cmd.add_option("--bufferSize", o.buffer_mib, "Same as -b/--buffer-mib: buffer size in MiB")->group(group);
  cmd.add_option_function<int>(
         "--loopCount",
         [&o](const int& n) {
           if (n < 1) fail(ErrorKind::usage, fmt::format("invalid --loopCount '{}': must be at least 1", n));
           o.copies = n;
         },
         "Same as --copies: copies per sample")
      ->group(group);
  cmd.add_option_function<std::vector<std::string>>(
         "--testcasePrefixes",
         [&o](const std::vector<std::string>& v) { o.prefixes.insert(o.prefixes.end(), v.begin(), v.end()); },
         "Same as -p/--testcase-prefix")
      ->group(group);
  cmd.add_option("--testSamples", o.samples, "Same as -i/--samples: exactly N samples per cell")->group(group);
  cmd.add_flag("--useMean", o.mean, "Same as -m/--mean")->group(group);
  cmd.add_flag("--skipVerification", o.skip_verification, "Same as -s/--skip-verification")->group(group);
  cmd.add_flag("--disableAffinity", o.disable_affinity, "Same as -d/--disable-affinity")->group(group);
  cmd.add_flag_callback("-H,--useHugePages", [&o]() { o.host_mem = "hugepages"; },
                        "Host buffers from 2 MiB huge pages (nvbandwidth v0.9)")
      ->group(group);
  cmd.add_option_function<long long>(
         "-P,--targetNumPairs",
         [&o](const long long& n) {
           if (n == 0 || n < -1)
             fail(ErrorKind::usage, fmt::format("invalid -P/--targetNumPairs '{}': use -1 (every pair) or a "
                                                "positive number of GPU pairs", n));
           o.sample_pairs = n < 0 ? 0 : static_cast<int>(std::min<long long>(n, 1 << 30));
         },
         "Measure N sampled GPU pairs in GPU <-> GPU cases; -1: every pair (nvbandwidth v0.9)")
      ->group(group);
  cmd.add_flag("-v,--verbose", o.verbose,
               "Print each cell's sample count, p50, p95, p99, min and max after its matrix, and each sample's "
               "value after the case, as nvbandwidth -v does");
}

}  // namespace xb::app
