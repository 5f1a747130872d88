#include "report/output_file.hpp"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "base/error.hpp"

namespace xb::report {
namespace {

// Where the bytes go: `path` as the user gave it, `target` after following
// symbolic links. Messages name both when they differ. `fd` >= 0 when the
// bytes go through a descriptor: one this process inherited (`inherited`,
// /dev/stdout and its kin, never closed here) or a special file opened for
// the write (closed after it).
struct Destination {
  std::string path, target;
  int fd = -1;
  bool inherited = false;
  std::string label() const {
    if (inherited) return fmt::format("'{}' (descriptor {})", path, fd);
    return target == path ? fmt::format("'{}'", path) : fmt::format("'{}' (a link to '{}')", path, target);
  }
};

[[noreturn]] void fail_write(const Destination& d, const std::string& cause) {
  fail(ErrorKind::io, fmt::format("cannot write output file {}: {}", d.label(), cause));
}

std::string dir_of(const std::string& path) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string base_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// N when `path` names this process's own descriptor N. Following such a
// name to the file behind it would reopen or replace whatever stdout was
// redirected to (a log opened with >>, a pipe), so the search stops here.
int own_descriptor(const std::string& path) {
  if (path == "/dev/stdin") return STDIN_FILENO;
  if (path == "/dev/stdout") return STDOUT_FILENO;
  if (path == "/dev/stderr") return STDERR_FILENO;
  const std::string base = base_of(path), dir = dir_of(path);
  if (base.empty() || base.size() > 9 || base.find_first_not_of("0123456789") != std::string::npos) return -1;
  const std::string own = fmt::format("/proc/{}/fd", getpid());
  bool ours = dir == "/dev/fd" || dir == "/proc/self/fd" || dir == "/proc/thread-self/fd" || dir == own;
  if (!ours) {  // another spelling of the same directory (a relative path, a link to it)
    char real[PATH_MAX];
    if (realpath(dir.c_str(), real) != nullptr) {
      const std::string r = real;
      ours = r == own || (r.rfind(fmt::format("/proc/{}/task/", getpid()), 0) == 0 && base_of(r) == "fd");
    }
  }
  return ours ? std::stoi(base) : -1;
}

// Follows symbolic links in the last component, as open() would, but keeps
// the final name so a link to a file that does not exist yet creates it,
// and stops at a name of one of this process's descriptors.
Destination resolve(const std::string& path) {
  Destination d{path, path};
  for (int hops = 0; hops < 40; ++hops) {  // the kernel's own limit
    d.fd = own_descriptor(d.target);
    if (d.fd >= 0) {
      d.inherited = true;
      return d;
    }
    struct stat st {};
    if (lstat(d.target.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return d;
    char buf[4096];
    const ssize_t n = readlink(d.target.c_str(), buf, sizeof buf);
    if (n <= 0 || static_cast<std::size_t>(n) == sizeof buf) return d;  // open() reports what is wrong
    const std::string link(buf, static_cast<std::size_t>(n));
    d.target = link[0] == '/' ? link : dir_of(d.target) + "/" + link;
  }
  fail_write(d, std::strerror(ELOOP));
}

// A new file beside `target`, created exclusively (the umask applies, as
// for any new file). Returns -1 with errno set on failure.
int open_temp(const std::string& target, std::string& tmp) {
  static std::atomic<unsigned> counter{0};
  // Keep the name within NAME_MAX even for a long target name.
  const std::string base = base_of(target).substr(0, 200);
  for (int attempt = 0; attempt < 100; ++attempt) {
    tmp = fmt::format("{}/.{}.{}-{}.tmp", dir_of(target), base, getpid(), counter++);
    const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  return -1;
}

// Returns 0 or the errno of the failed write.
int write_all(int fd, const std::string& content) {
  const char* p = content.data();
  std::size_t left = content.size();
  while (left > 0) {
    const ssize_t n = write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    if (n == 0) return EIO;
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  return 0;
}

void write_atomically(const Destination& d, const std::string& content) {
  struct stat old {};
  const bool existed = stat(d.target.c_str(), &old) == 0;
  std::string tmp;
  const int fd = open_temp(d.target, tmp);
  if (fd < 0) fail_write(d, std::strerror(errno));
  int err = write_all(fd, content);
  // A file that is replaced keeps its permissions (best effort: another
  // user's file keeps the new file's).
  if (err == 0 && existed) (void)fchmod(fd, old.st_mode & 07777);
  // On disk before the rename, so a crash leaves the old file or the new one.
  if (err == 0 && fsync(fd) != 0) err = errno;
  if (close(fd) != 0 && err == 0) err = errno;
  if (err == 0 && std::rename(tmp.c_str(), d.target.c_str()) != 0) err = errno;
  if (err != 0) {
    unlink(tmp.c_str());
    fail_write(d, std::strerror(err));
  }
  // Makes the rename itself durable; the file is complete either way.
  const int dir = open(dir_of(d.target).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    (void)fsync(dir);
    close(dir);
  }
}

// A stream socket listening at `d.target`.
int connect_socket(const Destination& d) {
  sockaddr_un addr {};
  addr.sun_family = AF_UNIX;
  if (d.target.size() >= sizeof addr.sun_path) fail_write(d, std::strerror(ENAMETOOLONG));
  std::memcpy(addr.sun_path, d.target.c_str(), d.target.size() + 1);
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) fail_write(d, std::strerror(errno));
  if (connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
    const int err = errno;
    close(fd);
    fail_write(d, std::strerror(err));
  }
  return fd;
}

// Opens a device node, FIFO or socket for writing in place (replacing one
// with a regular file would break whatever reads it), never waiting forever:
// opening a FIFO blocks until a reader opens it, so it is opened without
// blocking and retried every 50 ms for at most `wait_s`.
int open_special(const Destination& d, const struct stat& st, double wait_s) {
  if (S_ISSOCK(st.st_mode)) return connect_socket(d);
  using namespace std::chrono;
  const auto deadline = steady_clock::now() + duration_cast<steady_clock::duration>(duration<double>(wait_s));
  for (;;) {
    const int fd = open(d.target.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd >= 0) {
      // The write itself waits for a slow reader, as any write does.
      const int flags = fcntl(fd, F_GETFL);
      if (flags >= 0) (void)fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
      return fd;
    }
    if (errno == EINTR) continue;
    if (errno != ENXIO || !S_ISFIFO(st.st_mode)) fail_write(d, std::strerror(errno));
    const steady_clock::duration left = deadline - steady_clock::now();
    if (left <= steady_clock::duration::zero())
      fail_write(d, fmt::format("no reader on the FIFO after {:g} s", wait_s));
    std::this_thread::sleep_for(std::min<steady_clock::duration>(left, milliseconds(50)));
  }
}

void write_to_descriptor(const Destination& d, const std::string& content) {
  // What the command already printed on stdout comes before the file's bytes
  // when both end up in the same place (-o /dev/stdout).
  if (d.inherited) {
    std::cout.flush();
    std::fflush(stdout);
  }
  int err = write_all(d.fd, content);
  if (!d.inherited && close(d.fd) != 0 && err == 0) err = errno;
  if (err != 0) fail_write(d, std::strerror(err));
}

// Special files opened by check_output_file, by the path the user gave,
// until write_output_file writes through them. Guarded: an emergency writer
// may write from its own thread.
std::mutex held_mutex;
std::map<std::string, Destination> held;

// Where `path`'s bytes go, with the descriptor to write through when it is
// not a regular file; for a regular file or a new path, fd stays -1.
Destination open_destination(const std::string& path, double fifo_wait_s) {
  {
    std::lock_guard<std::mutex> lock(held_mutex);
    const auto it = held.find(path);
    if (it != held.end()) {
      Destination d = it->second;
      held.erase(it);
      return d;
    }
  }
  Destination d = resolve(path);
  if (d.inherited) {
    // Closed, or open for reading only (also a closed stdout: main() parks
    // /dev/null there read-only).
    const int flags = fcntl(d.fd, F_GETFL);
    if (flags < 0 || (flags & O_ACCMODE) == O_RDONLY) fail_write(d, "the descriptor is not open for writing");
    return d;
  }
  struct stat st {};
  if (stat(d.target.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode)) fail_write(d, "it is a directory");
    d.fd = open_special(d, st, fifo_wait_s);
  }
  return d;
}

// The file behind standard output or error (-o /dev/stdout >> log, or
// -o log with stdout on log): written through as it is, never emptied.
bool standard_stream(const struct stat& st) {
  for (const int fd : {STDOUT_FILENO, STDERR_FILENO}) {
    struct stat s {};
    if (fstat(fd, &s) == 0 && s.st_dev == st.st_dev && s.st_ino == st.st_ino) return true;
  }
  return false;
}

// The bytes a regular file holds that an appending writer would add to.
std::uint64_t held_by(const struct stat& st) {
  return S_ISREG(st.st_mode) && !standard_stream(st) ? static_cast<std::uint64_t>(st.st_size) : 0;
}

}  // namespace

void write_output_file(const std::string& path, const std::string& content, double fifo_wait_s) {
  const Destination d = open_destination(path, fifo_wait_s);
  if (d.fd >= 0) write_to_descriptor(d, content);
  else write_atomically(d, content);
}

void check_output_file(const std::string& path, double fifo_wait_s) {
  if (path.empty()) fail(ErrorKind::io, "cannot write output file '': the path is empty");
  const Destination d = open_destination(path, fifo_wait_s);
  if (d.fd >= 0) {
    // Kept open for the write (a checked path is checked again for free).
    if (!d.inherited) {
      std::lock_guard<std::mutex> lock(held_mutex);
      held[path] = d;
    }
    return;
  }
  // The real test: can a file be created beside it (what the rename needs)?
  std::string tmp;
  const int fd = open_temp(d.target, tmp);
  if (fd < 0) fail_write(d, std::strerror(errno));
  close(fd);
  unlink(tmp.c_str());
}

std::string current_output_text(const std::string& path, std::size_t max_bytes) {
  // O_NONBLOCK: a FIFO put in the file's place since must not wait for a writer.
  const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return "";
  struct stat st {};
  std::string text;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && static_cast<std::size_t>(st.st_size) <= max_bytes) {
    text.resize(static_cast<std::size_t>(st.st_size));
    std::size_t got = 0;
    while (got < text.size()) {
      const ssize_t n = read(fd, &text[got], text.size() - got);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      got += static_cast<std::size_t>(n);
    }
    text.resize(got);
  }
  close(fd);
  return text;
}

AppendFile::AppendFile(const std::string& path, bool must_be_new, double fifo_wait_s) : path_(path) {
  const Destination d = open_destination(path, fifo_wait_s);
  target_ = d.target;
  label_ = d.label();
  inherited_ = d.inherited;
  fd_ = d.fd;
  if (fd_ < 0) {
    fd_ = open(d.target.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY | (must_be_new ? O_EXCL : 0),
               0666);
    if (fd_ < 0) fail_write(d, std::strerror(errno));
  }
  struct stat st {};
  if (inherited_ || fstat(fd_, &st) != 0) return;
  regular_ = S_ISREG(st.st_mode) && !standard_stream(st);
  held_ = held_by(st);
}

AppendFile::~AppendFile() {
  if (fd_ >= 0 && !inherited_) close(fd_);
}

void AppendFile::empty() {
  if (regular_ && held_ > 0 && ftruncate(fd_, 0) != 0)
    fail(ErrorKind::io, fmt::format("cannot empty output file {}: {}", label_, std::strerror(errno)));
}

void AppendFile::drop_torn_tail() {
  struct stat st {};
  if (!regular_ || fstat(fd_, &st) != 0 || st.st_size == 0) return;
  const int in = open(target_.c_str(), O_RDONLY | O_CLOEXEC);  // the append descriptor cannot read
  if (in < 0) fail(ErrorKind::io, fmt::format("cannot read output file {}: {}", label_, std::strerror(errno)));
  off_t end = st.st_size;
  char ch = 0;
  while (end > 0 && pread(in, &ch, 1, end - 1) == 1 && ch != '\n') --end;
  close(in);
  if (end != st.st_size && ftruncate(fd_, end) != 0)
    fail(ErrorKind::io, fmt::format("cannot cut the torn last line of output file {}: {}", label_, std::strerror(errno)));
}

void AppendFile::append(const std::string& line) {
  // What the command printed on stdout comes first when both go to one place.
  if (inherited_) {
    std::cout.flush();
    std::fflush(stdout);
  }
  const int err = write_all(fd_, line);
  if (err != 0) fail(ErrorKind::io, fmt::format("cannot write output file {}: {}", label_, std::strerror(err)));
}

std::uint64_t held_output_bytes(const std::string& path) {
  const Destination d = resolve(path);
  struct stat st {};
  if (d.inherited || stat(d.target.c_str(), &st) != 0) return 0;
  return held_by(st);
}

}  // namespace xb::report
