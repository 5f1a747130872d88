// The check verdict (records/check_verdict.hpp) as the "check" section of
// check's result document (a run document, records/run_json.hpp, with that
// section and the check's own "status"), in both directions.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "records/check_verdict.hpp"

namespace xb::records {

// The section's key in the run document.
inline constexpr const char* kCheckSectionKey = "check";

nlohmann::json check_verdict_json(const CheckVerdict& v);
// Error(usage) "NAME is a malformed xferbench-run result: check.FIELD:
// PROBLEM" for a section that is not one (an unknown verdict word
// included). The section's "soak" part is not read: a soaked check is
// one node's (docs/soak.md), never a fleet's.
CheckVerdict decode_check_verdict(const nlohmann::json& section, const std::string& name);

}  // namespace xb::records
