// What every result document's codec shares: a reader that names the field
// it fails on, and the parts several documents hold (tool, stop section,
// statistics, peaks, measurement settings, and the identity --resume checks).
//
// Decoders throw DecodeError "PATH: PROBLEM" ("cases[2].matrices[0].cells:
// missing"); each record's decode_X() turns it into Error(usage) naming the
// document. Fields added to a document over time may be absent, and null
// reads as absent.
#pragma once

#include <initializer_list>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/measure.hpp"
#include "core/result.hpp"
#include "core/stats.hpp"
#include "core/stop.hpp"
#include "core/topology.hpp"

namespace xb::records {

struct DecodeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A JSON library error without its "[json.exception...]" tag.
std::string problem_of(const nlohmann::json::exception& e);

// One JSON object of a document and its path in it, for error messages.
class Fields {
 public:
  Fields(const nlohmann::json& j, std::string path);
  bool has(const char* key) const;  // present and not null
  template <class T>
  T get(const char* key) const {
    if (!has(key)) bad(key, "missing");
    return as<T>(key);
  }
  template <class T>
  T get(const char* key, T absent) const {
    return has(key) ? as<T>(key) : absent;
  }
  // An enum written with to_string(); `absent` when the field is.
  template <class E>
  E get(const char* key, std::initializer_list<E> values, E absent) const {
    if (!has(key)) return absent;
    const std::string s = get<std::string>(key);
    for (E e : values)
      if (s == to_string(e)) return e;
    bad(key, fmt::format("unknown value '{}'", s));
  }
  Fields object(const char* key) const;
  // The objects of an array field.
  std::vector<Fields> items(const char* key) const;
  [[noreturn]] void bad(const char* key, const std::string& problem) const;
  std::string path(const char* key) const;

 private:
  template <class T>
  T as(const char* key) const {
    try {
      return j_.at(key).get<T>();
    } catch (const nlohmann::json::exception& e) {
      bad(key, problem_of(e));
    }
  }
  const nlohmann::json& j_;
  std::string path_;
};

// Runs `decode`, turning a DecodeError (or any JSON error) into
// Error(usage) "NAME is a malformed SCHEMA result: ...".
template <class F>
auto decode_document(const std::string& name, const char* schema, F decode) {
  try {
    return decode();
  } catch (const DecodeError& e) {
    fail(ErrorKind::usage, fmt::format("{} is a malformed {} result: {}", name, schema, e.what()));
  } catch (const nlohmann::json::exception& e) {
    fail(ErrorKind::usage, fmt::format("{} is a malformed {} result: {}", name, schema, problem_of(e)));
  }
}

// {"name", "version", "git"} of this build, in every result.
nlohmann::json tool_json();

// The time limit, and for an incomplete result its reason, message and
// not_run: the "stop" section of every command's result.
nlohmann::json stop_section_json(RunStatus status, StopReason stop, const std::string& message,
                                 const std::vector<std::string>& not_run, double time_limit_s);
// The "stop" section of `doc`, and the status it implies (interrupted or
// partial, from `doc`'s "status"): false for a complete result.
bool decode_stop(const Fields& doc, RunStatus& status, StopReason& reason, std::string& message, double& time_limit_s);

// {"gbps", "formula", "source"}, or null for an unknown peak.
nlohmann::json peak_json(const Peak& p);
Peak decode_peak(const Fields& f, const char* key);

// {"median_UNIT", "mean_UNIT", "min_UNIT", "max_UNIT", "stddev_UNIT", "cov"}.
nlohmann::json stats_json(const Summary& s, const std::string& unit);
Summary decode_stats(const Fields& f, const std::string& unit, int count);

Verification::Status decode_check(const Fields& f);  // {"verification": {"status"}}

// The measurement settings run, sweep and SM sweep documents share.
nlohmann::json measure_json(const MeasureOptions& m, const std::string& statistic);
void decode_measure(const Fields& settings, MeasureOptions& m, std::string& statistic);

// What must be equal for a result to be resumed: machine, build, command line.
struct GpuIdentity {
  int index = 0;
  std::string name, uuid, bus_id;  // uuid "" when the result predates it
  std::string text() const;        // "gpu0 NVIDIA H200 GPU-1234... 00000000:18:00.0"
};
struct RunIdentity {
  std::string hostname;
  std::vector<GpuIdentity> gpus;
  std::string version;            // xferbench version
  std::string git;                // commit the binary was built from ("" = unknown)
  std::vector<std::string> args;  // the command line (resume compares comparable_args of it)
};
// The identity recorded in a run, sweep or scenario document.
RunIdentity decode_identity(const nlohmann::json& doc);
// The identity fields of one of its "gpus" (also read by decode_system).
GpuIdentity decode_gpu_identity(const Fields& gpu);

}  // namespace xb::records
