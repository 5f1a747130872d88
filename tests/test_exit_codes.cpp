// The exit-code table (src/app/exit_codes.cpp) against what users read:
// every command's --help lists exactly its codes with their meanings, the
// codes a command must have follow from its options, every code the
// program can return is in the table, and the README's "Exit codes" table
// has the same rows, meanings and commands.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "app/exit_codes.hpp"
#include "app/seed_names.hpp"
#include "cli_parse.hpp"
#include "base/error.hpp"
#include "base/stop.hpp"

namespace {

using CodeLines = std::vector<std::pair<int, std::string>>;

std::unique_ptr<CLI::App> full_app(xb::app::Context& ctx) {
  auto app = xb::app::make_app(ctx);
#ifdef XB_TEST_MPI_COMMANDS
  xb::app::add_pingpong_command(*app, ctx);
  xb::app::add_fabric_command(*app, ctx);
  xb::app::add_first_touch_command(*app, ctx);
#endif
  return app;
}

// What `COMMAND --help` prints; "xferbench" is the root's help.
std::string help_of(const std::string& command) {
  std::ostringstream out, err;
  xb::app::Context ctx;
  if (command == "nvbandwidth" || command == "bwtest") {
    const auto tool = xb::app::seed_tool_of(command);
    EXPECT_EQ(xb::app::run_seed_front_end(tool, ctx, {"--help"}, out, err), 0) << err.str();
    return out.str();
  }
  auto app = full_app(ctx);
  std::vector<std::string> args = {"--help"};
  if (command != "xferbench") args.insert(args.begin(), command);
  EXPECT_EQ(xb::app::parse_args(*app, ctx, args, out, err), 0) << command << ": " << err.str();
  return out.str();
}

// The code lines after the "Exit codes" header: "  CODE meaning", with
// indented continuation lines joined to the meaning.
CodeLines footer_codes(const std::string& help) {
  CodeLines out;
  const auto at = help.find("Exit codes: (");
  if (at == std::string::npos) return out;
  std::istringstream lines(help.substr(at));
  std::string line;
  std::getline(lines, line);  // the header
  const std::regex code_line(R"(^  (\d+) +(.*)$)"), more(R"(^       +(\S.*)$)");
  std::smatch m;
  while (std::getline(lines, line)) {
    if (std::regex_match(line, m, code_line)) out.emplace_back(std::stoi(m[1]), m[2]);
    else if (!out.empty() && std::regex_match(line, m, more)) out.back().second += " " + m[1].str();
    else break;
  }
  return out;
}

bool lists(const CodeLines& lines, int code) {
  return std::any_of(lines.begin(), lines.end(), [code](const auto& l) { return l.first == code; });
}

TEST(ExitCodes, EveryHelpListsItsCommandsCodesAndMeanings) {
  std::vector<std::string> commands = xb::app::exit_code_commands();
  commands.push_back("xferbench");
  for (const std::string& c : commands) {
#ifndef XB_TEST_MPI_COMMANDS
    if (c == "pingpong" || c == "first-touch" || c == "fabric") continue;  // not built without MPI
#endif
    const CodeLines want = xb::app::exit_codes_of(c);
    ASSERT_FALSE(want.empty()) << c;
    EXPECT_EQ(footer_codes(help_of(c)), want) << c << "'s --help:\n" << help_of(c);
  }
}

TEST(ExitCodes, FooterParserSeesADifference) {
  const CodeLines lines = footer_codes("Usage\nExit codes: (x)\n  0    ok\n  2    bad\n       input\nafter\n  9    no\n");
  EXPECT_EQ(lines, (CodeLines{{0, "ok"}, {2, "bad input"}}));
  EXPECT_TRUE(footer_codes("no footer").empty());
}

// A command's options say which codes it must list, whatever the table says.
TEST(ExitCodes, OptionsImplyCodes) {
  xb::app::Context ctx;
  auto app = full_app(ctx);
  const std::vector<std::string>& known = xb::app::exit_code_commands();
  for (const CLI::App* sub : app->get_subcommands({})) {
    const std::string name = sub->get_name();
    EXPECT_NE(std::find(known.begin(), known.end(), name), known.end()) << name << " is missing from the table";
    const CodeLines codes = xb::app::exit_codes_of(name);
    for (int always : {0, 2, 7, 70}) EXPECT_TRUE(lists(codes, always)) << name << " lacks " << always;
    const auto has = [sub](const char* opt) {
      try {
        return sub->get_option(opt) != nullptr;
      } catch (const CLI::OptionNotFound&) {
        return false;
      }
    };
    if (has("--time-limit")) {
      for (int code : {10, 130, 143}) EXPECT_TRUE(lists(codes, code)) << name << " has --time-limit, lacks " << code;
    }
    for (const char* input : {"--resume", "--spec", "--baseline", "--judge", "--topology"}) {
      if (!has(input)) continue;
      const auto two = std::find_if(codes.begin(), codes.end(), [](const auto& l) { return l.first == 2; });
      ASSERT_NE(two, codes.end());
      EXPECT_NE(two->second.find(input), std::string::npos) << name << ": 2 does not name its input " << input;
    }
  }
}

TEST(ExitCodes, EveryCodeTheProgramReturnsIsInTheTable) {
  std::set<int> table;
  for (const auto& row : xb::app::exit_code_table()) table.insert(row.code);
  using K = xb::ErrorKind;
  for (K k : {K::usage, K::no_device, K::resources, K::nvml, K::cuda, K::timeout, K::verification, K::comm, K::io,
              K::internal})
    EXPECT_EQ(table.count(xb::exit_code(k)), 1u) << xb::to_string(k);
  using S = xb::StopReason;
  for (S s : {S::none, S::sigint, S::sigterm, S::time_limit, S::memory, S::gpu_unusable})
    EXPECT_EQ(table.count(xb::stop_exit_code(s)), 1u) << xb::stop_exit_code(s);
  EXPECT_EQ(xb::exit_code(K::usage), 2);
  EXPECT_EQ(xb::exit_code(K::io), 7);
}

struct ReadmeRow {
  int code;
  std::string meaning, commands;
};

std::string strip_backticks(std::string s) {
  s.erase(std::remove(s.begin(), s.end(), '`'), s.end());
  return s;
}

std::vector<ReadmeRow> readme_rows(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line) && line != "### Exit codes") {
  }
  std::vector<ReadmeRow> rows;
  const std::regex row(R"(^\| (\d+) \| (.*) \| (.*) \|$)");
  std::smatch m;
  while (std::getline(in, line) && line.rfind("#", 0) != 0)
    if (std::regex_match(line, m, row)) rows.push_back({std::stoi(m[1]), strip_backticks(m[2]), m[3]});
  return rows;
}

