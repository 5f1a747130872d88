#include "report/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "core/error.hpp"

namespace xb::report {
namespace {

// Where the bytes go: `path` as the user gave it, `target` after following
// symbolic links. Messages name both when they differ.
struct Destination {
  std::string path, target;
  std::string label() const {
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

// Follows symbolic links in the last component, as open() would, but keeps
// the final name so a link to a file that does not exist yet creates it.
Destination resolve(const std::string& path) {
  Destination d{path, path};
  for (int hops = 0; hops < 40; ++hops) {  // the kernel's own limit
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

// Device nodes, FIFOs and sockets are written in place: replacing one with a
// regular file would break whatever reads it.
void write_through(const Destination& d, const std::string& content) {
  const int fd = open(d.target.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) fail_write(d, std::strerror(errno));
  int err = write_all(fd, content);
  if (close(fd) != 0 && err == 0) err = errno;
  if (err != 0) fail_write(d, std::strerror(err));
}

}  // namespace

void write_output_file(const std::string& path, const std::string& content) {
  const Destination d = resolve(path);
  struct stat st {};
  if (stat(d.target.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode)) fail_write(d, "it is a directory");
    write_through(d, content);
    return;
  }
  write_atomically(d, content);
}

void check_output_file(const std::string& path) {
  if (path.empty()) fail(ErrorKind::io, "cannot write output file '': the path is empty");
  const Destination d = resolve(path);
  struct stat st {};
  if (stat(d.target.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode)) fail_write(d, "it is a directory");
    // Opening a FIFO would wait for its reader; access() is enough.
    if (access(d.target.c_str(), W_OK) != 0) fail_write(d, std::strerror(errno));
    return;
  }
  // The real test: can a file be created beside it (what the rename needs)?
  std::string tmp;
  const int fd = open_temp(d.target, tmp);
  if (fd < 0) fail_write(d, std::strerror(errno));
  close(fd);
  unlink(tmp.c_str());
}

}  // namespace xb::report
