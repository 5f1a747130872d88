// The output writer on files made for the test in a temporary directory:
// regular files and new paths are replaced whole, a failed write keeps the
// previous file, symbolic links are followed, this process's descriptors
// (/dev/fd/N and its kin) are written through in place, a FIFO is opened
// by the check within a bounded wait for its reader and written through
// that descriptor, a socket is written in place, a directory is refused.
// A file written line by line (AppendFile) follows the same rules but is
// appended to. No real /dev node is touched.
#include <dirent.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "base/error.hpp"
#include "report/output_file.hpp"

namespace {

using xb::report::AppendFile;
using xb::report::check_output_file;
using xb::report::held_output_bytes;
using xb::report::write_output_file;

class OutputFile : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = ::testing::TempDir() + "/xb_output_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr) << std::strerror(errno);
    dir_ = tmpl;
  }
  void TearDown() override { EXPECT_EQ(std::system(("rm -rf '" + dir_ + "'").c_str()), 0); }

  std::string at(const std::string& name) const { return dir_ + "/" + name; }

  // Every name in the directory: no temporary file may be left behind.
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    DIR* d = opendir(dir_.c_str());
    while (dirent* e = d ? readdir(d) : nullptr) {
      const std::string n = e->d_name;
      if (n != "." && n != "..") out.push_back(n);
    }
    if (d) closedir(d);
    std::sort(out.begin(), out.end());
    return out;
  }

  std::string dir_;
};

std::string read(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

mode_t lmode(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(lstat(path.c_str(), &st), 0) << path;
  return st.st_mode;
}

// The message of the Error(io) that `fn` throws, or "" (and a failure).
template <typename Fn>
std::string io_error(Fn fn) {
  try {
    fn();
  } catch (const xb::Error& e) {
    EXPECT_EQ(e.kind(), xb::ErrorKind::io) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no error thrown";
  return "";
}

TEST_F(OutputFile, ANewPathAndARegularFileAreReplacedWhole) {
  const std::string path = at("r.json");
  write_output_file(path, "first\n");
  EXPECT_EQ(read(path), "first\n");
  ASSERT_EQ(chmod(path.c_str(), 0640), 0);
  write_output_file(path, "second\n");
  EXPECT_EQ(read(path), "second\n");
  EXPECT_TRUE(S_ISREG(lmode(path)));
  EXPECT_EQ(lmode(path) & 07777, 0640u) << "a replaced file keeps its permissions";
  EXPECT_EQ(names(), std::vector<std::string>{"r.json"});
}

TEST_F(OutputFile, AFailedWriteKeepsThePreviousFileAndNamesTheCause) {
  const std::string path = at("r.json");
  write_output_file(path, "previous\n");
  // A file size limit makes write() fail with EFBIG, as a full disk fails
  // with ENOSPC, for root too; SIGXFSZ would otherwise end the process.
  struct rlimit old {};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old), 0);
  struct sigaction ignore {}, old_action {};
  ignore.sa_handler = SIG_IGN;
  ASSERT_EQ(sigaction(SIGXFSZ, &ignore, &old_action), 0);
  struct rlimit small = old;
  small.rlim_cur = 16;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  const std::string msg = io_error([&] { write_output_file(path, std::string(4096, 'x')); });
  setrlimit(RLIMIT_FSIZE, &old);
  sigaction(SIGXFSZ, &old_action, nullptr);
  EXPECT_NE(msg.find("cannot write output file '" + path + "'"), std::string::npos) << msg;
  EXPECT_NE(msg.find(std::strerror(EFBIG)), std::string::npos) << msg;
  EXPECT_EQ(read(path), "previous\n");
  EXPECT_EQ(names(), std::vector<std::string>{"r.json"});
}

TEST_F(OutputFile, ASymlinkIsFollowedAndStaysALink) {
  write_output_file(at("target.json"), "old\n");
  ASSERT_EQ(symlink("target.json", at("link.json").c_str()), 0);  // relative to the link's directory
  write_output_file(at("link.json"), "new\n");
  EXPECT_TRUE(S_ISLNK(lmode(at("link.json"))));
  EXPECT_EQ(read(at("target.json")), "new\n");
  // A chain of links, and a link whose target does not exist yet.
  ASSERT_EQ(symlink(at("link.json").c_str(), at("chain.json").c_str()), 0);
  write_output_file(at("chain.json"), "chained\n");
  EXPECT_EQ(read(at("target.json")), "chained\n");
  ASSERT_EQ(symlink("later.json", at("dangling.json").c_str()), 0);
  write_output_file(at("dangling.json"), "created\n");
  EXPECT_TRUE(S_ISLNK(lmode(at("dangling.json"))));
  EXPECT_EQ(read(at("later.json")), "created\n");
  EXPECT_EQ(names(), (std::vector<std::string>{"chain.json", "dangling.json", "later.json", "link.json", "target.json"}));
}

