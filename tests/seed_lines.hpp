// Reading the command lines out of the seed tools' READMEs: which lines
// run the tool, the shell words of such a line (with the $((...))
// arithmetic the READMEs use for sizes), and the launcher in front of the
// program. Test support only; no shell is started.
#pragma once

#include <cctype>
#include <cstdint>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace seed_lines {

inline std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

inline std::string base_name(const std::string& word) {
  const auto slash = word.rfind('/');
  return slash == std::string::npos ? word : word.substr(slash + 1);
}

inline std::vector<std::string> split_blanks(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// Every line of the file that names `program` as a word (by its last path
// component, so "./bwtest" and "$PWD/gpudirect_p2p_overalloc" count, the
// source file "gpudirect_p2p_overalloc.cpp" does not; "%./cuts" does),
// trimmed.
inline std::vector<std::string> lines_naming(const std::string& file, const std::string& program) {
  std::ifstream in(file);
  if (!in) throw std::runtime_error("cannot read " + file);
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) {
    for (const std::string& w : split_blanks(line)) {
      if (base_name(w) == program) {
        out.push_back(trim(line));
        break;
      }
    }
  }
  return out;
}

// Integer $((...)) arithmetic as the READMEs use it: numbers, * + - << and
// parentheses, with the shell's precedence (* over + - over <<).
class Arithmetic {
 public:
  explicit Arithmetic(std::string text) : s_(std::move(text)) {}
  std::int64_t value() {
    const std::int64_t v = shift();
    skip();
    if (i_ != s_.size()) throw std::runtime_error("bad arithmetic: " + s_);
    return v;
  }

 private:
  void skip() {
    while (i_ < s_.size() && s_[i_] == ' ') ++i_;
  }
  bool eat(const std::string& op) {
    skip();
    if (s_.compare(i_, op.size(), op) != 0) return false;
    i_ += op.size();
    return true;
  }
  std::int64_t shift() {
    std::int64_t v = sum();
    while (eat("<<")) v <<= sum();
    return v;
  }
  std::int64_t sum() {
    std::int64_t v = product();
    for (;;) {
      if (eat("+")) {
        v += product();
      } else if (eat("-")) {
        v -= product();
      } else {
        return v;
      }
    }
  }
  std::int64_t product() {
    std::int64_t v = atom();
    while (eat("*")) v *= atom();
    return v;
  }
  std::int64_t atom() {
    if (eat("(")) {
      const std::int64_t v = shift();
      if (!eat(")")) throw std::runtime_error("bad arithmetic: " + s_);
      return v;
    }
    skip();
    const std::size_t start = i_;
    while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
    if (start == i_) throw std::runtime_error("bad arithmetic: " + s_);
    return std::stoll(s_.substr(start, i_ - start));
  }
  std::string s_;
  std::size_t i_ = 0;
};

// The text after "$((" up to its matching "))", evaluated; `i` moves past it.
inline std::string expand_arithmetic(const std::string& s, std::size_t& i) {
  int depth = 0;
  std::size_t j = i + 3;
  for (; j + 1 < s.size(); ++j) {
    if (s[j] == '(') ++depth;
    if (s[j] == ')' && depth > 0) --depth;
    else if (s[j] == ')' && s[j + 1] == ')') break;
  }
  if (j + 1 >= s.size()) throw std::runtime_error("unterminated $(( in: " + s);
  const std::string value = std::to_string(Arithmetic(s.substr(i + 3, j - i - 3)).value());
  i = j + 2;
  return value;
}

// Shell words: blanks separate, '...' and "..." quote, $((...)) is
// evaluated, $NAME stays as typed (it only appears in program paths).
inline std::vector<std::string> shell_words(const std::string& s) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  for (std::size_t i = 0; i < s.size();) {
    const char c = s[i];
    if (c == ' ' || c == '\t') {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
      ++i;
    } else if (c == '\'' || c == '"') {
      const std::size_t end = s.find(c, i + 1);
      if (end == std::string::npos) throw std::runtime_error("unterminated quote in: " + s);
      word += s.substr(i + 1, end - i - 1);
      in_word = true;
      i = end + 1;
    } else if (s.compare(i, 3, "$((") == 0) {
      word += expand_arithmetic(s, i);
      in_word = true;
    } else {
      word += c;
      in_word = true;
      ++i;
    }
  }
  if (in_word) words.push_back(word);
  return words;
}

// A README command line split at the program: the prompt ("$ ", "% ",
// "user@host:dir$ ") is dropped, `launcher` holds the words before the
// program (environment settings, mpiexec/srun and their options,
// "python"), `args` the program's own arguments.
struct CommandLine {
  std::vector<std::string> launcher;
  std::vector<std::string> args;
};

inline CommandLine split_command(const std::string& line, const std::string& program) {
  static const std::regex prompt(R"(^(\S*\$|%)\s*)");
  std::vector<std::string> words = shell_words(std::regex_replace(line, prompt, ""));
  CommandLine out;
  std::size_t i = 0;
  while (i < words.size() && base_name(words[i]) != program) out.launcher.push_back(words[i++]);
  if (i == words.size()) throw std::runtime_error("no '" + program + "' in: " + line);
  out.args.assign(words.begin() + static_cast<std::ptrdiff_t>(i) + 1, words.end());
  return out;
}

// Processes the launcher starts ("-np 2" or "-n 2"), 1 without a launcher.
inline int launched_processes(const std::vector<std::string>& launcher) {
  for (std::size_t i = 0; i + 1 < launcher.size(); ++i)
    if (launcher[i] == "-np" || launcher[i] == "-n") return std::stoi(launcher[i + 1]);
  return 1;
}

}  // namespace seed_lines
