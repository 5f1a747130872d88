// The one way xferbench writes a result file (-o FILE), for every command.
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

}  // namespace xb::report
