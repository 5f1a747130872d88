#!/usr/bin/env python3
"""docs/design.md's Layers table against the build: usage: layers_table.py SOURCE_DIR

Fails (exit 1, one line per difference) when
  - a layer (a src/ folder added in src/CMakeLists.txt) has no row, or a row
    names no layer, or the rows are not in add_subdirectory order;
  - a row's links differ from what the layer's CMakeLists.txt links
    (xferbench_layer(NAME ... DEPS ...) and target_link_libraries(xferbench_NAME ...));
  - a layer links a layer that is not above it in the table (links go down);
  - a layer links a layer that none of its files include from.
Checks itself first on made-up text, so a parser that finds nothing fails.
"""
import os
import re
import sys

# Other libraries: the CMake link item and the short name the table uses.
LIBRARIES = {
    "fmt::fmt-header-only": "fmt",
    "nlohmann_json::nlohmann_json": "nlohmann_json",
    "Threads::Threads": "Threads",
    "CUDA::cudart_static": "cudart",
    "xferbench_numa": "libnuma",
    "${CMAKE_DL_LIBS}": "dl",
    "MPI::MPI_CXX": "MPI",
    "CLI11::CLI11": "CLI11",
}
KEYWORDS = {"PUBLIC", "PRIVATE", "INTERFACE"}


def table_rows(design):
    """[(line number, layer, layers it links, libraries)] of the table under '## Layers'."""
    lines = design.split("\n")
    start = next((i for i, l in enumerate(lines) if l.strip() == "## Layers"), None)
    if start is None:
        raise ValueError("docs/design.md has no '## Layers' section")
    rows = []
    for i in range(start + 1, len(lines)):
        line = lines[i]
        if line.startswith("## "):
            break
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.startswith("|") else []
        if len(cells) != 3 or cells[0] in ("layer", "") or set(cells[0]) <= set("-: "):
            continue
        links = cells[2]
        libs = re.search(r"\(([^)]*)\)\s*$", links)
        layer_part = links[:libs.start()] if libs else links
        rows.append((i + 1, cells[0],
                     [x.strip() for x in layer_part.split(",") if x.strip()],
                     [x.strip() for x in libs.group(1).split(",")] if libs else []))
    return rows


def calls(text, command):
    """The argument lists of every `command(...)` in a CMake text, comments removed."""
    text = re.sub(r"#[^\n]*", "", text)
    out = []
    for m in re.finditer(r"\b" + command + r"\s*\(", text):
        depth, i = 1, m.end()
        while depth and i < len(text):
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
        out.append(text[m.end():i - 1].split())
    return out


def cmake_links(name, text):
    """What layer NAME's CMakeLists.txt links: the DEPS of xferbench_layer and
    every target_link_libraries of xferbench_NAME."""
    items = []
    for args in calls(text, "xferbench_layer"):
        if args and args[0] == name and "DEPS" in args:
            rest = args[args.index("DEPS") + 1:]
            items += rest[:next((k for k, a in enumerate(rest) if a in ("SOURCES",)), len(rest))]
    for args in calls(text, "target_link_libraries"):
        if args and args[0] == "xferbench_" + name:
            items += [a for a in args[1:] if a not in KEYWORDS]
    return items


def split_links(items, layers, where):
    """CMake link items into (layers, short library names); unknown items are errors."""
    got_layers, got_libs, errors = [], [], []
    for item in items:
        if item.startswith("xferbench_") and item[len("xferbench_"):] in layers:
            got_layers.append(item[len("xferbench_"):])
        elif item in LIBRARIES:
            got_libs.append(LIBRARIES[item])
        else:
            errors.append(f"{where}: links {item}, which tests/layers_table.py has no short name for (add it to LIBRARIES)")
    return got_layers, got_libs, errors


