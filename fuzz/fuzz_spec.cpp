// libFuzzer target for the `--do` spec grammar: arbitrary bytes go through
// parse_transfer_spec and expand_requests (0 to 4 GPUs, every stream mode).
// xb::Error is the documented way to reject input and is caught; any other
// exception escapes and libFuzzer reports it, and a broken invariant on an
// accepted spec traps, so both count as crashes.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "frontends/spec.hpp"

namespace {

void require(bool ok) {
  if (!ok) __builtin_trap();
}

// What every accepted spec must give: ids in range, bytes, a label, and at
// most one host side (managed memory on the host side has device -1).
void check_scenario(const xb::Scenario& scenario, int device_count) {
  for (const xb::Transfer& t : scenario.transfers) {
    require(t.exec_device >= 0 && t.exec_device < device_count);
    require(t.bytes > 0);
    require(!t.label.empty());
    require(!(t.src.on_host() && t.dst.on_host()));
    for (const xb::Location& loc : {t.src, t.dst}) {
      const bool on_gpu = loc.device >= 0 && loc.device < device_count;
      if (loc.kind == xb::MemKind::device) require(on_gpu);
      if (loc.kind == xb::MemKind::managed) require(on_gpu || loc.device == -1);
      if (loc.on_host()) require(loc.device == -1);
    }
  }
}

void expand(const std::vector<xb::TransferRequest>& requests, int device_count) {
  static const xb::StreamMode modes[] = {xb::StreamMode::per_transfer, xb::StreamMode::per_device,
                                         xb::StreamMode::only_one};
  for (const xb::StreamMode mode : modes) {
    try {
      const xb::Scenario scenario = xb::expand_requests(requests, device_count, mode);
      require(scenario.streams == mode);
      require(!scenario.transfers.empty());
      check_scenario(scenario, device_count);
    } catch (const xb::Error& e) {
      const xb::ErrorKind expected = device_count == 0 ? xb::ErrorKind::no_device : xb::ErrorKind::usage;
      require(e.kind() == expected);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<xb::TransferRequest> requests;
  try {
    requests = xb::parse_transfer_spec(text);
  } catch (const xb::Error& e) {
    require(e.kind() == xb::ErrorKind::usage);
    require(std::string(e.what()).find('\n') == std::string::npos);
    return 0;
  }
  require(!requests.empty());
  for (int device_count = 0; device_count <= 4; ++device_count) expand(requests, device_count);
  try {
    xb::parse_stream_mode(text);
  } catch (const xb::Error& e) {
    require(e.kind() == xb::ErrorKind::usage);
  }
  return 0;
}
