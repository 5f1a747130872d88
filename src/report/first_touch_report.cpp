// Reporters for first-touch results: the seed's per-sub-iteration lines
// plus `#` summary tables (text) and CSV (one row per variant); the JSON is
// firsttouch/first_touch_json's.
#include <cmath>

#include <fmt/format.h>

#include "report/formats.hpp"

namespace xb::report {

using firsttouch::FirstSteady;
using firsttouch::Phases;
using firsttouch::Result;
using firsttouch::VariantResult;

namespace {

// The seed prints times with ostream's default (6 significant digits).
std::string g(double v) { return std::isnan(v) ? std::string("-") : fmt::format("{:g}", v); }
double steady_of(const Phases& p) { return p.steady_copy_s.empty() ? firsttouch::kNotMeasured : p.steady_copy_s[0]; }
std::string device_label(int gpu) { return gpu < 0 ? "host" : fmt::format("gpu{}", gpu); }

std::string route(const Result& r) {
  if (r.mode == "host") return fmt::format("host memory -> {}", device_label(r.receiver_gpu));
  return fmt::format("rank {} ({}, {}) -> rank {} ({}, {})", r.sender_rank, r.sender_host, device_label(r.sender_gpu),
                     r.receiver_rank, r.receiver_host, device_label(r.receiver_gpu));
}

std::string doing_line(const Result& r, const VariantResult& v) {
  if (r.mode == "host") {
    return fmt::format("Doing host -> {} copies of {} bytes from a fresh {} buffer of {} bytes ({}).\n",
                       device_label(r.receiver_gpu), r.p2p_bytes, v.memory, v.alloc_bytes(), v.label);
  }
  // On MPI the line is the seed's own, so scripts that parse it keep working.
  const std::string how = r.transport == "mpi" ? "MPI_Send/Recv" : r.transport + " send/recv";
  return fmt::format("Doing {} from rank {} to rank {}, of {} bytes from a buffer of {} bytes ({}).\n", how,
                     r.sender_rank, r.receiver_rank, r.p2p_bytes, v.alloc_bytes(), v.label);
}

void append_iteration_lines(std::string& out, const VariantResult& v, std::size_t i) {
  for (std::size_t j = 0; j < v.times_s[i].size(); ++j) out += fmt::format("[{}:{}] time: {}\n", i, j, g(v.times_s[i][j]));
}

std::string summary_header(const Result& r) {
  return fmt::format(
      "# summary over {} iteration(s): first = median of sub-iteration 0, steady = median of sub-iterations 1..{}, "
      "ratio = first / steady\n# time = {}\n",
      r.iterations, r.sub_iterations - 1,
      r.mode == "host" ? "the host -> GPU copy (cudaMemcpyAsync until the stream is done)"
                       : "sender starts the send .. receiver's acknowledgement arrives");
}

std::string sweep_row(const VariantResult& v) {
  const FirstSteady s = firsttouch::summarize(v.times_s);
  const Phases m = firsttouch::median_phases(v.phases);
  return fmt::format("{:>14}{:>14}{:>14}{:>14}{:>14}{:>12}{:>14}\n", v.buffer_bytes, v.overalloc_bytes,
                     v.alloc_bytes(), g(s.first_s), g(s.steady_s), g(s.ratio), g(m.open_s));
}

void append_summary(std::string& out, const Result& r) {
  out += summary_header(r);
  out += fmt::format("# {:<32}{:>14}{:>14}{:>14}{:>12}{:>14}\n", "variant", "buffer (B)", "alloc (B)", "first (s)",
                     "steady (s)", "ratio");
  for (const auto& v : r.variants) {
    const FirstSteady s = firsttouch::summarize(v.times_s);
    out += fmt::format("# {:<32}{:>14}{:>14}{:>14}{:>12}{:>14}\n", v.label, v.buffer_bytes, v.alloc_bytes(),
                       g(s.first_s), g(s.steady_s), g(s.ratio));
  }
}

void append_phases(std::string& out, const Result& r) {
  out += "# where the time goes (median per iteration, s; '-': not done on this path or not observable)\n";
  out += fmt::format("# {:<32}{:>12}{:>12}{:>12}{:>12}{:>12}{:>12}{:>12}\n", "variant", "alloc snd", "alloc rcv",
                     "export", "open", "register", "first copy", "steady cp");
  for (const auto& v : r.variants) {
    const Phases m = firsttouch::median_phases(v.phases);
    out += fmt::format("# {:<32}{:>12}{:>12}{:>12}{:>12}{:>12}{:>12}{:>12}\n", v.label, g(m.alloc_sender_s),
                       g(m.alloc_receiver_s), g(m.export_s), g(m.open_s), g(m.register_s), g(m.first_copy_s),
                       g(steady_of(m)));
  }
}

// Failed iterations, an error that ended the run, and what was not run.
void append_completion(std::string& out, const Result& r) {
  for (const auto& v : r.variants)
    for (const auto& f : v.failed) out += fmt::format("# iteration {} FAILED\n", f);
  const Completion& c = r.completion;
  if (!c.error.empty()) out += fmt::format("# ERROR (the iterations above are kept): {}\n", c.error);
  out += completion_line(c, "run", "iteration(s)");
}

// Up to "[-1] time" (a sweep: and its table's header).
std::string text_head(const Result& r) {
  std::string out = fmt::format("p2p_size: {}\n", r.p2p_bytes);
  if (r.mode != "sweep" && !r.variants.empty()) {
    out += fmt::format("buffer_size: {}\noveralloc_size: {}\n", r.variants[0].buffer_bytes, r.variants[0].overalloc_bytes);
  }
  out += fmt::format("# {}: {}, transport {}\n", r.mode == "host" ? "host analogue" : "first-touch", route(r), r.transport);
  if (!std::isnan(r.connect_s)) out += fmt::format("# connect (one-time setup): {} s\n", g(r.connect_s));
  out += fmt::format("[-1] time: {}\n", g(r.warmup_s));
  if (r.mode == "sweep")  // the columns of sweep_row
    out += summary_header(r) + fmt::format("{:>14}{:>14}{:>14}{:>14}{:>14}{:>12}{:>14}\n", "buffer (B)", "overalloc (B)",
                                           "alloc (B)", "first (s)", "steady (s)", "ratio", "ipc open (s)");
  return out;
}

}  // namespace

std::string FirstTouchTextStream::next(const Result& so_far, bool last_complete) {
  std::string out;
  if (!head_) out += text_head(so_far);
  head_ = true;
  const bool sweep = so_far.mode == "sweep";
  for (std::size_t k = closed_; k < so_far.variants.size(); ++k) {
    const VariantResult& v = so_far.variants[k];
    if (opened_ <= k) {
      if (!sweep) out += doing_line(so_far, v);
      opened_ = k + 1;
      lines_ = 0;
    }
    for (; lines_ < v.times_s.size(); ++lines_) {
      if (!sweep) append_iteration_lines(out, v, lines_);
    }
    if (k + 1 < so_far.variants.size() || last_complete) {
      if (sweep) out += sweep_row(v);
      closed_ = k + 1;
      lines_ = 0;
    }
  }
  return out;
}

std::string FirstTouchTextStream::finish(const Result& r) {
  std::string out = next(r, true);
  if (r.mode != "sweep") append_summary(out, r);
  append_phases(out, r);
  append_completion(out, r);
  return out;
}

std::string without_annotations(const std::string& text) {
  std::string out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    end = end == std::string::npos ? text.size() : end + 1;
    if (text[pos] != '#') out.append(text, pos, end - pos);
    pos = end;
  }
  return out;
}