// Up to `want` bytes from `fd`, waiting at most 5 s for them.
std::string read_for(int fd, std::size_t want) {
  std::string got;
  char buf[256];
  pollfd p{fd, POLLIN, 0};
  while (got.size() < want && poll(&p, 1, 5000) > 0) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) break;
    got.append(buf, static_cast<std::size_t>(n));
  }
  return got;
}

// A FIFO with a reader stands in for a device node or a pipe: it is
// written in place and is still a FIFO afterwards. The reader holds the
// FIFO open read-write (Linux), so neither side blocks in open() and a
// writer that wrongly replaced the FIFO fails the test instead of hanging it.
TEST_F(OutputFile, AFifoIsWrittenThroughNotReplaced) {
  const std::string fifo = at("pipe");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  ASSERT_EQ(symlink("pipe", at("pipe_link").c_str()), 0);
  const int reader = open(fifo.c_str(), O_RDWR | O_NONBLOCK);
  ASSERT_GE(reader, 0) << std::strerror(errno);
  for (const std::string& path : {fifo, at("pipe_link")}) {
    const std::string content = "through " + path + "\n";
    write_output_file(path, content);
    EXPECT_EQ(read_for(reader, content.size()), content);
    EXPECT_TRUE(S_ISFIFO(lmode(fifo)));
  }
  close(reader);
  EXPECT_EQ(names(), (std::vector<std::string>{"pipe", "pipe_link"}));
}

TEST_F(OutputFile, ADirectoryIsRefusedByTheWriterAndTheCheck) {
  ASSERT_EQ(mkdir(at("d.json").c_str(), 0755), 0);
  ASSERT_EQ(symlink("d.json", at("dir_link").c_str()), 0);
  for (const std::string& path : {at("d.json"), at("dir_link")}) {
    std::string msg = io_error([&] { check_output_file(path); });
    EXPECT_NE(msg.find("'" + path + "'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("it is a directory"), std::string::npos) << msg;
    msg = io_error([&] { write_output_file(path, "x"); });
    EXPECT_NE(msg.find("it is a directory"), std::string::npos) << msg;
  }
  EXPECT_EQ(names(), (std::vector<std::string>{"d.json", "dir_link"}));
}

TEST_F(OutputFile, TheCheckFindsAMissingDirectoryAndLeavesNothingBehind) {
  const std::string missing = at("no-such-dir/r.json");
  const std::string msg = io_error([&] { check_output_file(missing); });
  EXPECT_NE(msg.find("cannot write output file '" + missing + "': " + std::strerror(ENOENT)), std::string::npos) << msg;
  io_error([&] { write_output_file(missing, "x"); });
  // Writable targets pass without being created or changed.
  check_output_file(at("new.json"));
  write_output_file(at("old.json"), "kept\n");
  check_output_file(at("old.json"));
  EXPECT_EQ(read(at("old.json")), "kept\n");
  EXPECT_EQ(names(), std::vector<std::string>{"old.json"});
}

ino_t inode(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(stat(path.c_str(), &st), 0) << path;
  return st.st_ino;
}

// -o /dev/stdout >> log: the log opened in append mode (here on a spare
// descriptor) gets the document after its earlier lines, through that
// descriptor, in every spelling of it and through a link to one; the log is
// not replaced by a new file.
TEST_F(OutputFile, OwnDescriptorsAreWrittenThroughInAppendMode) {
  const std::string log = at("history.log");
  const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0) << std::strerror(errno);
  ASSERT_EQ(::write(fd, "earlier\n", 8), 8);
  const ino_t before = inode(log);
  const std::string n = std::to_string(fd);
  ASSERT_EQ(symlink(("/dev/fd/" + n).c_str(), at("fd_link").c_str()), 0);
  const std::vector<std::string> spellings = {"/dev/fd/" + n, "/proc/self/fd/" + n,
                                              "/proc/" + std::to_string(getpid()) + "/fd/" + n,
                                              "/proc/self/../self/fd/" + n, at("fd_link")};
  std::string want = "earlier\n";
  for (const std::string& path : spellings) {
    check_output_file(path);
    write_output_file(path, path + "\n");
    want += path + "\n";
  }
  close(fd);
  EXPECT_EQ(read(log), want);
  EXPECT_EQ(inode(log), before) << "the log was replaced";
  EXPECT_TRUE(S_ISLNK(lmode(at("fd_link"))));
  EXPECT_EQ(names(), (std::vector<std::string>{"fd_link", "history.log"}));
}

// A descriptor opened with > (no append) is written at its offset, after
// what was written through it before, not from the start of the file.
TEST_F(OutputFile, AnOwnDescriptorIsWrittenAtItsOffset) {
  const std::string out = at("out.txt");
  const int fd = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0) << std::strerror(errno);
  ASSERT_EQ(::write(fd, "table\n", 6), 6);
  write_output_file("/dev/fd/" + std::to_string(fd), "{}\n");
  close(fd);
  EXPECT_EQ(read(out), "table\n{}\n");
}

