#include "records/topology_file.hpp"

#include <fmt/format.h>

#include "base/error.hpp"
#include "base/input_file.hpp"
#include "records/system_json.hpp"

namespace xb {

System system_from_json(const nlohmann::json& doc, const std::string& name) {
  System sys;
  try {
    sys = records::decode_system(doc.contains("environment") ? doc.at("environment") : doc);
  } catch (const std::exception& e) {
    fail(ErrorKind::usage, fmt::format("topology file '{}' is not a recorded 'xferbench list --format json': {}", name,
                                       e.what()));
  }
  if (sys.gpus.empty()) fail(ErrorKind::usage, fmt::format("topology file '{}' lists no GPU", name));
  return sys;
}

System load_topology_file(const std::string& path) {
  return system_from_json(read_input_json(path, "--topology file"), path);
}

}  // namespace xb
