// What the nvbandwidth text and JSON reporters share: matrix aggregates,
// nvbandwidth's matrix descriptions and keys, its PCI address and version.
#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "cases/cases.hpp"
#include "report/nvbandwidth.hpp"

namespace xb::report {
namespace {

// nvbandwidth's arrow between the row and the column for each pattern.
const char* arrow(Pattern p) {
  switch (p) {
    case Pattern::host_to_device: case Pattern::host_to_all: case Pattern::d2d_read:
    case Pattern::all_to_one_read: case Pattern::one_to_all_write:
      return "->";
    case Pattern::device_to_host: case Pattern::all_to_host: case Pattern::d2d_write:
    case Pattern::all_to_one_write: case Pattern::one_to_all_read:
      return "<-";
    default:
      return "<->";
  }
}

constexpr int kNvbandwidthCatalogue = 35;  // nvbandwidth v0.8's cases: indices 0-34

std::string capitalized(std::string s) {
  if (!s.empty()) s[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(s[0])));
  return s;
}

}  // namespace

const CaseDef* nvb_case_def(const std::string& name) {
  for (const CaseDef& d : case_catalogue())
    if (d.name == name) return &d;
  return nullptr;
}

NvbMatrixStats nvb_matrix_stats(const Matrix& m) {
  NvbMatrixStats s;
  for (const Cell& c : m.cells) {
    if (!(c.value > 0)) continue;  // nvbandwidth counts only positive cells
    s.min = s.count == 0 ? c.value : std::min(s.min, c.value);
    s.max = s.count == 0 ? c.value : std::max(s.max, c.value);
    s.sum += c.value;
    ++s.count;
    if (c.stats.count >= 2) {
      s.cov = std::max(s.cov, c.stats.cov);
      s.has_cov = true;
    }
  }
  if (s.count > 0) s.average = s.sum / s.count;
  return s;
}

std::string nvb_description(const CaseResult& c, std::size_t index) {
  if (index >= c.matrices.size()) return "";
  // nvbandwidth's own header for its 35 cases; xferbench's title for the
  // cases it adds (indices 35 and up), which nvbandwidth never printed.
  const CaseDef* def = nvb_case_def(c.name);
  if (!def || def->index >= kNvbandwidthCatalogue) return c.matrices[index].title;
  const std::string engine = def->engine == Engine::sm ? "SM" : "CE";
  switch (def->pattern) {
    case Pattern::host_device_latency: return "memory latency SM CPU(row) <-> GPU(column) (ns)";
    case Pattern::d2d_latency: return "Device to Device Latency SM GPU(row) <-> GPU(column) (ns)";
    case Pattern::local_copy: return "memcpy local GPU(column) bandwidth (GB/s)";
    case Pattern::d2d_bidir_read: case Pattern::d2d_bidir_write:
      return fmt::format("memcpy {} GPU(row) <-> GPU(column) {} bandwidth (GB/s)", engine,
                         capitalized(c.matrices[index].name));
    default:
      return fmt::format("memcpy {} {}(row) {} GPU(column) bandwidth (GB/s)", engine,
                         is_host_copy(def->pattern) ? "CPU" : "GPU", arrow(def->pattern));
  }
}

std::string nvb_key(const CaseResult& c, std::size_t index) {
  if (index >= c.matrices.size() || c.matrices[index].name.empty()) return c.name;
  return c.name + "_" + c.matrices[index].name;
}

std::string nvb_pci_address(const std::string& bus_id) {
  // "DOMAIN:BUS:DEVICE.FUNCTION"; nvbandwidth prints the domain with eight
  // hex digits and leaves the function out.
  const auto first = bus_id.find(':');
  const auto second = first == std::string::npos ? std::string::npos : bus_id.find(':', first + 1);
  if (second == std::string::npos) return bus_id;
  std::string domain = bus_id.substr(0, first);
  if (domain.size() < 8) domain.insert(0, 8 - domain.size(), '0');
  std::string rest = bus_id.substr(first + 1);
  const auto dot = rest.find('.');
  if (dot != std::string::npos) rest.resize(dot);
  for (char& ch : domain) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  for (char& ch : rest) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return domain + ":" + rest;
}

std::string nvb_version_text() { return fmt::format("xferbench {} (nvbandwidth v0.10 output)", XFERBENCH_VERSION); }

}  // namespace xb::report
