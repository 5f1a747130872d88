#!/usr/bin/env python3
"""Fails when a function in the source tree is longer than the house limit.

Usage: function_lengths.py SRC_DIR [LIMIT]

Lengths are lizard's (lines from the signature to the closing brace), over
every C++ and CUDA file under SRC_DIR (CUDA files are read as C++).
"""
import pathlib
import sys

LIMIT_DEFAULT = 60
# Functions allowed over the limit, by lizard's name and file (none now);
# the test fails once an entry is stale (the function gone or within the
# limit), so the list cannot outlive its reason.
EXEMPT = set()


def main(argv):
    if len(argv) not in (2, 3):
        print("usage: function_lengths.py SRC_DIR [LIMIT]", file=sys.stderr)
        return 2
    try:
        import lizard
    except ImportError:
        print("function_lengths: lizard is not installed for %s: run scripts/setup --tests "
              "(python3 -m pip install lizard)" % sys.executable, file=sys.stderr)
        return 1
    root = pathlib.Path(argv[1])
    limit = int(argv[2]) if len(argv) == 3 else LIMIT_DEFAULT
    files = sorted(p for p in root.rglob("*") if p.suffix in (".cpp", ".hpp", ".cu", ".cuh", ".h"))
    if not files:
        print("function_lengths: no source files under %s" % root, file=sys.stderr)
        return 1
    over, seen, count = [], set(), 0
    for path in files:
        rel = path.relative_to(root).as_posix()
        # lizard picks its reader by the name: CUDA is read as C++.
        name = str(path) + ".cpp" if path.suffix in (".cu", ".cuh") else str(path)
        info = lizard.analyze_file.analyze_source_code(name, path.read_text(encoding="utf-8"))
        for fn in info.function_list:
            count += 1
            key = (fn.name, rel)
            if fn.length <= limit:
                continue
            if key in EXEMPT:
                seen.add(key)
                continue
            over.append("%s:%d: %s is %d lines (limit %d)" % (rel, fn.start_line, fn.name, fn.length, limit))
    stale = sorted(EXEMPT - seen)
    for line in over:
        print(line)
    for fn, rel in stale:
        print("%s: %s is no longer over %d lines (or gone): remove it from EXEMPT in %s" % (rel, fn, limit, __file__))
    if over or stale:
        return 1
    print("function_lengths: %d functions in %d files, none over %d lines (%d exempt)" % (count, len(files), limit,
                                                                                          len(seen)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
