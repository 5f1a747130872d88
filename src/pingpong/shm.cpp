#include "pingpong/shm.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <utility>

#include <fmt/format.h>

#include "base/error.hpp"

namespace xb::pingpong {
namespace {

std::string unique_name() {
  static std::atomic<unsigned> counter{0};
  return fmt::format("/xferbench-{}-{}", static_cast<long>(getpid()), counter.fetch_add(1));
}

unsigned char* map(int fd, std::size_t bytes, const std::string& name) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) {
    fail(ErrorKind::resources, fmt::format("cannot map {} bytes of shared memory {}: {}", bytes, name,
                                           std::strerror(errno)));
  }
  return static_cast<unsigned char*>(p);
}

}  // namespace

std::uint64_t shm_free_bytes() noexcept {
  struct statvfs st {};
  return statvfs("/dev/shm", &st) == 0 ? static_cast<std::uint64_t>(st.f_bavail) * st.f_frsize : 0;
}

SharedSegment SharedSegment::create(std::size_t bytes) {
  SharedSegment s;
  int fd = -1;
  // A name can be taken by a segment that a killed run left behind (same
  // pid, reused): try the next one.
  for (int attempt = 0; attempt < 16 && fd < 0; ++attempt) {
    s.name_ = unique_name();
    fd = shm_open(s.name_.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd < 0 && errno != EEXIST) break;
  }
  if (fd < 0) fail(ErrorKind::resources, fmt::format("cannot create shared memory {}: {}", s.name_, std::strerror(errno)));
  s.owner_ = true;
  // posix_fallocate reserves the pages now: a /dev/shm too small for the
  // largest message fails here with ENOSPC instead of a SIGBUS on first touch.
  const int rc = ftruncate(fd, static_cast<off_t>(bytes)) == 0 ? posix_fallocate(fd, 0, static_cast<off_t>(bytes)) : errno;
  if (rc != 0) {
    close(fd);
    s.unlink();
    fail(ErrorKind::resources,
         fmt::format("cannot reserve {} bytes of shared memory in /dev/shm for the device transport's host "
                     "mailboxes: {}; use fewer sizes (-n), a larger /dev/shm or --transport staged",
                     bytes, std::strerror(rc)));
  }
  s.bytes_ = bytes;
  s.data_ = map(fd, bytes, s.name_);
  close(fd);
  return s;
}

SharedSegment SharedSegment::open(const std::string& name, std::size_t bytes) {
  SharedSegment s;
  s.name_ = name;
  const int fd = shm_open(name.c_str(), O_RDWR, 0600);
  if (fd < 0) fail(ErrorKind::comm, fmt::format("cannot open the peer's shared memory {}: {}", name, std::strerror(errno)));
  s.bytes_ = bytes;
  s.data_ = map(fd, bytes, name);
  close(fd);
  return s;
}

SharedSegment::~SharedSegment() { release(); }

SharedSegment::SharedSegment(SharedSegment&& other) noexcept { *this = std::move(other); }

SharedSegment& SharedSegment::operator=(SharedSegment&& other) noexcept {
  if (this != &other) {
    release();
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = other.bytes_;
    name_ = std::move(other.name_);
    owner_ = std::exchange(other.owner_, false);
  }
  return *this;
}

void SharedSegment::unlink() noexcept {
  if (!owner_) return;
  shm_unlink(name_.c_str());
  owner_ = false;
}

void SharedSegment::release() noexcept {
  unlink();
  if (data_ != nullptr) munmap(data_, bytes_);
  data_ = nullptr;
}

}  // namespace xb::pingpong
