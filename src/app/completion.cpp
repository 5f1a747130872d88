// The bash completion script, generated from the command table itself (the
// CLI11 app main() builds: every subcommand, option and choice), so a new
// command or option is completed without anyone editing a script.
// `xferbench --bash-completion` prints it; the build writes it for the
// package (cmake/OperatorFiles.cmake); tests/bash_completion.sh runs it.
#include "app/completion.hpp"

#include <algorithm>
#include <sstream>

#include <fmt/format.h>

namespace xb::app {
namespace {

// A visible option's names with their dashes ("-o", "--output").
std::vector<std::string> names_of(const CLI::Option& o) {
  std::vector<std::string> out;
  for (const std::string& s : o.get_snames()) out.push_back("-" + s);
  for (const std::string& l : o.get_lnames()) out.push_back("--" + l);
  return out;
}

// The choices of an option checked by CLI::IsMember: its type name reads
// "TEXT:{a,b,c}". Empty when it has none.
std::vector<std::string> choices_of(const CLI::Option& o) {
  const std::string type = o.get_type_name();
  const auto open = type.find('{'), close = type.rfind('}');
  std::vector<std::string> out;
  if (open == std::string::npos || close == std::string::npos || close < open) return out;
  std::istringstream list(type.substr(open + 1, close - open - 1));
  std::string item;
  while (std::getline(list, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

bool numeric(const CLI::Option& o) {
  const std::string type = o.get_type_name();
  for (const char* t : {"INT", "UINT", "FLOAT", "NUMBER", "FLOAT:POSITIVE", "INT:POSITIVE"})
    if (type == t) return true;
  return false;
}

std::string join(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

bool visible(const CLI::Option& o) { return !o.get_group().empty(); }

// One command's lines: its words (options, and subcommands for the root),
// and what follows each option that takes a value.
void command_lines(const CLI::App& cmd, const std::string& key, std::string& words, std::string& values) {
  std::vector<std::string> all;
  if (key.empty())
    for (const CLI::App* sub : cmd.get_subcommands([](const CLI::App* s) { return !s->get_group().empty(); }))
      all.push_back(sub->get_name());
  const auto named = [](const CLI::Option* o) { return visible(*o) && !o->get_positional(); };
  for (const CLI::Option* o : cmd.get_options(named)) {
    const std::vector<std::string> names = names_of(*o);
    all.insert(all.end(), names.begin(), names.end());
    if (o->get_expected_max() == 0) continue;  // a flag
    const std::vector<std::string> choices = choices_of(*o);
    std::string reply = !choices.empty() ? fmt::format("COMPREPLY=($(compgen -W '{}' -- \"$cur\"))", join(choices))
                        : numeric(*o)   ? "COMPREPLY=()"
                                        : "COMPREPLY=($(compgen -f -- \"$cur\"))";
    for (const std::string& n : names) values += fmt::format("    '{}:{}') {}; return ;;\n", key, n, reply);
  }
  words += fmt::format("    '{}') words='{}' ;;\n", key, join(all));
}

}  // namespace

std::string bash_completion(const CLI::App& app) {
  std::string words, values, commands;
  command_lines(app, "", words, values);
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App* s) { return !s->get_group().empty(); })) {
    command_lines(*sub, sub->get_name(), words, values);
    commands += (commands.empty() ? "" : "|") + sub->get_name();
  }
  return fmt::format(
      "# bash completion for xferbench, made by 'xferbench --bash-completion' from its\n"
      "# command table: commands, options and their choices; files elsewhere.\n"
      "_xferbench() {{\n"
      "  local cur=${{COMP_WORDS[COMP_CWORD]}} prev=${{COMP_WORDS[COMP_CWORD-1]}} cmd='' words i\n"
      "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
      "    case ${{COMP_WORDS[i]}} in\n"
      "      {0}) cmd=${{COMP_WORDS[i]}}; break ;;\n"
      "    esac\n"
      "  done\n"
      "  case \"$cmd:$prev\" in\n"
      "{1}"
      "  esac\n"
      "  case \"$cmd\" in\n"
      "{2}"
      "  esac\n"
      "  if [[ $cur == -* || -z $cmd ]]; then\n"
      "    COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n"
      "  else\n"
      "    COMPREPLY=($(compgen -f -- \"$cur\"))\n"
      "  fi\n"
      "}}\n"
      "complete -o filenames -F _xferbench xferbench\n",
      commands, values, words);
}

}  // namespace xb::app
