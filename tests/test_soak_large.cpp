// A long soak's file must be read back. A file over 256 MiB was
// refused as "not an xferbench file" by soak --resume, soak --summary and
// compare, so a killed 48-hour burn-in could be neither resumed nor
// summarised; and the reader held about 40 times the file in memory.
//
// A test helper writes a 300 MiB soak file (made here, not shipped: a
// month of 5-second samples of 24 cells with their telemetry), and each
// command reads it in a child process whose peak resident memory is
// measured (wait4's ru_maxrss): soak --summary and compare with the real
// binary, soak --resume on the fake source and clocks (it measures). Each
// must succeed in under 200 MiB.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "fake_nvml.hpp"
#include "fake_source.hpp"
#include "in_process.hpp"
#include "soak/soak_data.hpp"
#include "soak/soak_record.hpp"

namespace {

constexpr std::uint64_t kFileBytes = std::uint64_t{300} << 20;
constexpr long kMaxRssKiB = 200 * 1024;
const std::string kCase = "host_to_device_memcpy_ce";

struct Generated {
  std::string path;
  std::size_t samples = 0;
  double last_t_s = 0;
  int rounds = 0;
};

// The soak file: header, then rounds of 24 cells (one of them the header's
// case, whose cell --resume measures again), a sample every 5 s, each with
// the telemetry of one or two GPUs; steady values with a little noise.
Generated write_soak_file(const std::string& path, std::uint64_t bytes) {
  Generated g{path};
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) throw std::runtime_error("cannot write " + path);
  std::vector<char> buffer(1 << 20);
  std::setvbuf(f, buffer.data(), _IOFBF, buffer.size());
  xb::soak::Header h;
  h.command_line = {"xferbench", "soak", "--duration", "720h", "-t", kCase};
  h.start_time_utc = "2026-11-01T00:00:00.000Z";
  h.host = "generated";
  h.gpus = {"gpu0 NVIDIA H200 GPU-0", "gpu1 NVIDIA H200 GPU-1"};
  h.cases = {kCase};
  h.duration_s = 720 * 3600.0;
  const std::string head = xb::soak::header_line(h);
  std::uint64_t written = std::fputs(head.c_str(), f) >= 0 ? head.size() : 0;
  std::vector<std::string> cells = {kCase + "[0,0]"};
  for (int i = 1; i < 24; ++i) cells.push_back(fmt::format("generated_case_{}[{},{}]", i, i % 2, (i / 2) % 2));
  xb::soak::Sample s;
  s.unit = "gbps";
  s.peak_gbps = 63.02;
  xb::soak::GpuTelemetry t;
  t.temperature_c = 45;
  t.power_w = 420.5;
  t.sm_clock_mhz = 1980;
  t.mem_clock_mhz = 3201;
  t.clock_reasons = 0;
  t.ecc_corrected = t.ecc_uncorrected = t.rows_remapped_correctable = t.rows_remapped_uncorrectable = 0;
  t.row_remap_pending = t.row_remap_failure = false;
  t.pcie_replays = 0;
  while (written < bytes) {
    const std::size_t i = g.samples;
    s.round = static_cast<int>(i / cells.size()) + 1;
    s.cell = cells[i % cells.size()];
    s.t_s = 5.0 * static_cast<double>(i);
    const auto whole = static_cast<long>(s.t_s);
    s.time_utc = fmt::format("2026-11-{:02}T{:02}:{:02}:{:02}.000Z", 1 + whole / 86400, whole / 3600 % 24,
                             whole / 60 % 60, whole % 60);
    s.value = 55.0 * (1 + 0.002 * static_cast<double>(static_cast<long>((i * 7919) % 11) - 5) / 5.0);
    t.gpu = 0;
    t.temperature_c = 45 + static_cast<double>(i % 13);
    s.telemetry = {t};
    if (i % 3 == 0) {
      t.gpu = 1;
      s.telemetry.push_back(t);
    }
    const std::string line = xb::soak::sample_line(s);
    if (std::fputs(line.c_str(), f) < 0) break;
    written += line.size();
    ++g.samples;
    g.last_t_s = s.t_s;
    g.rounds = s.round;
  }
  if (std::fclose(f) != 0) throw std::runtime_error("cannot write " + path);
  return g;
}

