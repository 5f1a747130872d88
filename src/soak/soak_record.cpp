#include "soak/soak_record.hpp"

#include <climits>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/error.hpp"
#include "base/input_file.hpp"
#include "records/document.hpp"

// An empty optional is null in the file, and null (or absent) reads back
// as an empty optional.
template <class T>
struct nlohmann::adl_serializer<std::optional<T>> {
  static void to_json(json& j, const std::optional<T>& v) { j = v ? json(*v) : json(nullptr); }
  static void from_json(const json& j, std::optional<T>& v) {
    if (j.is_null())
      v.reset();
    else
      v = j.get<T>();
  }
};

namespace xb::soak {
namespace {

using json = nlohmann::json;
using records::Fields;

// Each line kind's fields, described once for both directions
// (records/document.hpp).
constexpr auto telemetry_fields = [](auto& io, auto& t) {
  io.need("gpu", t.gpu);
  io("temperature_c", t.temperature_c);
  io("power_w", t.power_w);
  io("sm_clock_mhz", t.sm_clock_mhz);
  io("mem_clock_mhz", t.mem_clock_mhz);
  io("clock_reasons", t.clock_reasons);
  io("ecc_corrected", t.ecc_corrected);
  io("ecc_uncorrected", t.ecc_uncorrected);
  io("rows_remapped_correctable", t.rows_remapped_correctable);
  io("rows_remapped_uncorrectable", t.rows_remapped_uncorrectable);
  io("row_remap_pending", t.row_remap_pending);
  io("row_remap_failure", t.row_remap_failure);
  io("pcie_replays", t.pcie_replays);
  io.when(!t.xids.empty(), "xids", t.xids);
};

constexpr auto sample_fields = [](auto& io, auto& s) {
  io.text("type", "sample");
  io.need("t_s", s.t_s);
  io.need("time_utc", s.time_utc);
  io.need("round", s.round);
  io.need("cell", s.cell);
  io.need("unit", s.unit);
  io.check(s.unit == "gbps" || s.unit == "ns", "unit", fmt::format("unknown unit '{}' (gbps or ns)", s.unit));
  io.need("value", s.value);
  io("peak_gbps", s.peak_gbps);
  io("idle_ns", s.idle_ns);
  io("load_gbps", s.load_gbps);
  io("load_pct", s.load_pct);
  io.need("verified", s.verified);
  io.when(!s.error.empty(), "error", s.error);
  io.list("telemetry", s.telemetry, telemetry_fields);
};

constexpr auto header_fields = [](auto& io, auto& h) {
  io.text("type", "header");
  io.text("schema", kSoakSchema);
  io.text("schema_version", kSoakSchemaVersion);
  io.need("command_line", h.command_line);
  io.need("start_time_utc", h.start_time_utc);
  io.need("host", h.host);
  io.need("gpus", h.gpus);
  io.need("cases", h.cases);
  io.need("duration_s", h.duration_s);
};

constexpr auto end_fields = [](auto& io, auto& e) {
  io.text("type", "end");
  io.need("time_utc", e.time_utc);
  io.need("t_s", e.t_s);
  io.need("status", e.status);
  io.check(e.status == "completed" || e.status == "interrupted" || e.status == "error", "status",
           fmt::format("unknown status '{}' (completed, interrupted or error)", e.status));
  io("reason", e.reason);
};

struct Resume {
  double t_s = 0;
  std::string time_utc;
};
constexpr auto resume_fields = [](auto& io, auto& r) {
  io.text("type", "resume");
  io.need("t_s", r.t_s);
  io.need("time_utc", r.time_utc);
};

template <class R, class F>
std::string line_of(const R& r, F f) {
  return records::Writer::of(r, f).dump() + "\n";
}

template <class R, class F>
R read(const Fields& from, F f) {
  R r{};
  records::Reader::into(from, r, f);
  return r;
}

bool whole_at_most(const json& v, std::uint64_t most) { return v.is_number_unsigned() && v.get<std::uint64_t>() <= most; }

// Numbers the codec would wrap or truncate without a word (a counter of -1
// read as 2^64 - 1, round 1.5 as 1, a clock of 2^40 MHz) and negative
// times and values are refused, as the plot reader refuses them.
void check_sample_numbers(const json& j) {
  const auto need = [](bool ok, const std::string& field, const json& v, const char* want) {
    if (!ok) throw records::DecodeError(fmt::format("{}: {} is not {}", field, json_text(v), want));
  };
  const auto at_least_0 = [&](const char* key) {
    if (j.contains(key) && !j[key].is_null()) need(j[key].is_number() && j[key].get<double>() >= 0, key, j[key], "a number of at least 0");
  };
  if (j.contains("round")) need(whole_at_most(j["round"], INT_MAX), "round", j["round"], "a whole number of at least 0");
  for (const char* key : {"t_s", "peak_gbps", "idle_ns", "load_gbps", "load_pct"}) at_least_0(key);
  const bool failed = j.contains("error") && j["error"].is_string() && !j["error"].get<std::string>().empty();
  if (!failed) at_least_0("value");  // a failed sample's value means nothing
  if (!j.contains("telemetry") || !j["telemetry"].is_array()) return;
  const json& all = j["telemetry"];
  if (all.size() > kMaxSoakTelemetry)
    throw records::DecodeError(fmt::format("telemetry: {} GPUs, more than the {} a sample may name", all.size(), kMaxSoakTelemetry));
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (!all[i].is_object()) continue;  // the codec names it
    const json& t = all[i];
    const std::string at = fmt::format("telemetry[{}].", i);
    if (t.contains("gpu")) need(whole_at_most(t["gpu"], kMaxSoakGpu), at + "gpu", t["gpu"], fmt::format("a GPU index from 0 to {}", kMaxSoakGpu).c_str());
    for (const char* key : {"sm_clock_mhz", "mem_clock_mhz"})
      if (t.contains(key) && !t[key].is_null()) need(whole_at_most(t[key], UINT_MAX), at + key, t[key], "a whole number of MHz");
    for (const char* key : {"clock_reasons", "ecc_corrected", "ecc_uncorrected", "rows_remapped_correctable",
                            "rows_remapped_uncorrectable", "pcie_replays"})
      if (t.contains(key) && !t[key].is_null())
        need(t[key].is_number_unsigned(), at + key, t[key], "a count (a whole number of at least 0)");
    if (t.contains("xids") && t["xids"].is_array())
      for (const json& x : t["xids"]) need(x.is_number_unsigned(), at + "xids", x, "an XID (a whole number of at least 0)");
  }
}

// One line's record into `sink`; throws DecodeError (or a JSON error).
void add_line(const json& j, bool first, SoakSink& sink) {
  const Fields line(j, "");
  const auto type = line.get<std::string>("type");
  if (first != (type == "header"))
    throw records::DecodeError(first ? fmt::format("the first line is a '{}' line, not the header", type)
                                     : "a second header line");
  if (type == "header") {
    const auto schema = line.get<std::string>("schema");
    if (schema != kSoakSchema) line.bad("schema", fmt::format("'{}', not '{}'", schema, kSoakSchema));
    const json version = j.contains("schema_version") ? j.at("schema_version") : json();
    if (!version.is_number_integer() || version != kSoakSchemaVersion)
      line.bad("schema_version", fmt::format("{}, this xferbench reads version {}", json_text(version), kSoakSchemaVersion));
    sink.header(read<Header>(line, header_fields));
  } else if (type == "sample") {
    check_sample_numbers(j);
    sink.sample(read<Sample>(line, sample_fields));
  } else if (type == "resume") {
    sink.resume(read<Resume>(line, resume_fields).t_s);
  } else if (type == "end") {
    sink.end(read<End>(line, end_fields));
  } else {
    line.bad("type", fmt::format("unknown line type '{}' (header, sample, resume or end)", type));
  }
}

// Lines from `next(line, ended)` into `sink`: the one parser of soak files.
template <class Next>
int read_lines(Next next, const std::string& label, SoakSink& sink) {
  std::string line;
  bool ended = true;
  int number = 0;
  while (next(line, ended)) {
    ++number;
    const std::string where = fmt::format("{}:{}", label, number);
    std::string problem = json_shallow(line) ? "" : json_problem(line);
    json j;
    if (problem.empty()) {
      try {
        j = json::parse(line);
      } catch (const json::exception& e) {
        problem = json_error_text(e);
      }
    }
    if (!problem.empty()) {
      if (!ended && number > 1) return 1;  // a kill cut the last line short
      fail(ErrorKind::usage, fmt::format("{}: not JSON: {}", where, problem));
    }
    try {
      add_line(j, number == 1, sink);
    } catch (const records::DecodeError& e) {
      fail(ErrorKind::usage, fmt::format("{}: {}", where, e.what()));
    } catch (const Error& e) {  // what the sink refuses (soak_data.hpp's limits)
      fail(e.kind(), fmt::format("{}: {}", where, e.what()));
    } catch (const json::exception& e) {
      fail(ErrorKind::usage, fmt::format("{}: {}", where, json_error_text(e)));
    }
  }
  if (number == 0) fail(ErrorKind::usage, fmt::format("{}: empty, not a soak file (no header line)", label));
  return 0;
}

// Keeps every record (SoakFile).
class WholeFile final : public SoakSink {
 public:
  explicit WholeFile(SoakFile& f) : f_(f) {}
  void header(Header h) override { f_.header = std::move(h); }
  void sample(Sample s) override { f_.samples.push_back(std::move(s)); }
  void resume(double t_s) override { f_.resumed_at_s.push_back(t_s); }
  void end(End e) override { f_.end = std::move(e); }

