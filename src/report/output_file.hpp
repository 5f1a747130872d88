// The one way xferbench writes a result file (-o FILE), for every command,
// whole (write_output_file) or line by line as it measures (AppendFile).
// A reader never sees a half-written report, a failed write leaves the
// previous file as it was, and a path that is not a plain file keeps being
// what it is:
//   - a regular file or a new path: written to a temporary file in the same
//     directory, flushed to disk (fsync), then renamed over the path;
//   - a symbolic link: followed; its final target is written by these rules
//     (the link itself stays);
//   - one of this process's descriptors (/dev/stdout, /dev/stderr,
//     /dev/fd/N, /proc/self/fd/N, /proc/<own pid>/fd/N, or a link to one):
//     written through the descriptor already open, at its offset or
//     appended when it is in append mode (`-o /dev/stdout >> log` adds to
//     the log); never reopened, never replaced;
//   - a device node, FIFO or socket: opened and written in place, never
//     replaced. A FIFO is opened by check_output_file, before any
//     measurement, waiting at most kFifoReaderWaitS for a reader; the
//     descriptor is kept and write_output_file writes through it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace xb::report {

// How long an output FIFO may stay without a reader before the command
// fails with exit 7 (README "Output files").
inline constexpr double kFifoReaderWaitS = 10.0;

// Throws Error(io) "cannot write output file 'PATH': CAUSE" (the errno text).
// Writes through the descriptor check_output_file(path) opened, if any;
// otherwise opens a special file itself (a FIFO with the same bounded wait).
void write_output_file(const std::string& path, const std::string& content,
                       double fifo_wait_s = kFifoReaderWaitS);

// Checks, before any measurement, that write_output_file(path, ...) can
// succeed: not a directory, the directory exists and takes new files, a
// descriptor is open for writing, a special file opens for writing (a FIFO
// has a reader within fifo_wait_s). Creates nothing that stays; a special
// file stays open for the write. Throws Error(io) as write_output_file does.
void check_output_file(const std::string& path, double fifo_wait_s = kFifoReaderWaitS);

// What a regular file at `path` (a symbolic link followed) holds now, so
// that a file about to be replaced can carry something over (the metrics'
// last success); empty for a new path, a special file, a file larger than
// `max_bytes` or one that cannot be read.
std::string current_output_text(const std::string& path, std::size_t max_bytes = 64u << 20);

// A file a command writes line by line while it measures (soak's samples),
// by the rules above except one: a regular file is appended to, never
// replaced, and each line goes out with one write() on a descriptor opened
// O_APPEND, so a process killed at any moment leaves every line already
// written whole (a rename at the end would lose them all). A symbolic link
// is followed (the link stays), one of this process's descriptors is
// written through as it is, a device node, FIFO or socket is written in
// place (a FIFO opened by check_output_file, or waited for fifo_wait_s).
class AppendFile {
 public:
  // `must_be_new`: the path must not exist yet (O_EXCL). Throws Error(io)
  // "cannot write output file 'PATH': CAUSE".
  explicit AppendFile(const std::string& path, bool must_be_new = false, double fifo_wait_s = kFifoReaderWaitS);
  ~AppendFile();
  AppendFile(const AppendFile&) = delete;
  AppendFile& operator=(const AppendFile&) = delete;

  // What the file held when it was opened, in bytes: a regular file's
  // size; 0 for a new file, a special file, a descriptor of this process
  // and the file behind standard output or error (`-o log >> log` is
  // written through as it is). Whether that may be appended to is the
  // command's to decide.
  std::uint64_t held_bytes() const noexcept { return held_; }
  // Empties a regular file that held something (never one behind a
  // standard stream); throws Error(io).
  void empty();
  // A regular file whose last line was cut short (a killed writer): cut
  // back to its last full line before appending; throws Error(io).
  void drop_torn_tail();
  // One line (with its '\n') in one write(); throws Error(io).
  void append(const std::string& line);
  const std::string& path() const noexcept { return path_; }

 private:
  std::string path_, target_, label_;
  int fd_ = -1;
  bool inherited_ = false;  // one of this process's descriptors: never closed here
  bool regular_ = false;    // a regular file that is not behind a standard stream
  std::uint64_t held_ = 0;
};

// What AppendFile(path).held_bytes() would be now, creating nothing: for
// the check before any measurement.
std::uint64_t held_output_bytes(const std::string& path);

}  // namespace xb::report
