#!/usr/bin/env bash
# Builds the libFuzzer target for the --do spec grammar into build-fuzz/.
# Needs clang++ with libFuzzer (Debian: clang-14). Run from anywhere.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p build-fuzz
"${CXX:-clang++}" -g -O1 -std=c++17 -fsanitize=fuzzer,address,undefined \
  -fno-sanitize-recover=undefined -DFMT_HEADER_ONLY -Isrc \
  fuzz/fuzz_spec.cpp src/frontends/spec.cpp src/base/units.cpp src/base/error.cpp src/base/model.cpp \
  -o build-fuzz/fuzz_spec
echo "built build-fuzz/fuzz_spec"
