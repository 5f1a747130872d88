// A SampleSource without a GPU: deterministic samples from each transfer's
// bytes over a fixed link speed, polling the stop state between samples as
// a real source does. Commands measure with it through
// Context::open_source, so the runner loops (stops, time limits, failing
// cells, resume, outputs) are tested end to end in CI.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "measure/sample_source.hpp"
#include "base/stop.hpp"
#include "fake_system.hpp"

class FakeSource : public xb::SampleSource {
 public:
  // `sample_s`: wall time each sample takes (for time-limit tests).
  explicit FakeSource(int gpus = 2, double sample_s = 0, std::atomic<int>* cells = nullptr)
      : sys_(fake_system(gpus)), sample_s_(sample_s), cells_(cells) {}

  const xb::System& system() const override { return sys_; }
  const xb::MeasureOptions& options() const override { return opts_; }
  xb::Location resolve(const xb::Location& loc, int) const override {
    xb::Location out = loc;
    if (out.on_host() && out.numa == -1) out.numa = 0;
    return out;
  }
  void check_fits(std::uint64_t) override {}

  xb::ScenarioSamples run(const xb::Scenario& sc, const xb::SampleMetric& metric) override {
    if (cells_ != nullptr) ++*cells_;
    xb::ScenarioSamples s;
    s.copies_per_sample = 2;
    s.transfers.resize(sc.transfers.size());
    for (std::size_t i = 0; i < 3; ++i) {
      xb::throw_if_stopped();
      pause();
      double last = 0;
      for (std::size_t t = 0; t < sc.transfers.size(); ++t) {
        const xb::Transfer& tr = sc.transfers[t];
        const double gbps = limited(tr.src.on_host() || tr.dst.on_host() ? 50.0 : 350.0);
        // Deterministic, slightly different samples: runs can be compared exactly.
        const double sec = static_cast<double>(tr.bytes) * s.copies_per_sample / (gbps * 1e9) * (1.0 + 0.001 * static_cast<double>(i));
        s.transfers[t].seconds.push_back(sec);
        s.transfers[t].start_s.push_back(0);
        s.transfers[t].end_s.push_back(sec);
        last = std::max(last, sec);
      }
      // nvbandwidth's timing (model.hpp) reads `nvbandwidth_timing` times the time.
      const double slower = sc.timing == xb::Timing::nvbandwidth ? nvbandwidth_timing : 1.0;
      for (auto& t : s.transfers) t.seconds.back() *= slower;
      s.total_seconds.push_back(last * slower);
      metric(s, i);
    }
    for (auto& t : s.transfers) t.verification.status = xb::Verification::Status::passed;
    return s;
  }

  // An SM budget scales a link's figure with the SMs until it saturates: a
  // host link from 4 SMs, a GPU's memory or peer from 64.
  void set_sm_limit(int sms) override { sm_limit_ = sms; }
  virtual double limited(double gbps) const {
    const double saturating = gbps < 100 ? 4 : 64;
    return sm_limit_ > 0 ? gbps * std::min(1.0, sm_limit_ / saturating) : gbps;
  }

  xb::LatencySamples latency(int, const xb::Location& target, xb::ChaseKind = xb::ChaseKind::load) override {
    if (cells_ != nullptr) ++*cells_;
    xb::LatencySamples out;
    out.accesses_per_sample = 400;
    out.buffer_bytes = 2 << 20;
    for (int i = 0; i < 3; ++i) {
      xb::throw_if_stopped();
      pause();
      out.ns_per_access.push_back((target.on_host() ? 1200.0 : 800.0) + i);
    }
    return out;
  }

  // The chase of latency() alone, then under the load at `loaded_factor`
  // times its idle figure; the load moves `load_share` of what run() would.
  xb::LoadedLatencySamples loaded_latency(int gpu, const xb::Location& target,
                                          const std::vector<xb::Transfer>& load) override {
    xb::LoadedLatencySamples out;
    out.idle = latency(gpu, target);
    out.loaded = out.idle;
    double gbps = 0;
    for (const xb::Transfer& t : load) {
      const bool host = t.src.on_host() || t.dst.on_host(), local = !host && t.src.device == t.dst.device;
      gbps += limited(host ? 50.0 : local ? 2000.0 : 350.0) * load_share;
    }
    for (double& v : out.loaded.ns_per_access) {
      v *= loaded_factor;
      out.load_gbps.push_back(gbps);
    }
    out.load_verification.assign(load.size(), {xb::Verification::Status::passed, 0});
    out.load_copies = 8;
    return out;
  }
  double loaded_factor = 2.8;
  double nvbandwidth_timing = 1.0;
  double load_share = 1.0;

  xb::MigrationSamples migration(int, xb::MigrationDirection, std::uint64_t bytes) override {
    if (cells_ != nullptr) ++*cells_;
    xb::MigrationSamples out;
    out.dense_bytes = bytes;
    out.small_page_bytes = std::min<std::uint64_t>(bytes, xb::kSmallPageRegion);
    out.large_page_bytes = bytes;
    for (int i = 0; i < 3; ++i) {
      xb::throw_if_stopped();
      pause();
      out.dense_gbps.push_back(20.0 + i);
      out.ns_per_4k_page.push_back(3000.0 + i);
      out.ns_per_2m_page.push_back(60000.0 + i);
    }
    out.verified = true;
    return out;
  }

  // Waives (as a GPU source does when buffers do not fit) every cell that
  // needs more than max_gpu_bytes of one GPU at once; 0: everything fits.
  std::optional<std::string> preflight(const xb::MemoryAmount& need) override {
    for (std::size_t g = 0; g < need.gpu.size(); ++g)
      if (max_gpu_bytes > 0 && need.gpu[g] > max_gpu_bytes)
        return "needs " + std::to_string(need.gpu[g]) + " bytes of gpu" + std::to_string(g) + " at once (fake limit)";
    return std::nullopt;
  }

  std::string unusable_reason() override { return ""; }

  std::uint64_t max_gpu_bytes = 0;

 private:
  void pause() const {
    if (sample_s_ > 0) std::this_thread::sleep_for(std::chrono::duration<double>(sample_s_));
  }
  xb::System sys_;
  xb::MeasureOptions opts_;
  double sample_s_;
  std::atomic<int>* cells_;
  int sm_limit_ = 0;
};
