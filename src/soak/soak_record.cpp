#include "soak/soak_record.hpp"

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

// One line's record into `out`; throws DecodeError (or a JSON error).
void add_line(const json& j, bool first, SoakFile& out) {
  const Fields line(j, "");
  const auto type = line.get<std::string>("type");
  if (first != (type == "header"))
    throw records::DecodeError(first ? fmt::format("the first line is a '{}' line, not the header", type)
                                     : "a second header line");
  if (type == "header") {
    const auto schema = line.get<std::string>("schema");
    if (schema != kSoakSchema) line.bad("schema", fmt::format("'{}', not '{}'", schema, kSoakSchema));
    const int version = line.get<int>("schema_version");
    if (version != kSoakSchemaVersion)
      line.bad("schema_version", fmt::format("{}, this xferbench reads version {}", version, kSoakSchemaVersion));
    out.header = read<Header>(line, header_fields);
  } else if (type == "sample") {
    out.samples.push_back(read<Sample>(line, sample_fields));
  } else if (type == "resume") {
    out.resumed_at_s.push_back(read<Resume>(line, resume_fields).t_s);
  } else if (type == "end") {
    out.end = read<End>(line, end_fields);
  } else {
    line.bad("type", fmt::format("unknown line type '{}' (header, sample, resume or end)", type));
  }
}

}  // namespace

std::string header_line(const Header& h) { return line_of(h, header_fields); }
std::string sample_line(const Sample& s) { return line_of(s, sample_fields); }
std::string resume_line(double t_s, const std::string& time_utc) { return line_of(Resume{t_s, time_utc}, resume_fields); }
std::string end_line(const End& e) { return line_of(e, end_fields); }

SoakFile parse_soak(const std::string& text, const std::string& label) {
  SoakFile out;
  std::size_t pos = 0;
  int number = 0;
  while (pos < text.size()) {
    ++number;
    const std::size_t nl = text.find('\n', pos);
    const bool last_unended = nl == std::string::npos;
    const std::string line = text.substr(pos, last_unended ? std::string::npos : nl - pos);
    pos = last_unended ? text.size() : nl + 1;
    const std::string where = fmt::format("{}:{}", label, number);
    json j;
    try {
      j = json::parse(line);
    } catch (const json::exception& e) {
      if (last_unended && number > 1) {  // a kill cut the last line short
        out.torn_lines = 1;
        break;
      }
      fail(ErrorKind::usage, fmt::format("{}: not JSON: {}", where, json_error_text(e)));
    }
    try {
      add_line(j, number == 1, out);
    } catch (const records::DecodeError& e) {
      fail(ErrorKind::usage, fmt::format("{}: {}", where, e.what()));
    } catch (const json::exception& e) {
      fail(ErrorKind::usage, fmt::format("{}: {}", where, json_error_text(e)));
    }
  }
  if (number == 0) fail(ErrorKind::usage, fmt::format("{}: empty, not a soak file (no header line)", label));
  return out;
}

SoakFile read_soak_file(const std::string& path) {
  return parse_soak(read_input_file(path, "soak file"), path);
}

}  // namespace xb::soak
