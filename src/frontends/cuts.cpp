#include "frontends/cuts.hpp"

#include <limits>

#include <fmt/format.h>

#include "base/error.hpp"
#include "base/units.hpp"

namespace xb {
namespace {

TransferRequest host_request(Direction direction, int device, const char* flag, const CutsOptions& options) {
  if (device < 0) {
    fail(ErrorKind::usage, fmt::format("invalid {} '{}': expected a GPU id such as 0", flag, device));
  }
  TransferRequest req;
  req.device = device;
  req.direction = direction;
  req.bytes = options.size;
  req.memory = MemKind::pinned;
  req.numa = options.no_numa_affinity ? kNoNumaPlacement : kGpuNumaNode;
  req.spec = fmt::format("{}={}", flag, device);
  return req;
}

TransferRequest peer_request(int dst, int src, const CutsOptions& options) {
  const std::string text = fmt::format("{},{}", dst, src);
  if (dst < 0 || src < 0) {
    fail(ErrorKind::usage, fmt::format("invalid --dtod '{}': expected DST,SRC such as 1,0", text));
  }
  if (dst == src) {
    fail(ErrorKind::usage,
         fmt::format("invalid --dtod '{}': destination and source are the same GPU", text));
  }
  TransferRequest req;
  req.device = src;
  req.peer = dst;
  req.direction = Direction::dtod;
  req.issuer = Issuer::src;  // CUts issues the copy on the source GPU's stream
  req.bytes = options.size;
  req.memory = MemKind::device;
  req.spec = "--dtod=" + text;
  return req;
}

}  // namespace

std::vector<TransferRequest> cuts_to_requests(const CutsOptions& options) {
  if (options.size == 0) fail(ErrorKind::usage, "invalid --size '0': expected at least 1 byte");
  if (options.iterations < 1) {
    fail(ErrorKind::usage, fmt::format("invalid --iter '{}': expected at least 1", options.iterations));
  }
  if (options.htod.empty() && options.dtoh.empty() && options.dtod.empty()) {
    fail(ErrorKind::usage, "no cuts transfer given (use --htod=ID, --dtoh=ID or --dtod=DST,SRC)");
  }
  std::vector<Direction> order = options.order;
  if (order.empty()) {
    order.insert(order.end(), options.htod.size(), Direction::htod);
    order.insert(order.end(), options.dtoh.size(), Direction::dtoh);
    order.insert(order.end(), options.dtod.size(), Direction::dtod);
  }
  std::size_t next_htod = 0, next_dtoh = 0, next_dtod = 0;
  std::vector<TransferRequest> requests;
  for (const Direction kind : order) {
    if (kind == Direction::htod && next_htod < options.htod.size()) {
      requests.push_back(host_request(Direction::htod, options.htod[next_htod++], "--htod", options));
    } else if (kind == Direction::dtoh && next_dtoh < options.dtoh.size()) {
      requests.push_back(host_request(Direction::dtoh, options.dtoh[next_dtoh++], "--dtoh", options));
    } else if (kind == Direction::dtod && next_dtod < options.dtod.size()) {
      const auto& [dst, src] = options.dtod[next_dtod++];
      requests.push_back(peer_request(dst, src, options));
    } else {
      fail(ErrorKind::internal, "cuts flag order does not match the --htod/--dtoh/--dtod lists");
    }
  }
  if (requests.size() != options.htod.size() + options.dtoh.size() + options.dtod.size()) {
    fail(ErrorKind::internal, "cuts flag order does not match the --htod/--dtoh/--dtod lists");
  }
  return requests;
}

std::pair<int, int> parse_cuts_pair(const std::string& text) {
  const std::string expected = fmt::format("invalid --dtod '{}': expected DST,SRC such as 1,0", text);
  const std::size_t comma = text.find(',');
  if (comma == std::string::npos || text.find(',', comma + 1) != std::string::npos) {
    fail(ErrorKind::usage, expected);
  }
  std::int64_t ids[2] = {0, 0};
  try {
    ids[0] = parse_int(text.substr(0, comma), "--dtod");
    ids[1] = parse_int(text.substr(comma + 1), "--dtod");
  } catch (const Error&) {
    fail(ErrorKind::usage, expected);
  }
  for (const std::int64_t id : ids) {
    if (id > std::numeric_limits<int>::max()) {
      fail(ErrorKind::usage, fmt::format("invalid --dtod '{}': GPU id {} is too large", text, id));
    }
  }
  return {static_cast<int>(ids[0]), static_cast<int>(ids[1])};
}

}  // namespace xb
