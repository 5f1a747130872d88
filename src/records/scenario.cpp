#include "records/scenario.hpp"

#include <algorithm>

namespace xb {

bool all_valid(const ScenarioResult& r) {
  return std::none_of(r.transfers.begin(), r.transfers.end(), [](const TransferResult& t) {
    return t.verification.status == Verification::Status::failed || !t.invalid_reason.empty();
  });
}

}  // namespace xb
