// How the record codecs are written: each record's fields are described
// once, as a function over an `io`; run with a Writer it builds the JSON
// object, run with a Reader it fills the record from one, so the two
// directions cannot drift apart. Also the parts several documents share
// (tool, stop section, statistics, peaks, measurement settings).
//
// A Reader throws DecodeError "PATH: PROBLEM" ("cases[2].matrices[0].cells:
// missing"); each record's decode_X() turns it into Error(usage) naming
// the document. Fields added over time may be absent, and null reads as
// absent: the record keeps its default.
#pragma once

#include <initializer_list>
#include <stdexcept>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/error.hpp"
#include "base/input_file.hpp"
#include "base/stats.hpp"
#include "records/measure_options.hpp"
#include "records/result.hpp"
#include "base/stop.hpp"
#include "machine/topology.hpp"

namespace xb {

// A peak as {"gbps", "formula", "source"}, or null for an unknown one.
void to_json(nlohmann::json& j, const Peak& p);
void from_json(const nlohmann::json& j, Peak& p);

}  // namespace xb

namespace xb::records {

struct DecodeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// One JSON object of a document and its path in it, for error messages.
class Fields {
 public:
  Fields(const nlohmann::json& j, std::string path);
  bool has(const std::string& key) const;  // present and not null
  template <class T>
  T get(const std::string& key) const {
    if (!has(key)) bad(key, "missing");
    return as<T>(key);
  }
  template <class T>
  T get(const std::string& key, T absent) const {
    return has(key) ? as<T>(key) : absent;
  }
  // An enum written with to_string(); `absent` when the field is.
  template <class E>
  E get(const std::string& key, std::initializer_list<E> values, E absent) const {
    if (!has(key)) return absent;
    const std::string s = get<std::string>(key);
    for (E e : values)
      if (s == to_string(e)) return e;
    bad(key, fmt::format("unknown value '{}'", s));
  }
  Fields object(const std::string& key) const;
  std::vector<Fields> items(const std::string& key) const;  // the objects of an array
  [[noreturn]] void bad(const std::string& key, const std::string& problem) const;

 private:
  template <class T>
  T as(const std::string& key) const {
    try {
      return j_.at(key).get<T>();
    } catch (const nlohmann::json::exception& e) {
      bad(key, json_error_text(e));
    }
  }
  std::string path_of(const std::string& key) const;
  const nlohmann::json& j_;
  std::string path_;
};

// The two sides of a description `f(io, record)`:
//   io(key, v)                    a field (v keeps its default when absent)
//   io.need(key, v)               one a reader cannot do without
//   io.when(cond, key, v)         written only when cond holds
//   io.null_unless(cond, key, v)  written as null unless cond holds
//   io.choice(key, v, {all})      an enum, as its to_string() text
//   io.object(key, r, f)          a nested record r, described by f(io, r)
//   io.list(key, v, f)            a list of them
//   io.need_object, io.need_list  the same, required
//   io.object_or_null(cond, key, r, f)  written as null unless cond holds
//   io.optional_object(key, opt, f)     a std::optional record, left out when empty
//   io.text(key, value)           written only: fixed text or a value derived from others
//   io.check(ok, key, problem)    read only: a value the reader refuses
class Writer {
 public:
  static constexpr bool reading = false;
  template <class R, class F>
  static nlohmann::json of(const R& r, F f) {
    Writer w;
    f(w, r);
    return std::move(w.j_);
  }
  template <class T>
  void operator()(const std::string& key, const T& v) { j_[key] = v; }
  template <class T>
  void need(const std::string& key, const T& v) { j_[key] = v; }
  template <class T>
  void when(bool write, const std::string& key, const T& v) {
    if (write) j_[key] = v;
  }
  template <class T>
  void null_unless(bool known, const std::string& key, const T& v) {
    j_[key] = known ? nlohmann::json(v) : nlohmann::json(nullptr);
  }
  template <class E>
  void choice(const std::string& key, E v, std::initializer_list<E>) { j_[key] = to_string(v); }
  template <class R, class F>
  void object(const std::string& key, const R& r, F f) { j_[key] = of(r, f); }
  template <class R, class F>
  void need_object(const std::string& key, const R& r, F f) { j_[key] = of(r, f); }
  template <class R, class F>
  void object_or_null(bool present, const std::string& key, const R& r, F f) {
    j_[key] = present ? of(r, f) : nlohmann::json(nullptr);
  }
  template <class R, class F>
  void optional_object(const std::string& key, const std::optional<R>& r, F f) {
    if (r) j_[key] = of(*r, f);
  }
  template <class R, class F>
  void list(const std::string& key, const std::vector<R>& v, F f) {
    nlohmann::json a = nlohmann::json::array();
    for (const R& r : v) a.push_back(of(r, f));
    j_[key] = std::move(a);
  }
  template <class R, class F>
  void need_list(const std::string& key, const std::vector<R>& v, F f) { list(key, v, f); }
  void text(const std::string& key, nlohmann::json v) { j_[key] = std::move(v); }
  void check(bool, const std::string&, const std::string&) const {}

