#include "app/progress.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

namespace xb::app {

std::string progress_line(const std::string& what, int samples, double elapsed_s) {
  if (samples < 0) return fmt::format("{}, {:.1f} s", what, elapsed_s);
  return fmt::format("{}, {} sample{}, {:.1f} s", what, samples, samples == 1 ? "" : "s", elapsed_s);
}

Progress::Progress(bool enabled, std::ostream& err, double delay_s, double period_s)
    : enabled_(enabled), err_(err), delay_s_(delay_s), period_s_(period_s), t0_(std::chrono::steady_clock::now()) {
  if (enabled_) thread_ = std::thread([this] { loop(); });
}

Progress::~Progress() { finish(); }

void Progress::update(const std::string& what, int samples) {
  if (!enabled_) return;
  std::lock_guard<std::mutex> lock(mutex_);
  what_ = what;
  samples_ = samples;
}

void Progress::print_above(const std::function<void()>& print) {
  if (!enabled_) {
    print();
    return;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  erase_locked();
  print();
}

void Progress::finish() {
  if (!enabled_) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stop_) return;
    stop_ = true;
    erase_locked();
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Progress::loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stop_) {
    wake_.wait_for(lock, std::chrono::duration<double>(period_s_));
    if (!stop_) draw_locked();
  }
}

void Progress::draw_locked() {
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  if (elapsed < delay_s_ || what_.empty()) return;
  const std::string line = progress_line(what_, samples_, elapsed);
  // Pad with spaces so a shorter line hides the end of the previous one.
  const std::size_t pad = drawn_ > line.size() ? drawn_ - line.size() : 0;
  fmt::print(err_, "\r{}{}", line, std::string(pad, ' '));
  err_.flush();
  drawn_ = line.size();
}

void Progress::erase_locked() {
  if (drawn_ == 0) return;
  fmt::print(err_, "\r{}\r", std::string(drawn_, ' '));
  err_.flush();
  drawn_ = 0;
}

}  // namespace xb::app