std::string first_touch_csv(const Result& r) {
  std::string out =
      "mode,transport,memory,label,buffer_bytes,overalloc_bytes,alloc_bytes,p2p_bytes,iterations,sub_iterations,"
      "first_time_s,steady_time_s,first_over_steady_ratio,alloc_sender_time_s,alloc_receiver_time_s,"
      "ipc_export_time_s,ipc_open_time_s,register_time_s,first_copy_time_s,steady_copy_time_s\n";
  const auto e = [](double v) { return std::isnan(v) ? std::string() : fmt::format("{:.9e}", v); };
  for (const auto& v : r.variants) {
    const FirstSteady s = firsttouch::summarize(v.times_s);
    const Phases m = firsttouch::median_phases(v.phases);
    out += fmt::format("{},{},{},\"{}\",{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", r.mode, r.transport,
                       v.memory, v.label, v.buffer_bytes, v.overalloc_bytes, v.alloc_bytes(), r.p2p_bytes,
                       r.iterations, r.sub_iterations, e(s.first_s), e(s.steady_s), e(s.ratio), e(m.alloc_sender_s),
                       e(m.alloc_receiver_s), e(m.export_s), e(m.open_s), e(m.register_s), e(m.first_copy_s),
                       e(steady_of(m)));
  }
  return out;
}

}  // namespace xb::report
