#include "frontends/spec.hpp"

#include <algorithm>
#include <cctype>
#include <limits>
#include <map>
#include <optional>
#include <sstream>

#include <fmt/format.h>

#include "base/error.hpp"
#include "base/names.hpp"
#include "base/units.hpp"

namespace xb {
namespace {

constexpr const char* kDirectionList = "HtoD, DtoH, both, reverse, DtoD";
constexpr const char* kOptionList =
    "mapped, wc, pinned, pageable, managed, hugepages, numa=N, engine=ce|sm, peer=N, issuer=src|dst";
constexpr const char* kSpecShape = "<device>[:<direction>][:<size>][:<options>], e.g. 0:HtoD:64M";

std::string lower(std::string text) {
  for (auto& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

bool starts_with_digit(const std::string& text) {
  return !text.empty() && std::isdigit(static_cast<unsigned char>(text[0]));
}

// Keeps empty parts: "a::b" -> {"a", "", "b"}, so empty fields are reported.
std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t pos = text.find(sep, start);
    parts.push_back(text.substr(start, pos == std::string::npos ? std::string::npos : pos - start));
    if (pos == std::string::npos) return parts;
    start = pos + 1;
  }
}

std::vector<std::string> split_whitespace(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> words;
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

constexpr Named<Direction> kDirections[] = {{Direction::htod, "HtoD"},
                                            {Direction::dtoh, "DtoH"},
                                            {Direction::both, "both"},
                                            {Direction::reverse, "reverse"},
                                            {Direction::dtod, "DtoD"}};

// Directions are spelled in any case.
std::optional<Direction> direction_from(const std::string& word) {
  for (const auto& [d, name] : kDirections)
    if (lower(name) == lower(word)) return d;
  return std::nullopt;
}

// "HtoX" or "HostToDevice" was meant as a direction, so the error should say
// "unknown direction" rather than "unknown memory option".
bool looks_like_direction(const std::string& word) {
  const std::size_t to = lower(word).find("to");
  if (to == 0 || to == std::string::npos || to + 2 >= word.size()) return false;
  return std::all_of(word.begin(), word.end(),
                     [](char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; });
}

constexpr Named<MemKind> kMemKinds[] = {{MemKind::pinned, "pinned"},     {MemKind::mapped, "mapped"},
                                        {MemKind::write_combined, "wc"}, {MemKind::pageable, "pageable"},
                                        {MemKind::managed, "managed"},   {MemKind::hugepages, "hugepages"}};

std::optional<MemKind> memory_from(const std::string& word) { return lookup_value(kMemKinds, lower(word)); }

// Parses one spec. Remembers the text that set each field, so repeats and
// conflicts are reported with both spellings.
class SpecParser {
 public:
  explicit SpecParser(const std::string& spec) : spec_(spec) { req_.spec = spec; }
  TransferRequest parse();

 private:
  [[noreturn]] void reject(const std::string& why) const {
    fail(ErrorKind::usage, fmt::format("invalid transfer spec '{}': {}", spec_, why));
  }
  int parse_id(const std::string& text, const char* what) const;
  void parse_device(const std::string& field);
  void parse_field(const std::string& field);
  void parse_size_field(const std::string& field);
  void parse_item(const std::string& item, const std::string& field);
  void parse_memory(const std::string& item, MemKind kind);
  void parse_setting(const std::string& item);
  void check_dtod();
  void check();

  const std::string& spec_;
  TransferRequest req_;
  std::string direction_text_;
  std::string size_text_;
  std::string memory_text_;
  std::map<std::string, std::string> settings_;  // key -> "key=value" as typed
};

TransferRequest SpecParser::parse() {
  const std::vector<std::string> fields = split(spec_, ':');
  parse_device(fields[0]);
  for (std::size_t i = 1; i < fields.size(); ++i) parse_field(fields[i]);
  check();
  return req_;
}

int SpecParser::parse_id(const std::string& text, const char* what) const {
  std::int64_t value = 0;
  try {
    value = parse_int(text, what);
  } catch (const Error& e) {
    reject(e.what());
  }
  if (value > std::numeric_limits<int>::max()) reject(fmt::format("{} '{}' is too large", what, text));
  return static_cast<int>(value);
}

void SpecParser::parse_device(const std::string& field) {
  if (field.empty()) reject(fmt::format("missing device (expected {})", kSpecShape));
  if (lower(field) == "all") {
    req_.all_devices = true;
    return;
  }
  if (!starts_with_digit(field)) {
    reject(fmt::format("invalid device '{}' (expected a GPU id such as 0, or all)", field));
  }
  req_.device = parse_id(field, "device");
}

void SpecParser::parse_field(const std::string& field) {
  if (field.empty()) reject("empty field (two ':' in a row or a trailing ':')");
  if (const auto direction = direction_from(field)) {
    if (!direction_text_.empty()) {
      reject(fmt::format("direction given twice ('{}' and '{}')", direction_text_, field));
    }
    direction_text_ = field;
    req_.direction = *direction;
    return;
  }
  if (starts_with_digit(field)) {
    parse_size_field(field);
    return;
  }
  for (const std::string& item : split(field, ',')) parse_item(item, field);
}

void SpecParser::parse_size_field(const std::string& field) {
  if (!size_text_.empty()) reject(fmt::format("size given twice ('{}' and '{}')", size_text_, field));
  size_text_ = field;
  try {
    req_.bytes = parse_size(field, "size");
  } catch (const Error& e) {
    reject(e.what());
  }
  if (req_.bytes == 0) reject(fmt::format("size '{}' is zero (need at least 1 byte)", field));
}

void SpecParser::parse_item(const std::string& item, const std::string& field) {
  if (item.empty()) reject(fmt::format("empty item in options '{}'", field));
  if (item.find('=') != std::string::npos) {
    parse_setting(item);
    return;
  }
  if (const auto kind = memory_from(item)) {
    parse_memory(item, *kind);
    return;
  }
  if (direction_from(item)) reject(fmt::format("direction '{}' needs its own ':' field", item));
  if (starts_with_digit(item)) reject(fmt::format("size '{}' needs its own ':' field", item));
  if (looks_like_direction(item)) {
    reject(fmt::format("unknown direction '{}' (expected {})", item, kDirectionList));
  }
  reject(fmt::format("unknown memory option '{}' (expected {})", item, kOptionList));
}

void SpecParser::parse_memory(const std::string& item, MemKind kind) {
  if (!memory_text_.empty()) {
    if (lower(memory_text_) == lower(item)) reject(fmt::format("memory option '{}' given twice", item));
    reject(fmt::format("memory options '{}' and '{}' exclude each other (one memory kind per transfer)",
                       memory_text_, item));
  }
  memory_text_ = item;
  req_.memory = kind;
}

void SpecParser::parse_setting(const std::string& item) {
  const std::size_t eq = item.find('=');
  const std::string key = lower(item.substr(0, eq));
  const std::string value = item.substr(eq + 1);
  const auto seen = settings_.find(key);
  if (seen != settings_.end()) reject(fmt::format("'{}' given twice ('{}' and '{}')", key, seen->second, item));
  if (key == "numa") {
    req_.numa = parse_id(value, "numa node");
  } else if (key == "peer") {
    req_.peer = parse_id(value, "peer");
  } else if (key == "engine") {
    const std::string v = lower(value);
    if (v != "ce" && v != "sm") reject(fmt::format("unknown engine '{}' (expected ce or sm)", value));
    req_.engine = v == "sm" ? Engine::sm : Engine::copy_engine;
  } else if (key == "issuer") {
    const std::string v = lower(value);
    if (v != "src" && v != "dst") reject(fmt::format("unknown issuer '{}' (expected src or dst)", value));
    req_.issuer = v == "dst" ? Issuer::dst : Issuer::src;
  } else {
    reject(fmt::format("unknown setting '{}' (expected numa=N, engine=ce|sm, peer=N, issuer=src|dst)", item));
  }
  settings_.emplace(key, item);
}

void SpecParser::check_dtod() {
  if (req_.all_devices) reject("DtoD needs one source GPU, not 'all'");
  if (settings_.count("peer") == 0) reject("DtoD needs peer=N (the destination GPU)");
  if (req_.peer == req_.device) reject(fmt::format("DtoD from GPU {0} to itself (peer={0})", req_.device));
  if (!memory_text_.empty() && req_.memory != MemKind::managed) {
    reject(fmt::format("memory option '{}' does not apply to DtoD (it has no host buffer)", memory_text_));
  }
  if (settings_.count("numa") != 0) {
    reject(fmt::format("'{}' does not apply to DtoD (it has no host buffer)", settings_["numa"]));
  }
  if (req_.memory != MemKind::managed) req_.memory = MemKind::device;
}

void SpecParser::check() {
  if (req_.direction == Direction::dtod) {
    check_dtod();
    return;
  }
  for (const char* key : {"peer", "issuer"}) {
    const auto it = settings_.find(key);
    if (it != settings_.end()) reject(fmt::format("'{}' only applies to DtoD", it->second));
  }
  // Caught here rather than by the measurement, which would only find out
  // after allocating every buffer of the scenario.
  if (req_.engine == Engine::sm && req_.memory == MemKind::pageable) {
    reject(fmt::format("'{}' cannot reach pageable host memory (use engine=ce, or pinned memory)",
                       settings_["engine"]));
  }
}

// "2 GPUs: 0-1", for messages about ids that do not exist.
std::string gpu_range(int count) {
  if (count == 1) return "1 GPU: 0";
  return fmt::format("{} GPUs: 0-{}", count, count - 1);
}

void check_id(const TransferRequest& req, int id, const char* what, int count) {
  if (id < 0 || id >= count) {
    fail(ErrorKind::usage, fmt::format("transfer spec '{}': {} {} does not exist ({})", req.spec, what, id,
                                       gpu_range(count)));
  }
}

std::vector<Direction> legs(Direction direction) {
  if (direction == Direction::both) return {Direction::htod, Direction::dtoh};
  if (direction == Direction::reverse) return {Direction::dtoh, Direction::htod};
  return {direction};
}

Location host_side(const TransferRequest& req) {
  // Managed memory standing on the host side belongs to no GPU (device -1).
  if (req.memory == MemKind::managed) return Location{MemKind::managed, -1, req.numa};
  return host_memory(req.memory, req.numa);
}

std::string host_label(const TransferRequest& req) {
  if (req.memory != MemKind::managed) return location_label(host_memory(req.memory, req.numa));
  if (req.numa >= 0) return fmt::format("managed(numa{})", req.numa);
  return "managed";
}

Location gpu_side(const TransferRequest& req, int device) {
  if (req.memory == MemKind::managed) return Location{MemKind::managed, device, kGpuNumaNode};
  return device_memory(device);
}

Transfer make_transfer(const TransferRequest& req, int device, Direction leg) {
  Transfer t;
  t.engine = req.engine;
  t.bytes = req.bytes;
  t.exec_device = device;
  if (leg == Direction::htod) {
    t.src = host_side(req);
    t.dst = device_memory(device);
    t.label = fmt::format("{}->gpu{}", host_label(req), device);
  } else if (leg == Direction::dtoh) {
    t.src = device_memory(device);
    t.dst = host_side(req);
    t.label = fmt::format("gpu{}->{}", device, host_label(req));
  } else {
    t.src = gpu_side(req, device);
    t.dst = gpu_side(req, req.peer);
    if (req.issuer == Issuer::dst) t.exec_device = req.peer;
    t.label = fmt::format("gpu{}->gpu{}", device, req.peer);
  }
  return t;
}

void expand_one(const TransferRequest& req, int device_count, std::vector<Transfer>& out) {
  if (device_count == 0) {
    fail(ErrorKind::no_device, fmt::format("transfer spec '{}': no CUDA GPU found", req.spec));
  }
  // Only hand-built requests can get here with a host direction and no host kind.
  if (req.direction != Direction::dtod && req.memory == MemKind::device) {
    fail(ErrorKind::usage, fmt::format("transfer spec '{}': {} needs a host memory kind, not device memory",
                                       req.spec, to_string(req.direction)));
  }
  std::vector<int> devices;
  if (req.all_devices) {
    if (req.direction == Direction::dtod) {
      fail(ErrorKind::usage, fmt::format("transfer spec '{}': DtoD needs one source GPU, not 'all'", req.spec));
    }
    for (int d = 0; d < device_count; ++d) devices.push_back(d);
  } else {
    check_id(req, req.device, "device", device_count);
    if (req.direction == Direction::dtod) check_id(req, req.peer, "peer", device_count);
    devices.push_back(req.device);
  }
  for (const Direction leg : legs(req.direction)) {
    for (const int d : devices) out.push_back(make_transfer(req, d, leg));
  }
}

}  // namespace

const char* to_string(Direction direction) noexcept { return lookup_name(kDirections, direction, "unknown"); }

std::vector<TransferRequest> parse_transfer_spec(const std::string& text) {
  const std::vector<std::string> specs = split_whitespace(text);
  if (specs.empty()) fail(ErrorKind::usage, fmt::format("empty transfer spec (expected {})", kSpecShape));
  std::vector<TransferRequest> requests;
  for (const std::string& spec : specs) requests.push_back(SpecParser(spec).parse());
  return requests;
}

StreamMode parse_stream_mode(const std::string& text) {
  for (StreamMode mode : {StreamMode::per_transfer, StreamMode::per_device, StreamMode::only_one})
    if (lower(text) == to_string(mode)) return mode;
  fail(ErrorKind::usage,
       fmt::format("invalid stream mode '{}' (expected per-transfer, per-device, only-one)", text));
}

Scenario expand_requests(const std::vector<TransferRequest>& requests, int device_count,
                         StreamMode streams) {
  if (device_count < 0) fail(ErrorKind::internal, fmt::format("negative device count {}", device_count));
  Scenario scenario;
  scenario.streams = streams;
  for (const TransferRequest& req : requests) expand_one(req, device_count, scenario.transfers);
  return scenario;
}

}  // namespace xb