 private:
  SoakFile& f_;
};

}  // namespace

std::string header_line(const Header& h) { return line_of(h, header_fields); }

bool is_soak_text(const std::string& text) {
  const std::string first = text.substr(0, text.find('\n'));
  if (!json_shallow(first)) return false;  // a soak header nests two levels
  const nlohmann::json j = nlohmann::json::parse(first, nullptr, false);
  return j.is_object() && j.value("type", nlohmann::json()) == "header" && j.value("schema", nlohmann::json()) == kSoakSchema;
}
std::string sample_line(const Sample& s) { return line_of(s, sample_fields); }
std::string resume_line(double t_s, const std::string& time_utc) { return line_of(Resume{t_s, time_utc}, resume_fields); }
std::string end_line(const End& e) { return line_of(e, end_fields); }

int read_soak_lines(InputFile& in, SoakSink& sink) {
  return read_lines([&](std::string& line, bool& ended) { return in.next_line(line, ended, kMaxSoakLineBytes); },
                    in.path(), sink);
}

int read_soak_lines(const std::string& path, SoakSink& sink) {
  InputFile in(path, "soak file");
  return read_soak_lines(in, sink);
}

int parse_soak_lines(const std::string& text, const std::string& label, SoakSink& sink) {
  std::size_t pos = 0;
  return read_lines(
      [&](std::string& line, bool& ended) {
        if (pos >= text.size()) return false;
        const std::size_t nl = text.find('\n', pos);
        ended = nl != std::string::npos;
        line = text.substr(pos, ended ? nl - pos : std::string::npos);
        pos = ended ? nl + 1 : text.size();
        return true;
      },
      label, sink);
}

SoakFile parse_soak(const std::string& text, const std::string& label) {
  SoakFile out;
  WholeFile sink(out);
  out.torn_lines = parse_soak_lines(text, label, sink);
  return out;
}

SoakFile read_soak_file(const std::string& path) {
  SoakFile out;
  WholeFile sink(out);
  out.torn_lines = read_soak_lines(path, sink);
  return out;
}

}  // namespace xb::soak
