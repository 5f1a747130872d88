// --resume for sweeps: read the rows of an earlier sweep JSON back and merge
// them with the sizes measured now (sweep.hpp).
#include <algorithm>

#include <fmt/format.h>

#include "base/error.hpp"
#include "cases/resume.hpp"
#include "cases/sweep.hpp"

namespace xb {
namespace {

using json = nlohmann::json;

Verification::Status check_status(const std::string& s) {
  if (s == "passed") return Verification::Status::passed;
  if (s == "failed") return Verification::Status::failed;
  return Verification::Status::skipped;
}

SweepRow row_from_json(const json& j) {
  SweepRow r;
  r.bytes = j.at("bytes").get<std::uint64_t>();
  r.seconds_per_copy = j.at("time_per_copy_s").get<double>();
  r.value_gbps = j.at("value_gbps").get<double>();
  r.stats = summary_from_json(j.at("stats"), "gbps", j.value("samples", 0));
  r.samples_gbps = j.at("samples_gbps").get<std::vector<double>>();
  r.copies_per_sample = j.value("copies_per_sample", 0);
  r.efficiency = j.value("efficiency", json()).is_number() ? j["efficiency"].get<double>() : 0.0;
  r.verification = check_status(j.at("verification").value("status", "skipped"));
  r.invalid = j.value("invalid", false);
  return r;
}

}  // namespace

SweepResult sweep_from_json(const json& doc, const std::string& name) {
  SweepResult r;
  r.resumed_from = name;
  try {
    const std::string status = doc.value("status", "passed");
    r.status = status == "failed" ? SweepStatus::failed : status == "waived" ? SweepStatus::waived : SweepStatus::passed;
    r.messages = doc.value("messages", std::vector<std::string>{});
    for (const json& sj : doc.at("series")) {
      SweepSeries s;
      s.label = sj.at("label").get<std::string>();
      s.link = sj.value("link", "");
      s.peak = peak_from_json(sj.value("peak", json()));
      for (const json& row : sj.at("rows")) s.rows.push_back(row_from_json(row));
      r.series.push_back(std::move(s));
    }
  } catch (const json::exception& e) {
    fail(ErrorKind::usage, fmt::format("{} is a malformed xferbench-sweep result: {}", name, e.what()));
  }
  return r;
}

void merge_sweep(SweepResult& fresh, const SweepResult& old) {
  for (const SweepSeries& os : old.series) {
    auto it = std::find_if(fresh.series.begin(), fresh.series.end(), [&](const SweepSeries& s) { return s.label == os.label; });
    if (it == fresh.series.end()) {
      fresh.series.push_back(SweepSeries{os.label, os.link, os.peak, {}, {}});
      it = fresh.series.end() - 1;
    }
    for (const SweepRow& row : os.rows) {
      const bool have = std::any_of(it->rows.begin(), it->rows.end(), [&](const SweepRow& r) { return r.bytes == row.bytes; });
      if (!have) it->rows.push_back(row);
    }
    std::sort(it->rows.begin(), it->rows.end(), [](const SweepRow& a, const SweepRow& b) { return a.bytes < b.bytes; });
  }
  std::vector<std::string> messages = old.messages;
  messages.insert(messages.end(), fresh.messages.begin(), fresh.messages.end());
  fresh.messages = std::move(messages);
  if (old.status == SweepStatus::failed && fresh.status == SweepStatus::passed) fresh.status = SweepStatus::failed;
  fresh.resumed_from = old.resumed_from;
}

}  // namespace xb
