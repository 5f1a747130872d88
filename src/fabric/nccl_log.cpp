#include "fabric/nccl_log.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include <fmt/format.h>

namespace xb::fabric {

NcclLog::~NcclLog() {
  if (file_.empty()) return;
  std::error_code ec;
  std::filesystem::remove(file_, ec);
}

void NcclLog::enable() {
  if (std::getenv("NCCL_DEBUG") != nullptr || std::getenv("NCCL_DEBUG_FILE") != nullptr) {
    why_not_ = "NCCL_DEBUG or NCCL_DEBUG_FILE is set by the user, so xferbench does not read NCCL's log";
    return;
  }
  std::error_code ec;
  std::filesystem::path dir = std::filesystem::temp_directory_path(ec);
  if (ec) dir = "/tmp";
  file_ = (dir / fmt::format("xferbench-nccl-{}.log", static_cast<long>(getpid()))).string();
  setenv("NCCL_DEBUG", "INFO", 1);
  setenv("NCCL_DEBUG_SUBSYS", "INIT", 0);
  setenv("NCCL_DEBUG_FILE", file_.c_str(), 1);
}

std::uint64_t NcclLog::mark() const {
  if (file_.empty()) return 0;
  std::error_code ec;
  const auto size = std::filesystem::file_size(file_, ec);
  return ec ? 0 : static_cast<std::uint64_t>(size);
}

std::string NcclLog::path_since(std::uint64_t mark) const {
  if (file_.empty()) return why_not_;
  std::ifstream in(file_, std::ios::binary);
  if (!in) return "NCCL's log " + file_ + " could not be read";
  in.seekg(static_cast<std::streamoff>(mark));
  std::stringstream text;
  text << in.rdbuf();
  const std::string found = channels_in(text.str());
  return found.empty() ? "NCCL's log names no channel for this pair" : found;
}

std::string NcclLog::channels_in(const std::string& log_text) {
  std::vector<std::string> seen;
  std::istringstream lines(log_text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.find("Channel") == std::string::npos || line.find("->") == std::string::npos) continue;
    if (line.find("[receive]") != std::string::npos) continue;  // the sender's line names the same path
    const auto via = line.find(" via ");
    if (via == std::string::npos) continue;
    std::string path = line.substr(via + 5);
    while (!path.empty() && (path.back() == ' ' || path.back() == '\r')) path.pop_back();
    if (path.empty()) continue;
    bool known = false;
    for (const auto& s : seen) known = known || s == path;
    if (!known) seen.push_back(path);
  }
  std::string out;
  for (const auto& s : seen) out += (out.empty() ? "NCCL " : ", ") + s;
  return out;
}

}  // namespace xb::fabric