TEST(ExitCodes, ReadmeTableIsTheTable) {
  const std::vector<ReadmeRow> readme = readme_rows(std::string(XFERBENCH_SOURCE_DIR) + "/README.md");
  const auto& table = xb::app::exit_code_table();
  ASSERT_EQ(readme.size(), table.size()) << "README.md's '### Exit codes' table";
  for (std::size_t i = 0; i < table.size(); ++i) {
    EXPECT_EQ(readme[i].code, table[i].code);
    EXPECT_EQ(readme[i].meaning, table[i].meaning) << "code " << table[i].code;
    EXPECT_EQ(readme[i].commands, xb::app::exit_code_commands_cell(table[i])) << "code " << table[i].code;
  }
}

// The parser above must see a wrong README: a changed meaning, a missing row.
TEST(ExitCodes, ReadmeParserSeesADifference) {
  const std::string path = ::testing::TempDir() + "/exit_codes_readme.md";
  {
    std::ofstream out(path);
    out << "### Exit codes\n\n| code | meaning | commands |\n|---|---|---|\n"
        << "| 0 | `success` | every command |\n| 2 | bad arguments | every command |\n\n## Next\n| 9 | x | y |\n";
  }
  const std::vector<ReadmeRow> rows = readme_rows(path);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].meaning, "success");
  EXPECT_NE(rows[1].meaning, xb::app::exit_code_table()[2].meaning);
  std::remove(path.c_str());
}

// Docs name codes in prose ("exit 2", "exits 10", "(exit 7)") and in
// "| exit |" table columns: each must be a code of the table.
TEST(ExitCodes, DocsNameOnlyCodesOfTheTable) {
  std::set<int> table;
  for (const auto& row : xb::app::exit_code_table()) table.insert(row.code);
  const std::regex prose(R"(\bexit(?:s| with| code| status)?(?: code)? (\d+)\b)", std::regex::icase);
  const std::regex table_row(R"(^\|[^|]*\| ([0-9][0-9 /,]*) \|)"), number(R"(\d+)");
  const std::string dir = std::string(XFERBENCH_SOURCE_DIR) + "/docs/";
  std::vector<std::string> docs = {"../README.md"};  // and every page of docs/, new ones included
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".md") docs.push_back(e.path().filename().string());
  ASSERT_GE(docs.size(), 16U);
  for (const std::string& doc : docs) {
    std::ifstream in(dir + doc);
    ASSERT_TRUE(in) << dir + doc;
    std::string line;
    bool exit_column = false;  // inside a table whose second column is "exit"
    for (int n = 1; std::getline(in, line); ++n) {
      if (line.rfind("|", 0) != 0) exit_column = false;
      if (std::regex_search(line, std::regex(R"(^\| [^|]+ \| exit \|)"))) exit_column = true;
      for (std::sregex_iterator it(line.begin(), line.end(), prose), end; it != end; ++it)
        EXPECT_EQ(table.count(std::stoi((*it)[1])), 1u) << doc << ":" << n << ": " << line;
      std::smatch m;
      if (!exit_column || !std::regex_search(line, m, table_row)) continue;
      for (std::sregex_iterator it(line.begin() + m.position(1), line.begin() + m.position(1) + m.length(1),
                                   number);
           it != std::sregex_iterator(); ++it)
        EXPECT_EQ(table.count(std::stoi(it->str())), 1u) << doc << ":" << n << ": " << line;
    }
  }
}

}  // namespace
