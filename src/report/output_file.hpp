// The one way xferbench writes a result file (-o FILE), for every command.
// A reader never sees a half-written report, a failed write leaves the
// previous file as it was, and a path that is not a plain file keeps being
// what it is:
//   - a regular file or a new path: written to a temporary file in the same
//     directory, flushed to disk (fsync), then renamed over the path;
//   - a symbolic link: followed; its final target is written by these rules
//     (the link itself stays);
//   - a device node, FIFO or socket: opened and written in place, never
//     replaced (-o /dev/stdout, a pipe to another program).
#pragma once

#include <string>

namespace xb::report {

// Throws Error(io) "cannot write output file 'PATH': CAUSE" (the errno text).
void write_output_file(const std::string& path, const std::string& content);

// Checks, before any measurement, that write_output_file(path, ...) can
// succeed: not a directory, the directory exists and takes new files, a
// special file is writable. Creates nothing that stays. Throws Error(io)
// as write_output_file does.
void check_output_file(const std::string& path);

}  // namespace xb::report