// A descriptor that is not open, or open for reading only, is refused by
// the check with the path and the descriptor named; nothing is created.
TEST_F(OutputFile, ADescriptorNotOpenForWritingIsRefused) {
  write_output_file(at("in.json"), "input\n");
  const int ro = open(at("in.json").c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(ro, 0) << std::strerror(errno);
  const int closed = dup(ro);  // a number that is free once closed
  ASSERT_GE(closed, 0);
  close(closed);
  for (const int fd : {ro, closed}) {
    const std::string path = "/proc/self/fd/" + std::to_string(fd);
    std::string msg = io_error([&] { check_output_file(path); });
    EXPECT_NE(msg.find("'" + path + "' (descriptor " + std::to_string(fd) + "): the descriptor is not open for writing"),
              std::string::npos) << msg;
    msg = io_error([&] { write_output_file(path, "x"); });
    EXPECT_NE(msg.find("not open for writing"), std::string::npos) << msg;
  }
  close(ro);
  EXPECT_EQ(read(at("in.json")), "input\n");
  EXPECT_EQ(names(), std::vector<std::string>{"in.json"});
}

// A FIFO nobody reads: the check and the write give up after the bounded
// wait (a short one here) with exit 7's error naming the FIFO, instead of
// blocking in open() for ever.
TEST_F(OutputFile, AFifoWithoutAReaderFailsAfterTheWait) {
  const std::string fifo = at("pipe");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::string msg = io_error([&] { check_output_file(fifo, 0.2); });
  EXPECT_NE(msg.find("cannot write output file '" + fifo + "': no reader on the FIFO after 0.2 s"), std::string::npos)
      << msg;
  msg = io_error([&] { write_output_file(fifo, "x", 0.2); });
  EXPECT_NE(msg.find("no reader on the FIFO after 0.2 s"), std::string::npos) << msg;
  EXPECT_TRUE(S_ISFIFO(lmode(fifo)));
  EXPECT_EQ(names(), std::vector<std::string>{"pipe"});
}

// With a reader there, the check opens the FIFO and keeps the descriptor;
// the write goes through it (even once the name is gone) and closes it, so
// the reader gets the whole document and then end of file.
TEST_F(OutputFile, TheCheckOpensAFifoAndTheWriteUsesThatDescriptor) {
  const std::string fifo = at("pipe");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const int reader = open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0) << std::strerror(errno);
  check_output_file(fifo, 0.2);
  ASSERT_EQ(unlink(fifo.c_str()), 0);
  const std::string content(100000, 'j');  // more than a pipe holds: the write waits for the reader
  std::string got;
  std::thread drain([&] { got = read_for(reader, content.size()); });
  write_output_file(fifo, content, 0.2);
  drain.join();
  EXPECT_EQ(got.size(), content.size());
  EXPECT_EQ(got, content);
  char byte;
  EXPECT_EQ(::read(reader, &byte, 1), 0) << "the writer's descriptor is still open";
  close(reader);
  EXPECT_TRUE(names().empty()) << "a file was created in place of the FIFO";
}

