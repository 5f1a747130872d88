// The first-touch command line through the real CLI11 app: the seed's
// positional form, the sweep option with and without a list, and bad
// values rejected with exit code 2 before MPI or any GPU starts (the
// action is never set).
#include <gtest/gtest.h>

#include <sstream>

#include "app/cli.hpp"
#include "app/command.hpp"

namespace xb::app {
namespace {

struct Parsed {
  int code = -1;  // parse_args' result: -1 means "run the action"
  bool has_action = false;
  std::string err;
};

Parsed parse(std::vector<std::string> args) {
  Context ctx;
  ctx.argv = {"xferbench"};
  auto app = make_app(ctx);
  add_first_touch_command(*app, ctx);
  std::ostringstream out, err;
  Parsed p;
  p.code = parse_args(*app, ctx, std::move(args), out, err);
  p.has_action = static_cast<bool>(ctx.action);
  p.err = err.str();
  return p;
}

TEST(FirstTouchCli, TheSeedsFormAndTheSweepFormsParse) {
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"first-touch", "5", "3", "1024", "1073741824", "1"},
           {"first-touch", "5", "3", "1K", "1G", "64K", "--transport", "nccl", "-o", "ft.json"},
           {"first-touch", "5", "3", "1K", "1G", "--sweep-overalloc"},
           {"first-touch", "5", "3", "1K", "1G", "--sweep-overalloc=0,1,2M", "--buffer-sizes", "256M,1G"},
           {"first-touch", "--host", "5", "3", "1K", "1G", "1", "--format", "csv"}}) {
    const Parsed p = parse(args);
    EXPECT_EQ(p.code, -1) << args.back() << ": " << p.err;
    EXPECT_TRUE(p.has_action) << args.back();
  }
}

TEST(FirstTouchCli, BadValuesExitWithUsageBeforeAnythingRuns) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"first-touch", "0", "3", "1K", "1G", "1"}, "ITERATIONS must be between 1 and 1000000, got 0"},
      {{"first-touch", "5", "-1", "1K", "1G", "1"}, "SUB_ITERATIONS must be a positive whole number, got '-1'"},
      {{"first-touch", "5", "3", "2G", "1G", "1"}, "P2P_SIZE 2147483648 is larger than the buffer size 1073741824"},
      {{"first-touch", "5", "3", "1K", "1G"}, "got 4 value(s)"},
      {{"first-touch", "5", "3", "1K", "1G", "1", "--transport", "tcp"}, "invalid transport 'tcp'"},
      {{"first-touch", "5", "3", "1K", "1G", "1", "--format", "xml"}, "--format"},
      // "" read as "not given": the BUFFER_SIZE value was used instead.
      {{"first-touch", "5", "3", "1K", "1G", "1", "--buffer-sizes", ""}, "invalid --buffer-sizes '': the value is empty"},
      {{"first-touch", "5", "3", "1K", "1G", "1", "--time-limit", ""}, "invalid --time-limit ''"},
  };
  for (const auto& [args, message] : cases) {
    const Parsed p = parse(args);
    EXPECT_EQ(p.code, 2) << message;
    EXPECT_FALSE(p.has_action) << message;
    EXPECT_NE(p.err.find(message), std::string::npos) << p.err;
  }
}

}  // namespace
}  // namespace xb::app