 private:
  nlohmann::json j_ = nlohmann::json::object();
};

class Reader {
 public:
  static constexpr bool reading = true;
  template <class R, class F>
  static void into(const Fields& from, R& r, F f) {
    Reader in(from);
    f(in, r);
  }
  template <class T>
  void operator()(const std::string& key, T& v) { v = f_.get(key, v); }
  template <class T>
  void need(const std::string& key, T& v) { v = f_.get<T>(key); }
  template <class T>
  void when(bool, const std::string& key, T& v) { v = f_.get(key, v); }
  template <class T>
  void null_unless(bool, const std::string& key, T& v) { v = f_.get(key, v); }
  template <class E>
  void choice(const std::string& key, E& v, std::initializer_list<E> all) { v = f_.get(key, all, v); }
  template <class R, class F>
  void object(const std::string& key, R& r, F f) {
    if (f_.has(key)) into(f_.object(key), r, f);
  }
  template <class R, class F>
  void need_object(const std::string& key, R& r, F f) { into(f_.object(key), r, f); }
  template <class R, class F>
  void object_or_null(bool, const std::string& key, R& r, F f) { object(key, r, f); }
  template <class R, class F>
  void optional_object(const std::string& key, std::optional<R>& r, F f) {
    if (f_.has(key)) into(f_.object(key), r.emplace(), f);
  }
  template <class R, class F>
  void list(const std::string& key, std::vector<R>& v, F f) {
    if (f_.has(key)) need_list(key, v, f);
  }
  template <class R, class F>
  void need_list(const std::string& key, std::vector<R>& v, F f) {
    for (const Fields& x : f_.items(key)) into(x, v.emplace_back(), f);
  }
  void text(const std::string&, const nlohmann::json&) const {}
  void check(bool ok, const std::string& key, const std::string& problem) const {
    if (!ok) f_.bad(key, problem);
  }
  // The object being read, for a field whose key depends on another.
  const Fields& fields() const { return f_; }

 private:
  explicit Reader(const Fields& f) : f_(f) {}
  Fields f_;
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
    fail(ErrorKind::usage, fmt::format("{} is a malformed {} result: {}", name, schema, json_error_text(e)));
  }
}

// {"name", "version", "git"} of this build, in every result.
nlohmann::json tool_json();

// The "stop" section of every command's result: the time limit, and for
// an incomplete result its reason, message and not_run.
nlohmann::json completion_json(const Completion& c);
// Reads the "stop" section of `doc` into `c`, with the status it implies
// (interrupted or partial, from `doc`'s "status"); `c` stays complete
// when the section names no reason.
void decode_completion(const Fields& doc, Completion& c);

// {"median_UNIT", "mean_UNIT", "min_UNIT", "max_UNIT", "p50_UNIT",
// "p95_UNIT", "p99_UNIT", "stddev_UNIT", "cov"} (the count is the record's
// own "samples"). p50 is the median, written twice so that the
// percentiles read as one set; a reader takes the median's.
template <class Io, class S>
void stats_fields(Io& io, S& s, const std::string& unit) {
  io("median_" + unit, s.median);
  io("mean_" + unit, s.mean);
  io("min_" + unit, s.min);
  io("max_" + unit, s.max);
  io.text("p50_" + unit, s.median);
  io("p95_" + unit, s.p95);
  io("p99_" + unit, s.p99);
  io("stddev_" + unit, s.stddev);
  io("cov", s.cov);
}

// Files written before the percentiles lack p95 and p99; a
// reader takes them from the record's samples, where it kept them. Call
// after both were read.
template <class Io, class S>
void percentiles_from_samples(Io&, S& s, const std::vector<double>& samples) {
  if constexpr (Io::reading) {
    if (s.p99 != 0 || samples.empty()) return;
    s.p95 = percentile(samples, 0.95);
    s.p99 = percentile(samples, 0.99);
  }
}

// {"status"} of a data check.
inline constexpr auto check_fields = [](auto& io, auto& status) {
  using S = Verification::Status;
  io.choice("status", status, {S::passed, S::failed, S::skipped});
};

// The measurement settings run, sweep and SM sweep documents share.
inline constexpr auto measure_fields = [](auto& io, auto& m) {
  io("copies_per_sample", m.copies_per_sample);
  io("target_sample_seconds", m.target_sample_s);
  io("min_samples", m.min_samples);
  io("max_samples", m.max_samples);
  io("target_relative_error", m.target_rel_error);
  io("budget_seconds_per_cell", m.budget_s);
  io("verify", m.verify);
  io("numa_affinity", m.numa_affinity);
};

}  // namespace xb::records
