// Every example command line in the READMEs of multi-gpu-bwtest, CUts,
// mpi-ping-pong and gpudirect-p2p-overalloc (copies in tests/data/seeds),
// with the program replaced by xferbench's spelling for that tool, is
// parsed in-process as main() parses it and must mean what the README says:
// the devices, directions and sizes of its output, the options it shows.
// Every README line that names the program needs an entry below (a run, or
// a synopsis or build line said to be one), so a line cannot slip through
// unchecked, and an entry that matches no line fails too. nvbandwidth's
// README has its own test.
#include <algorithm>
#include <any>
#include <functional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "app/run_options.hpp"
#include "cli_parse.hpp"
#include "frontends/spec.hpp"
#include "seed_lines.hpp"
#ifdef XB_TEST_MPI_COMMANDS
#include "app/seed_args.hpp"
#include "firsttouch/options.hpp"
#include "pingpong/options.hpp"
#endif

namespace {

struct Tool {
  const char* readme;
  const char* program;             // as the README runs it
  std::vector<std::string> words;  // xferbench's spelling, after "xferbench"
  bool needs_mpi_commands = false;
};
// multi-gpu-bwtest's options are xferbench's own: "xferbench --do=..." runs,
// "xferbench --list" lists devices.
const Tool kBwtest{"multi-gpu-bwtest.README.txt", "bwtest", {}};
const Tool kCuts{"cuts.README.txt", "cuts", {"cuts"}};
const Tool kPingPong{"mpi-ping-pong.README.txt", "ping-pong.py", {"pingpong"}, true};
const Tool kOveralloc{"gpudirect-p2p-overalloc.README.txt", "gpudirect_p2p_overalloc", {"first-touch"}, true};

// One README line run through xferbench.
struct Run {
  std::vector<std::string> args;  // xferbench's arguments
  int processes = 1;              // what the line's launcher starts
  Parsed parsed;
};

using Check = std::function<void(const Run&)>;
struct Entry {
  const Tool* tool;
  std::string line;    // as in the README, trimmed
  Check check;         // empty for a line that runs nothing
  std::string reason;  // why a line runs nothing
};

Parsed parse_as_main(std::vector<std::string> args) {
#ifdef XB_TEST_MPI_COMMANDS
  return parse(xb::app::normalize_seed_args(std::move(args)), [](CLI::App& app, xb::app::Context& ctx) {
    xb::app::add_pingpong_command(app, ctx);
    xb::app::add_first_touch_command(app, ctx);
  });
#else
  return parse(std::move(args));
#endif
}

Run run_line(const Tool& tool, const std::string& line) {
  const seed_lines::CommandLine cmd = seed_lines::split_command(line, tool.program);
  Run r;
  r.args = tool.words;
  r.args.insert(r.args.end(), cmd.args.begin(), cmd.args.end());
  r.processes = seed_lines::launched_processes(cmd.launcher);
  r.parsed = parse_as_main(r.args);
  return r;
}

void expect_runs(const Run& r, const std::string& command) {
  EXPECT_EQ(r.parsed.code, -1) << fmt::format("xferbench {}: {}", fmt::join(r.args, " "), r.parsed.err);
  EXPECT_TRUE(r.parsed.has_action);
  EXPECT_EQ(r.parsed.command, command);
}

// The transfers a plan expands to on `gpus` GPUs, one "label bytes memory"
// string each, in the order they are numbered and reported.
std::vector<std::string> transfers(const Run& r, int gpus) {
  const auto* plan = std::any_cast<xb::app::ScenarioPlan>(&r.parsed.plan);
  if (!plan) return {"(no scenario plan)"};
  std::vector<std::string> out;
  for (const xb::Transfer& t : xb::expand_requests(plan->requests, gpus, plan->streams).transfers) {
    const xb::Location& host = t.src.on_host() ? t.src : t.dst;
    out.push_back(fmt::format("{} {} {}", t.label, t.bytes, xb::to_string(host.kind)));
  }
  return out;
}

const xb::app::ScenarioPlan& plan_of(const Run& r) {
  static const xb::app::ScenarioPlan none;
  const auto* plan = std::any_cast<xb::app::ScenarioPlan>(&r.parsed.plan);
  return plan ? *plan : none;
}

// CUts: one sample of --iter copies (100 by default) per transfer.
void expect_cuts_run(const Run& r, int gpus, const std::vector<std::string>& want) {
  expect_runs(r, "cuts");
  EXPECT_EQ(plan_of(r).front_end, "cuts");
  EXPECT_EQ(plan_of(r).measure.copies_per_sample, 100);
  EXPECT_EQ(plan_of(r).measure.min_samples, 1);
  EXPECT_EQ(plan_of(r).measure.max_samples, 1);
  EXPECT_EQ(transfers(r, gpus), want);
}

std::vector<std::string> repeat(const std::string& fmt_text, std::initializer_list<int> ids) {
  std::vector<std::string> out;
  for (int id : ids) out.push_back(fmt::format(fmt::runtime(fmt_text), id));
  return out;
}

std::vector<Entry> bwtest_entries() {
  const std::string prompt = "jonas@alpha:~/multi-gpu-bwtest$ ./bwtest ";
  return {
      {&kBwtest, "Usage: ./bwtest [--do=<transfer specs>...] [--streams=<mode>]", {}, "the usage synopsis"},
      {&kBwtest, prompt + "--list", [](const Run& r) { expect_runs(r, "list"); }, ""},
      // The README's table: five GPUs, HtoD on each, then DtoH on each, 1 KiB.
      {&kBwtest, prompt + "--do=all:1024:both",
       [](const Run& r) {
         expect_runs(r, "run");
         EXPECT_EQ(plan_of(r).front_end, "bwtest");
         EXPECT_EQ(plan_of(r).streams, xb::StreamMode::per_transfer);
         std::vector<std::string> want = repeat("host->gpu{} 1024 pinned", {0, 1, 2, 3, 4});
         for (const auto& row : repeat("gpu{}->host 1024 pinned", {0, 1, 2, 3, 4})) want.push_back(row);
         EXPECT_EQ(transfers(r, 5), want);
       },
       ""},
      // 6.38 MiB DtoH from GPU 0 into mapped memory, 1 KiB HtoD to GPU 2.
      {&kBwtest, prompt + "--do=0:DtoH:$((64 * 1024 * 102)):mapped --do=2:1024:HtoD",
       [](const Run& r) {
         expect_runs(r, "run");
         EXPECT_EQ(transfers(r, 3), (std::vector<std::string>{"gpu0->host 6684672 mapped", "host->gpu2 1024 pinned"}));
       },
       ""},
  };
}

std::vector<Entry> cuts_entries() {
  const std::string gib = " 1073741824";
  return {
      {&kCuts, "% ./cuts [ARGS...]", {}, "the usage synopsis"},
      // Transfer 0: device 0 -> 1, transfer 1: device 1 -> 0 (the first id is the destination).
      {&kCuts, "% ./cuts --dtod=1,0 --dtod=0,1",
       [gib](const Run& r) { expect_cuts_run(r, 2, {"gpu0->gpu1" + gib + " device", "gpu1->gpu0" + gib + " device"}); },
       ""},
      {&kCuts, "% ./cuts --dtoh=0", [gib](const Run& r) { expect_cuts_run(r, 1, {"gpu0->host" + gib + " pinned"}); },
       ""},
      {&kCuts, "% ./cuts --dtoh=0 --htod=0",
       [gib](const Run& r) { expect_cuts_run(r, 1, {"gpu0->host" + gib + " pinned", "host->gpu0" + gib + " pinned"}); },
       ""},
      {&kCuts, "%./cuts --dtoh=0 --dtoh=1",
       [gib](const Run& r) { expect_cuts_run(r, 2, {"gpu0->host" + gib + " pinned", "gpu1->host" + gib + " pinned"}); },
       ""},
      // Transfers numbered in the order typed, as the README's output.
      {&kCuts, "% ./cuts --dtoh=0 --htod=1 --dtoh=2 --htod=3 --dtoh=4 --htod=5 --dtod=6,7",
       [gib](const Run& r) {
         std::vector<std::string> want;
         for (int id : {0, 1, 2, 3, 4, 5})
           want.push_back(fmt::format(id % 2 ? "host->gpu{}{} pinned" : "gpu{}->host{} pinned", id, gib));
         want.push_back("gpu7->gpu6" + gib + " device");
         expect_cuts_run(r, 8, want);
       },
       ""},
  };
}

#ifdef XB_TEST_MPI_COMMANDS
// The pingpong options, converted by the functions the subcommand uses.
xb::pingpong::Options pingpong_options(const Run& r) {
  CLI::App app;
  xb::app::PingpongArgs raw;
  xb::app::add_pingpong_options(app, raw);
  std::vector<std::string> args = xb::app::normalize_seed_args(r.args);
  args.erase(args.begin());  // "pingpong"
  std::reverse(args.begin(), args.end());
  app.parse(args);
  return xb::app::to_options(raw);
}

// vh (the vector host) is host memory, ve (the vector engine) a GPU; the
// README's table: 25 sizes from 8 B to 128 MiB, 10 round trips each.
Check pingpong_check(bool gpu1, bool gpu2) {
  return [gpu1, gpu2](const Run& r) {
    expect_runs(r, "pingpong");
    EXPECT_EQ(r.processes, 2);
    const xb::pingpong::Options o = pingpong_options(r);
    EXPECT_EQ(o.dev1.gpu, gpu1);
    EXPECT_EQ(o.dev2.gpu, gpu2);
    EXPECT_EQ(o.loop_count, 10);
    EXPECT_EQ(o.mode, xb::pingpong::Mode::pingpong);
    const std::vector<std::uint64_t> sizes = xb::pingpong::message_sizes(o);
    ASSERT_EQ(sizes.size(), 25u);
    EXPECT_EQ(sizes.front(), 8u);
    EXPECT_EQ(sizes.back(), 134217728u);
  };
}

// 5 iterations of 3 sub-iterations, P2P_SIZE bytes from a 1 GiB buffer with
// and without OVERALLOC bytes more: the README's "buffer of N bytes" lines.
Check overalloc_check(std::uint64_t p2p, std::uint64_t overalloc) {
  return [p2p, overalloc](const Run& r) {
    expect_runs(r, "first-touch");
    EXPECT_EQ(r.processes, 2);
    const auto* o = std::any_cast<xb::firsttouch::Options>(&r.parsed.plan);
    ASSERT_NE(o, nullptr);
    EXPECT_EQ(o->iterations, 5);
    EXPECT_EQ(o->sub_iterations, 3);
    EXPECT_EQ(o->p2p_bytes, p2p);
    EXPECT_FALSE(o->sweep || o->host_analogue);
    EXPECT_EQ(o->memory, xb::firsttouch::Memory::gpu);
    std::vector<std::string> got;
    for (const auto& v : xb::firsttouch::variants(*o))
      got.push_back(fmt::format("{} bytes ({})", v.alloc_bytes(), xb::firsttouch::variant_label(*o, v)));
    EXPECT_EQ(got, (std::vector<std::string>{fmt::format("{} bytes (with overalloc)", (1ull << 30) + overalloc),
                                             "1073741824 bytes (without overalloc)"}));
  };
}
#endif

std::vector<Entry> mpi_entries() {
  const std::string run = "mpiexec -veo -np 2 python ping-pong.py ";
  const std::string srun = "srun -u -n 2 $PWD/gpudirect_p2p_overalloc 5 3 ";
  std::vector<Entry> out = {
      {&kOveralloc, "g++ -O3 -lcudart -lmpi -lmpi_gtl_cuda gpudirect_p2p_overalloc.cpp -o gpudirect_p2p_overalloc", {},
       "the build command"},
      {&kOveralloc,
       "srun -n 2 gpudirect_p2p_overalloc <num_iterations> <num_sub_iterations> <p2p_size> <buffer_size> <overalloc_size>",
       {}, "the usage synopsis"}};
#ifdef XB_TEST_MPI_COMMANDS
  const std::vector<Entry> runs = {
      {&kPingPong, "$ " + run + "-dev1 vh -dev2 vh -n 25 -loop_count 10", pingpong_check(false, false), ""},
      {&kPingPong, "$ " + run + "-dev1 vh -dev2 ve -n 25 -loop_count 10", pingpong_check(false, true), ""},
      {&kPingPong, "$ " + run + "-dev1 ve -dev2 ve -n 25 -loop_count 10", pingpong_check(true, true), ""},
      {&kPingPong, "$ VE_NLCPY_NODELIST=0,1 " + run + "-dev1 ve -dev2 ve -n 25 -loop_count 10",
       pingpong_check(true, true), ""},
      {&kOveralloc, srun + "$((1 << 10)) $((1 << 30)) 1", overalloc_check(1024, 1), ""},
      {&kOveralloc, srun + "$((1 << 10)) $((1 << 30)) $((1 << 16))", overalloc_check(1024, 65536), ""},
      {&kOveralloc, srun + "$((1 << 10)) $((1 << 30)) $((1 << 21))", overalloc_check(1024, 2097152), ""},
      {&kOveralloc, "srun -u -n 2 gpudirect_p2p_overalloc 5 3 $((1 << 30)) $((1 << 30)) 1",
       overalloc_check(1ull << 30, 1), ""},
  };
  out.insert(out.end(), runs.begin(), runs.end());
#endif
  return out;
}

// Every line of `tool`'s README that names its program has an entry, every
// entry matches a line, and every run entry's check passes.
void check_readme(const Tool& tool, const std::vector<Entry>& entries) {
  const std::string path = std::string(XB_SEED_README_DIR) + "/" + tool.readme;
  const std::vector<std::string> lines = seed_lines::lines_naming(path, tool.program);
  EXPECT_FALSE(lines.empty()) << path;
  for (const std::string& line : lines) {
    const auto entry = std::find_if(entries.begin(), entries.end(),
                                    [&](const Entry& e) { return e.tool == &tool && e.line == line; });
    if (entry == entries.end()) {
      ADD_FAILURE() << tool.readme << ": no expectation for the README line: " << line;
    } else if (entry->check) {
      SCOPED_TRACE(line);
      entry->check(run_line(tool, line));
    }
  }
  for (const Entry& e : entries) {
    if (e.tool == &tool && std::find(lines.begin(), lines.end(), e.line) == lines.end())
      ADD_FAILURE() << tool.readme << ": this expected line is not in the README: " << e.line;
    if (e.tool == &tool && !e.check) {
      EXPECT_FALSE(e.reason.empty()) << e.line;
    }
  }
}

TEST(SeedReadmes, EveryMultiGpuBwtestExample) { check_readme(kBwtest, bwtest_entries()); }

TEST(SeedReadmes, EveryCutsExample) { check_readme(kCuts, cuts_entries()); }

TEST(SeedReadmes, EveryMpiPingPongExample) {
#ifndef XB_TEST_MPI_COMMANDS
  GTEST_SKIP() << "built without MPI (XFERBENCH_ENABLE_MPI=OFF): no pingpong command to parse these lines";
#endif
  check_readme(kPingPong, mpi_entries());
}

TEST(SeedReadmes, EveryGpudirectP2pOverallocExample) {
#ifndef XB_TEST_MPI_COMMANDS
  GTEST_SKIP() << "built without MPI (XFERBENCH_ENABLE_MPI=OFF): no first-touch command to parse these lines";
#endif
  check_readme(kOveralloc, mpi_entries());
}

TEST(SeedReadmes, TheLineReaderFollowsTheShell) {
  EXPECT_EQ(seed_lines::shell_words("a $((64 * 1024 * 102)) '$((1))' \"x y\" $((1 << 10))z"),
            (std::vector<std::string>{"a", "6684672", "$((1))", "x y", "1024z"}));
  EXPECT_EQ(seed_lines::Arithmetic("1 << 2 + 1").value(), 8);  // + binds tighter than <<
  EXPECT_EQ(seed_lines::Arithmetic("(1 << 2) + 1").value(), 5);
  const auto cmd = seed_lines::split_command("$ VE=0,1 mpiexec -veo -np 2 python ping-pong.py -n 25", "ping-pong.py");
  EXPECT_EQ(cmd.launcher, (std::vector<std::string>{"VE=0,1", "mpiexec", "-veo", "-np", "2", "python"}));
  EXPECT_EQ(cmd.args, (std::vector<std::string>{"-n", "25"}));
  EXPECT_EQ(seed_lines::launched_processes(cmd.launcher), 2);
  EXPECT_EQ(seed_lines::split_command("%./cuts --dtoh=0", "cuts").args, std::vector<std::string>{"--dtoh=0"});
}

}  // namespace