// A socket is written in place: connected to, never replaced by a file.
TEST_F(OutputFile, ASocketIsWrittenInPlace) {
  const std::string path = at("sock");
  sockaddr_un addr {};
  addr.sun_family = AF_UNIX;
  ASSERT_LT(path.size(), sizeof addr.sun_path);
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  const int server = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(server, 0);
  ASSERT_EQ(bind(server, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0) << std::strerror(errno);
  ASSERT_EQ(listen(server, 1), 0);
  check_output_file(path);
  write_output_file(path, "to the socket\n");
  const int conn = accept(server, nullptr, nullptr);
  ASSERT_GE(conn, 0) << std::strerror(errno);
  EXPECT_EQ(read_for(conn, 14), "to the socket\n");
  close(conn);
  close(server);
  EXPECT_TRUE(S_ISSOCK(lmode(path)));
}

// A file written line by line: a new path is created, a regular file is
// appended to and says what it held (the command decides what to do with
// that), a link is followed and stays a link, and O_EXCL keeps an existing
// file as it was.
TEST_F(OutputFile, AnAppendFileAddsLinesAndSaysWhatItHeld) {
  const std::string path = at("s.jsonl");
  EXPECT_EQ(held_output_bytes(path), 0u);
  {
    AppendFile f(path, true);
    EXPECT_EQ(f.held_bytes(), 0u);
    f.append("one\n");
    f.append("two\n");
    EXPECT_EQ(read(path), "one\ntwo\n") << "a line is in the file as soon as it is appended";
  }
  EXPECT_EQ(held_output_bytes(path), 8u);
  ASSERT_EQ(symlink("s.jsonl", at("link.jsonl").c_str()), 0);
  EXPECT_EQ(held_output_bytes(at("link.jsonl")), 8u);
  {
    AppendFile f(at("link.jsonl"));
    EXPECT_EQ(f.held_bytes(), 8u);
    f.append("three\n");
  }
  EXPECT_EQ(read(path), "one\ntwo\nthree\n");
  EXPECT_TRUE(S_ISLNK(lmode(at("link.jsonl"))));
  const std::string msg = io_error([&] { AppendFile f(path, true); });
  EXPECT_NE(msg.find("cannot write output file '" + path + "': " + std::strerror(EEXIST)), std::string::npos) << msg;
  {
    AppendFile f(path);
    f.empty();
    f.append("anew\n");
  }
  EXPECT_EQ(read(path), "anew\n");
  EXPECT_EQ(names(), (std::vector<std::string>{"link.jsonl", "s.jsonl"}));
}

// A writer killed mid-line leaves a torn last line: cut back to the last
// full line before appending; a file of full lines is kept as it is.
TEST_F(OutputFile, AnAppendFileCutsATornLastLine) {
  const std::string path = at("torn.jsonl");
  write_output_file(path, "a\nb\npart");
  {
    AppendFile f(path);
    f.drop_torn_tail();
    f.append("c\n");
  }
  EXPECT_EQ(read(path), "a\nb\nc\n");
  {
    AppendFile f(path);
    f.drop_torn_tail();
  }
  EXPECT_EQ(read(path), "a\nb\nc\n");
}

// -o /dev/fd/N >> log: the lines go through the descriptor after the log's
// earlier lines; the log holds nothing the writer may empty or cut.
TEST_F(OutputFile, AnAppendFileWritesThroughOwnDescriptorsAndNeverEmptiesThem) {
  const std::string log = at("history.log");
  const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0) << std::strerror(errno);
  ASSERT_EQ(::write(fd, "earlier\npart", 12), 12);
  const ino_t before = inode(log);
  const std::string path = "/dev/fd/" + std::to_string(fd);
  EXPECT_EQ(held_output_bytes(path), 0u);
  {
    AppendFile f(path);
    EXPECT_EQ(f.held_bytes(), 0u);
    f.empty();
    f.drop_torn_tail();
    f.append("\nline\n");
  }
  EXPECT_EQ(::write(fd, "still open\n", 11), 11) << "the writer closed a descriptor it did not open";
  close(fd);
  EXPECT_EQ(read(log), "earlier\npart\nline\nstill open\n");
  EXPECT_EQ(inode(log), before);
}

// The check opens a FIFO (its reader there); the appending writer takes
// that descriptor, and the FIFO stays a FIFO.
TEST_F(OutputFile, AnAppendFileWritesThroughTheFifoTheCheckOpened) {
  const std::string fifo = at("pipe");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const int reader = open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0) << std::strerror(errno);
  check_output_file(fifo, 0.2);
  EXPECT_EQ(held_output_bytes(fifo), 0u);
  {
    AppendFile f(fifo, false, 0.2);
    EXPECT_EQ(f.held_bytes(), 0u);
    f.append("one\n");
    f.append("two\n");
    EXPECT_EQ(read_for(reader, 8), "one\ntwo\n");
  }
  char byte;
  EXPECT_EQ(::read(reader, &byte, 1), 0) << "the writer's descriptor is still open";
  close(reader);
  EXPECT_TRUE(S_ISFIFO(lmode(fifo)));
  EXPECT_EQ(names(), std::vector<std::string>{"pipe"});
}

}  // namespace