def compare(design, order, cmake, includes):
    """Every difference, one line each. order: the layers in add_subdirectory order;
    cmake: layer -> its CMakeLists.txt text; includes: layer -> set of layers its files include from."""
    errors = []
    rows = table_rows(design)
    if not rows:
        return ["docs/design.md: no rows found in the Layers table"]
    by_name = {r[1]: r for r in rows}
    for layer in order:
        if layer not in by_name:
            errors.append(f"docs/design.md Layers table: no row for layer '{layer}' (src/{layer}/CMakeLists.txt)")
    for line, layer, _, _ in rows:
        if layer not in order:
            errors.append(f"docs/design.md:{line}: row '{layer}' is no layer of src/CMakeLists.txt")
    table_order = [r[1] for r in rows if r[1] in order]
    wanted = [l for l in order if l in by_name]
    if table_order != wanted:
        errors.append(f"docs/design.md Layers table: rows in the order {', '.join(table_order)}; "
                      f"src/CMakeLists.txt adds them as {', '.join(wanted)}")
    for line, layer, doc_layers, doc_libs in rows:
        if layer not in order:
            continue
        where = f"src/{layer}/CMakeLists.txt"
        got_layers, got_libs, errs = split_links(cmake_links(layer, cmake[layer]), set(order), where)
        errors += errs
        for kind, doc, got in (("layers", doc_layers, got_layers), ("libraries", doc_libs, got_libs)):
            if sorted(doc) != sorted(got):
                errors.append(f"docs/design.md:{line}: row '{layer}' says it links {kind} {', '.join(doc) or 'none'}; "
                              f"{where} links {', '.join(got) or 'none'} "
                              f"(only in the table: {', '.join(sorted(set(doc) - set(got))) or '-'}; "
                              f"only in CMake: {', '.join(sorted(set(got) - set(doc))) or '-'})")
        for dep in got_layers:
            if dep in order and order.index(dep) >= order.index(layer):
                errors.append(f"{where}: layer '{layer}' links '{dep}', which is not below it")
            if dep not in includes.get(layer, set()):
                errors.append(f"{where}: layer '{layer}' links '{dep}', but none of its files includes from {dep}/")
    return errors


SELF_DESIGN = """# x
## Layers

| layer | what it holds | links |
|---|---|---|
| base | errors | (fmt) |
| kernels | kernels | base |
| app | the command line | base, kernels (CLI11) |

## Next
"""
SELF_CMAKE = {
    "base": "xferbench_layer(base SOURCES a.cpp DEPS fmt::fmt-header-only)",
    "kernels": "xferbench_layer(kernels SOURCES k.cu DEPS xferbench_base)\n# DEPS xferbench_app (a comment)",
    "app": "xferbench_layer(app\n  SOURCES m.cpp\n  DEPS xferbench_kernels CLI11::CLI11)\n"
           "if(MPI)\n  target_link_libraries(xferbench_app PUBLIC MPI::MPI_CXX)\nendif()",
}


def self_test():
    order = ["base", "kernels", "app"]
    inc = {"kernels": {"base"}, "app": {"kernels"}}
    got = compare(SELF_DESIGN, order, SELF_CMAKE, inc)
    expected = [
        "docs/design.md:8: row 'app' says it links layers base, kernels; src/app/CMakeLists.txt links kernels "
        "(only in the table: base; only in CMake: -)",
        "docs/design.md:8: row 'app' says it links libraries CLI11; src/app/CMakeLists.txt links CLI11, MPI "
        "(only in the table: -; only in CMake: MPI)",
    ]
    if got != expected:
        return ["self-test: expected", *expected, "got", *got]
    fixed = SELF_DESIGN.replace("| base, kernels (CLI11) |", "| kernels (CLI11, MPI) |")
    if compare(fixed, order, SELF_CMAKE, inc):
        return ["self-test: a table that matches was refused: " + "; ".join(compare(fixed, order, SELF_CMAKE, inc))]
    if not compare(fixed, order, SELF_CMAKE, {"kernels": {"base"}, "app": set()}):
        return ["self-test: a link to a layer no file includes from was not caught"]
    return []


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().split("\n")[0], file=sys.stderr)
        return 2
    errors = self_test()
    if errors:
        print("\n".join(errors))
        return 1
    src = os.path.join(sys.argv[1], "src")
    with open(os.path.join(src, "CMakeLists.txt")) as f:
        order = [a[0] for a in calls(f.read(), "add_subdirectory")]
    cmake, includes = {}, {}
    for layer in order:
        with open(os.path.join(src, layer, "CMakeLists.txt")) as f:
            cmake[layer] = f.read()
        includes[layer] = set()
        for name in os.listdir(os.path.join(src, layer)):
            if name.endswith((".cpp", ".hpp", ".cu", ".cuh", ".h", ".in")):
                with open(os.path.join(src, layer, name), errors="replace") as f:
                    includes[layer] |= set(re.findall(r'^\s*#\s*include\s+"(\w+)/', f.read(), re.M))
    with open(os.path.join(sys.argv[1], "docs", "design.md")) as f:
        errors = compare(f.read(), order, cmake, includes)
    if errors:
        print("\n".join(errors))
        return 1
    print(f"docs/design.md's Layers table matches the link lines of {len(order)} layers")
    return 0


if __name__ == "__main__":
    sys.exit(main())
