// A one-line progress indicator on stderr for runs longer than about two
// seconds: "[3/9] host_to_device_memcpy_ce, 12 samples, 7.4 s", rewritten in
// place with '\r' by a background thread so the elapsed time keeps ticking
// while a long sample runs. It never writes to stdout; callers that print
// results to stdout do it through print_above(), which erases the line
// first so the two streams do not interleave on a terminal.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <ostream>
#include <string>
#include <thread>

namespace xb::app {

// The text of one progress line (no '\r'); samples < 0 leaves them out.
std::string progress_line(const std::string& what, int samples, double elapsed_s);

class Progress {
 public:
  // Disabled (progress_enabled(ctx) false): every call is a no-op and no
  // thread starts. Nothing is drawn before `delay_s`.
  Progress(bool enabled, std::ostream& err, double delay_s = 2.0, double period_s = 0.25);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // What is running now; samples < 0: unknown.
  void update(const std::string& what, int samples = -1);
  // Erases the line, runs `print` (which writes to stdout), then lets the
  // line be drawn again at the next tick.
  void print_above(const std::function<void()>& print);
  // Erases the line and stops the thread; later calls do nothing.
  void finish();

 private:
  void loop();
  void draw_locked();
  void erase_locked();

  bool enabled_;
  std::ostream& err_;
  double delay_s_, period_s_;
  std::chrono::steady_clock::time_point t0_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::string what_;
  int samples_ = -1;
  std::size_t drawn_ = 0;  // characters of the line now on screen
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace xb::app
