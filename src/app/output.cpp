#include "app/output.hpp"

#include "app/validators.hpp"
#include "report/output_file.hpp"

namespace xb::app {

bool OutputOptions::file_is_csv() const {
  return file.size() >= 4 && file.compare(file.size() - 4, 4, ".csv") == 0;
}

void add_output_options(CLI::App& cmd, OutputOptions& out, bool allow_csv,
                        const std::vector<std::string>& extra_formats) {
  std::vector<std::string> formats = {"text", "json"};
  if (allow_csv) formats.push_back("csv");
  formats.insert(formats.end(), extra_formats.begin(), extra_formats.end());
  cmd.add_option("--format", out.format, "Format on stdout")->check(CLI::IsMember(formats))->capture_default_str();
  cmd.add_flag_callback("-j,--json", [&out]() { out.format = "json"; }, "Same as --format json");
  cmd.add_option("-o,--output", out.file,
                 allow_csv ? "Also write results to FILE: CSV if it ends in .csv, JSON otherwise"
                           : "Also write results as JSON to FILE")
      ->check(non_empty("-o/--output"));
}

void check_output_writable(const OutputOptions& out) {
  if (!out.file.empty()) report::check_output_file(out.file);
}

}  // namespace xb::app