// Removes the generated file however the test ends.
struct Removed {
  std::string path;
  ~Removed() { std::remove(path.c_str()); }
};

struct Child {
  int code = -1;        // exit status; 128 + N when ended by signal N
  long max_rss_kib = 0;
};

Child wait_child(pid_t pid) {
  int status = 0;
  struct rusage ru {};
  Child c;
  if (::wait4(pid, &status, 0, &ru) != pid) return c;
  c.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  c.max_rss_kib = ru.ru_maxrss;
  return c;
}

// The real binary with `args`, stdout to /dev/null.
Child run_binary(const std::vector<std::string>& args) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, STDOUT_FILENO);
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(XFERBENCH_BINARY));
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(XFERBENCH_BINARY, argv.data());
    ::_exit(127);
  }
  return wait_child(pid);
}

// `soak --resume` in a child of this process, on the fake source, NVML and
// clocks (it measures a little): the code path of the binary, no GPU.
Child resume_in_child(const std::string& path, double until_s) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    double now = 0;
    auto nvml = std::make_shared<FakeSoakNvml>(&now);
    const InProcessRun r = run_in_process(
        {"-q", "soak", "--resume", path, "--duration", fmt::format("{:.0f}", until_s)},
        [&now](const xb::MeasureOptions&) -> std::unique_ptr<xb::SampleSource> {
          return std::make_unique<FakeSource>(1);
        },
        [&](xb::app::Context& ctx) {
          ctx.steady_s = [&now] { return now += 60; };  // every reading of the clock is a minute later
          ctx.utc_s = [&now] { return 1795000000.0 + now; };
          ctx.open_nvml = [nvml]() -> std::shared_ptr<xb::NvmlQueries> { return nvml; };
        });
    if (r.code != 0 && r.code != 1) std::fputs(r.err.c_str(), stderr);
    std::fflush(nullptr);
    ::_exit(r.code);
  }
  return wait_child(pid);
}

TEST(SoakLarge, A300MiBFileIsSummarisedComparedAndResumedInBoundedMemory) {
  const std::string path = ::testing::TempDir() + "/xb_soak_300mib_" + std::to_string(::getpid()) + ".jsonl";
  const Removed cleanup{path};
  const Generated g = write_soak_file(path, kFileBytes);
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  ASSERT_GE(static_cast<std::uint64_t>(st.st_size), kFileBytes);
  ASSERT_GT(g.samples, 400000u);

  const Child summary = run_binary({"soak", "--summary", path});
  EXPECT_EQ(summary.code, 0) << "soak --summary of a steady 300 MiB soak";
  EXPECT_LT(summary.max_rss_kib, kMaxRssKiB) << "soak --summary peak RSS (KiB)";

  const Child compare = run_binary({"compare", path, path});
  EXPECT_EQ(compare.code, 0) << "compare of a 300 MiB soak with itself";
  EXPECT_LT(compare.max_rss_kib, kMaxRssKiB) << "compare peak RSS (KiB)";

  const Child resume = resume_in_child(path, g.last_t_s + 3600);
  EXPECT_TRUE(resume.code == 0 || resume.code == 1) << "soak --resume exit " << resume.code;
  EXPECT_LT(resume.max_rss_kib, kMaxRssKiB) << "soak --resume peak RSS (KiB)";
  // The file now goes on: a resume line at its last time, then new rounds.
  const xb::soak::SoakData back = xb::soak::read_soak_data(path);
  ASSERT_EQ(back.resumed_at_s.size(), 1u);
  EXPECT_DOUBLE_EQ(back.resumed_at_s[0], g.last_t_s);
  EXPECT_GT(back.samples().size(), g.samples);
  EXPECT_GT(back.rounds(), g.rounds);
  ASSERT_TRUE(back.end);
  EXPECT_EQ(back.end->status, "completed");
  std::fprintf(stderr, "300 MiB soak, %zu samples: peak RSS summary %ld KiB, compare %ld KiB, resume %ld KiB\n",
               g.samples, summary.max_rss_kib, compare.max_rss_kib, resume.max_rss_kib);
}

}  // namespace
