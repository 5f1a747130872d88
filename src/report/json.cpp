#include "cases/cases.hpp"
#include "report/report.hpp"

namespace xb::report {

nlohmann::json cases_json() {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& d : case_catalogue())
    out.push_back({{"index", d.index}, {"name", d.name}, {"engine", to_string(d.engine)}, {"description", d.description},
                   {"name_origin", d.origin}});
  return out;
}

}  // namespace xb::report
