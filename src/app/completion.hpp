// Shell completion made from the command table (completion.cpp).
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace xb::app {

// The bash completion script for `app` and its visible subcommands: each
// command's options, the choices of options checked against a list, file
// names for other text values and positional arguments, nothing for numbers.
std::string bash_completion(const CLI::App& app);

}  // namespace xb::app
