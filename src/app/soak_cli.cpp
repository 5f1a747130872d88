// What `xferbench soak` and `xferbench check --soak` share (soak_cli.hpp).
#include "app/soak_cli.hpp"

#include <algorithm>
#include <iostream>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "app/cli.hpp"
#include "app/progress.hpp"
#include "base/error.hpp"

namespace xb::app {
namespace {

[[noreturn]] void holds_a_soak(const std::string& path, std::uint64_t bytes, const std::string& option) {
  const std::string resume = option == "-o" ? fmt::format("--resume '{}' continues that soak, ", path) : "";
  fail(ErrorKind::usage, fmt::format("{} '{}' already holds {} bytes (a soak file holds one soak): {}--overwrite "
                                     "starts it anew", option, path, bytes, resume));
}

// xferbench-soak-20261125T120304Z.jsonl for 2026-11-25T12:03:04.123Z.
std::string default_soak_file(const soak::SoakClock& clock) {
  std::string stamp = soak::utc_text(clock.utc_s());
  stamp.erase(std::remove_if(stamp.begin(), stamp.end(), [](char ch) { return ch == '-' || ch == ':'; }), stamp.end());
  return fmt::format("xferbench-soak-{}Z.jsonl", stamp.substr(0, stamp.find('.')));
}

}  // namespace

std::vector<const CaseDef*> default_soak_cases() {
  std::vector<const CaseDef*> cases = check::check_suite();
  for (const CaseDef* d : suite_cases("loaded")) cases.push_back(d);
  return cases;
}

void check_soak_file(const std::string& path, SoakFileMode mode, const std::string& option) {
  if (mode == SoakFileMode::start) {
    const std::uint64_t held = report::held_output_bytes(path);
    if (held > 0) holds_a_soak(path, held, option);
  }
  report::check_output_file(path);
}

std::unique_ptr<report::AppendFile> open_soak_file(const std::string& file, SoakFileMode mode,
                                                   const std::string& option, const soak::SoakClock& clock,
                                                   std::ostream& err) {
  if (file.empty()) {
    const std::string name = default_soak_file(clock);
    auto out = std::make_unique<report::AppendFile>(name, true);
    fmt::print(err, "xferbench: soak samples go to {}\n", name);
    return out;
  }
  auto out = std::make_unique<report::AppendFile>(file);
  if (mode == SoakFileMode::append) {
    out->drop_torn_tail();
  } else if (out->held_bytes() > 0) {  // a file that filled up since check_soak_file
    if (mode == SoakFileMode::start) holds_a_soak(file, out->held_bytes(), option);
    out->empty();
  }
  return out;
}

soak::SoakClock soak_clock(const Context& ctx) {
  soak::SoakClock c = soak::real_soak_clock();
  if (ctx.steady_s) c.steady_s = ctx.steady_s;
  if (ctx.utc_s) c.utc_s = ctx.utc_s;
  return c;
}

std::shared_ptr<NvmlQueries> soak_nvml(const Context& ctx) {
  if (ctx.open_nvml) return ctx.open_nvml();
  try {
    return Nvml::load();
  } catch (const Error&) {
    return nullptr;  // no telemetry: every field stays empty
  }
}

soak::SoakOutcome run_soak_with_status(SampleSource& src, const NvmlQueries* nvml, soak::SoakRequest& req,
                                       report::AppendFile& out, const Context& ctx) {
  const bool terminal = progress_enabled(ctx);
  Progress progress(terminal, std::cerr, 0.0);
  soak::SoakCallbacks cb;
  cb.on_status = [&](const soak::SoakStatus& s) {
    if (terminal) progress.update(soak::soak_status_text(s));
    else if (!ctx.quiet && s.round_done) fmt::print(std::cerr, "xferbench: {}\n", soak::soak_status_text(s));
  };
  const soak::LineSink sink = [&out](const std::string& line) { out.append(line); };
  soak::SoakOutcome o = soak::run_soak(src, nvml, req, sink, soak_clock(ctx), cb);
  progress.finish();
  return o;
}

RunResult soak_for_check(const Context& ctx, SampleSource& src, const NvmlQueries* nvml, const RunRequest& suite,
                         double duration_s, const std::string& file, SoakFileMode mode, check::CheckResult& r) {
  soak::SoakRequest req;
  req.preset = suite;
  req.duration_s = duration_s;
  const auto out = open_soak_file(file, mode, "--soak-file", soak_clock(ctx), std::cerr);
  soak::SoakOutcome o = run_soak_with_status(src, nvml, req, *out, ctx);
  r.soak = o.summary;
  r.soak_header = o.header;
  r.soak_file = out->path();
  return soak::with_soak_medians(std::move(o.first_round), o.summary);
}

}  // namespace xb::app
