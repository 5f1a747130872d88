// Transports that wrap a real one to inject faults through the runner's
// Environment::make_transport: one corrupts what it received, one connects
// but never runs its side (a peer that stopped answering). Shared by the
// device-transport tests with and without a GPU.
#pragma once

#include <memory>
#include <vector>

#include "pingpong/transport.hpp"

namespace xb::pingpong {

class ForwardingTransport : public Transport {
 public:
  explicit ForwardingTransport(std::unique_ptr<Transport> inner) : inner_(std::move(inner)) {}
  void connect() override { inner_->connect(); }
  void prepare(std::size_t bytes, std::uint64_t seed) override { inner_->prepare(bytes, seed); }
  std::vector<double> run(Mode m, std::size_t bytes, int reps, int window) override {
    return inner_->run(m, bytes, reps, window);
  }
  std::vector<unsigned char> received(std::size_t bytes) override { return inner_->received(bytes); }
  std::string describe() const override { return inner_->describe(); }

 protected:
  std::unique_ptr<Transport> inner_;
};

// Flips one bit of byte `offset` of what was received, as a link that
// corrupts data would.
class CorruptingTransport final : public ForwardingTransport {
 public:
  CorruptingTransport(std::unique_ptr<Transport> inner, std::size_t offset)
      : ForwardingTransport(std::move(inner)), offset_(offset) {}
  std::vector<unsigned char> received(std::size_t bytes) override {
    auto data = inner_->received(bytes);
    if (data.size() > offset_) data[offset_] ^= 0x40;
    return data;
  }

 private:
  std::size_t offset_;
};

// Connects, then never takes part in a run (returns made-up zero times).
class SilentTransport final : public ForwardingTransport {
 public:
  using ForwardingTransport::ForwardingTransport;
  std::vector<double> run(Mode, std::size_t, int reps, int) override { return std::vector<double>(reps, 0.0); }
};

}  // namespace xb::pingpong
