// A POSIX shared-memory segment that two processes on one host map, for the
// device transport's mailboxes when a rank's buffer is in host memory. One
// rank creates it (a unique name, mode 0600, every byte reserved up front so
// a full /dev/shm is an error here rather than a SIGBUS later), the other
// opens it by name; the creator unlinks the name once the peer has mapped
// it, so nothing is left behind even if both die later.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace xb::pingpong {

// Bytes free in /dev/shm for an unprivileged process; 0 when unknown.
std::uint64_t shm_free_bytes() noexcept;

class SharedSegment {
 public:
  SharedSegment() = default;
  // Creates a zero-filled segment; Error(resources) naming the size and
  // /dev/shm when it cannot be reserved.
  static SharedSegment create(std::size_t bytes);
  // Maps a segment created by another process; Error(comm) on failure.
  static SharedSegment open(const std::string& name, std::size_t bytes);
  ~SharedSegment();
  SharedSegment(SharedSegment&& other) noexcept;
  SharedSegment& operator=(SharedSegment&& other) noexcept;
  SharedSegment(const SharedSegment&) = delete;
  SharedSegment& operator=(const SharedSegment&) = delete;

  // Removes the name (the mapping stays valid); a no-op after the first call.
  void unlink() noexcept;

  unsigned char* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return bytes_; }
  const std::string& name() const noexcept { return name_; }

 private:
  void release() noexcept;
  unsigned char* data_ = nullptr;
  std::size_t bytes_ = 0;
  std::string name_;
  bool owner_ = false;
};

}  // namespace xb::pingpong
