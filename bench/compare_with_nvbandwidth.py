#!/usr/bin/env python3
"""Compares nvbandwidth's output with xferbench's, cell by cell, from runs made
on the same machine. Standard library only (it runs on the GPU machine).

  medians       NVB*.txt (nvbandwidth's text) against XB*.json (xferbench's
                run JSON) or XB*.txt (xferbench's text under the name
                nvbandwidth), any number of each: per cell of every case both
                ran, each tool's median over its runs, the ratio
                (xferbench / nvbandwidth, latency inverted: > 1 is xferbench
                better), each tool's run-to-run spread (max/min - 1) and
                whether xferbench is within 3% of nvbandwidth's median or
                inside its range; from the JSON also xferbench's own figure
                (where a cell was measured nvbandwidth's way too, the
                nvbandwidth layouts print that one) and whether a cell whose
                own figure is more than 3% apart says so; the drift check of
                each xferbench run. Matrices of a case pair in
                order (nvbandwidth prints its bidirectional D2D matrices in the
                order xferbench keeps them).
  side-by-side  one nvbandwidth text against xferbench's text as nvbandwidth
                (REAL.txt OURS.txt): one row per cell present in both (real,
                ours, ours / real, '!' beyond 2%), the SUM lines, what only
                one side printed; with REAL.json OURS.json (-j output) also
                the status and matrix shape of each test case.

bench/suites/catalogue_vs_nvbandwidth.sh and bench/suites/whole_node.sh call `medians`,
bench/suites/nvbandwidth_side_by_side.sh calls `side-by-side`. The text parser reads
both of xferbench's layouts (v0.8's and v0.10's: COEFFICIENT_OF_VARIATION and
NOTE lines are skipped); the scripts ask xferbench for v0.8's
(--nvbandwidth-version 0.8), the release they compare against, so the masked
line-by-line diffs line up.
"""
import argparse
import json
import re
import statistics

COLUMNS = re.compile(r"^\s+\d+(\s+\d+)*\s*$")  # the column-index line that opens a matrix: "   0   1"
ROW = re.compile(r"^\s*(\d+)((?:\s+(?:[-+]?\d+(?:\.\d+)?|N/A))+)\s*$")
SUM = re.compile(r"^(SUM|&&&& PERF) (\S+) (\d+\.\d+)")


def parse_text(path):
    """nvbandwidth's text layout as blocks, in print order: one per matrix,
    {"case", "cells": {(row, col): value}, "key", "sum"}; key and sum come
    from the SUM (or &&&& PERF) line that closes the matrix, None before it."""
    blocks, case, block = [], None, None
    for line in open(path, encoding="utf-8", errors="replace"):
        line = line.rstrip("\n")
        m = re.match(r"^Running (\S+)\.$", line)
        if m:
            case, block = m.group(1), None
            continue
        if case is None:
            continue
        if COLUMNS.match(line):
            block = {"case": case, "cells": {}, "key": None, "sum": None}
            blocks.append(block)
            continue
        s = SUM.match(line)
        if s and block is not None:
            block["key"], block["sum"] = s.group(2), float(s.group(3))
            block = None
            continue
        r = ROW.match(line)
        if r and block is not None:
            for col, tok in enumerate(r.group(2).split()):
                if tok != "N/A":
                    block["cells"][(int(r.group(1)), col)] = float(tok)
    return blocks


def text_cases(path):
    """{case: [matrix, ...]} with matrix = {(row, col): value}."""
    cases = {}
    for b in parse_text(path):
        cases.setdefault(b["case"], []).append(b["cells"])
    return cases


def xferbench_run(path):
    """(cases, own cases, flagged, wall seconds, drift check) of a run JSON or text.
    cases: what the nvbandwidth layouts print (a cell's nvbandwidth-way figure
    where it has one); own: xferbench's own figures; flagged: {(case, matrix,
    cell)} whose JSON says the two ways differ. A text has only the first."""
    if path.endswith(".txt"):  # the `nvbandwidth` link's output: nvbandwidth's own layout
        return text_cases(path), {}, set(), None, {}
    doc = json.load(open(path))
    cases, own, flagged = {}, {}, set()
    for c in doc["cases"]:
        mats, owns = [], []
        for mi, m in enumerate(c.get("matrices", [])):
            unit = "ns" if m.get("metric") == "latency_ns" else "gbps"
            cells = [cell for cell in m["cells"] if not cell.get("invalid") and "value_" + unit in cell]
            owns.append({(cell["row"], cell["col"]): cell["value_" + unit] for cell in cells})
            mats.append({(cell["row"], cell["col"]): (cell.get("nvbandwidth") or {}).get("value_gbps",
                                                                                          cell["value_" + unit])
                         for cell in cells})
            flagged |= {(c["name"], mi, (cell["row"], cell["col"])) for cell in cells
                        if (cell.get("nvbandwidth") or {}).get("differs")}
        cases[c["name"]], own[c["name"]] = mats, owns
    return cases, own, flagged, doc.get("wall_seconds"), doc.get("stability", {})


def spread(values):
    return max(values) / min(values) - 1 if values and min(values) > 0 else float("nan")


def values_at(runs, case, mi, key):
    return [r[case][mi][key] for r in runs if case in r and mi < len(r[case]) and key in r[case][mi]]


def agrees(nv, x, tolerance=0.03):
    """Within `tolerance` of nvbandwidth's median, or inside the range of its own runs."""
    n = statistics.median(nv)
    return abs(x / n - 1) <= tolerance or min(nv) <= x <= max(nv)


def medians(a):
    nvb = [text_cases(p) for p in a.nvb]
    xbs = [xferbench_run(p) for p in a.xb]
    xb = [x[0] for x in xbs]
    own = [x[1] for x in xbs if x[1]]
    flagged = set().union(*(x[2] for x in xbs))
    print(f"# nvbandwidth runs: {len(nvb)}, xferbench runs: {len(xb)}; "
          f"xferbench wall s: {', '.join('%.1f' % x[3] for x in xbs if x[3] is not None)}")
    for i, x in enumerate(xbs):
        st = x[4]
        if st.get("checked"):
            refs = ", ".join(f"{r['label']} {r['drift_pct']:+.2f}%" for r in st.get("references", []))
            print(f"# xferbench run {i + 1} drift check: {refs}; stable={st.get('stable')}")
    print(f"{'case':50} {'cell':>9} {'nvbandwidth':>12} {'as nvb':>9} {'ratio':>7} {'nvb spread':>10} "
          f"{'xb spread':>9} {'own':>9} {'own/nvb':>7}")
    ratios, worst, outside, own_apart = [], [], [], []
    for case in nvb[0]:
        if case not in xb[0]:
            continue
        for mi, nmat in enumerate(nvb[0][case]):
            if mi >= len(xb[0][case]):
                continue
            for key in sorted(nmat):
                nv, xv = values_at(nvb, case, mi, key), values_at(xb, case, mi, key)
                if not nv or not xv:
                    continue
                n, x = statistics.median(nv), statistics.median(xv)
                latency = "latency" in case
                ratio = (n / x if latency else x / n) if n and x else float("nan")  # > 1: xferbench better
                ratios.append(ratio)
                worst.append((ratio, case, mi, key))
                ok = agrees(nv, x)
                if not ok:
                    outside.append((ratio, case, mi, key))
                ov = values_at(own, case, mi, key)
                o = statistics.median(ov) if ov else float("nan")
                oratio = (n / o if latency else o / n) if ov and n and o else float("nan")
                if ov and abs(oratio - 1) > 0.03:
                    own_apart.append((oratio, case, mi, key, (case, mi, key) in flagged))
                print(f"{case:50} {mi}:{key[0]},{key[1]:>3} {n:12.2f} {x:9.2f} {ratio:7.3f} {spread(nv) * 100:9.2f}% "
                      f"{spread(xv) * 100:8.2f}% {o:9.2f} {oratio:7.3f}{'' if ok else '  OUTSIDE'}")
    if ratios:
        print(f"# {len(ratios)} cells; as nvbandwidth: median ratio (xferbench/nvbandwidth, latency inverted) "
              f"{statistics.median(ratios):.4f}; within 2%: {sum(abs(r - 1) <= 0.02 for r in ratios)}; within 3% "
              f"or nvbandwidth's own range: {len(ratios) - len(outside)}")
        for r, case, mi, key in sorted(outside, key=lambda w: abs(w[0] - 1), reverse=True):
            print(f"# outside: {case} matrix {mi} cell {key}: {r:.3f}")
        for r, case, mi, key in sorted(worst)[:3]:
            print(f"# lowest: {case} matrix {mi} cell {key}: {r:.3f}")
    if own:
        unflagged = [w for w in own_apart if not w[4]]
        print(f"# xferbench's own figures more than 3% from nvbandwidth's median: {len(own_apart)} cells, "
              f"{len(own_apart) - len(unflagged)} of them flagged on the cell (nvbandwidth's way measured apart)")
        for r, case, mi, key, f in sorted(own_apart, key=lambda w: abs(w[0] - 1), reverse=True):
            print(f"# own: {case} matrix {mi} cell {key}: {r:.3f}{'' if f else '  NOT FLAGGED'}")


def keyed_matrices(path):
    """{SUM key: {(row, col): value}} and {SUM key: sum}."""
    blocks = [b for b in parse_text(path) if b["key"] is not None]
    return {b["key"]: b["cells"] for b in blocks}, {b["key"]: b["sum"] for b in blocks}


def compare_text(real_path, ours_path):
    real, real_sums = keyed_matrices(real_path)
    ours, our_sums = keyed_matrices(ours_path)
    rows, within = [], 0
    print(f"{'matrix':<58} {'cell':>6} {'real':>10} {'xferbench':>10} {'ratio':>7}")
    for key in real:
        if key not in ours:
            continue
        for cell, value in sorted(real[key].items()):
            if cell not in ours[key]:
                print(f"{key:<58} {cell[0]},{cell[1]:<4} {value:>10.2f} {'N/A':>10}")
                continue
            mine = ours[key][cell]
            ratio = mine / value if value else float("nan")
            # Latency: lower is better, but the 2% rule is about agreement either way.
            flag = "" if abs(ratio - 1) <= 0.02 else " !"
            within += flag == ""
            rows.append((key, cell, value, mine, ratio))
            print(f"{key:<58} {cell[0]},{cell[1]:<4} {value:>10.2f} {mine:>10.2f} {ratio:>7.3f}{flag}")
    only_real = sorted(set(real) - set(ours))
    only_ours = sorted(set(ours) - set(real))
    print(f"\nSUM lines: real {len(real_sums)}, xferbench {len(our_sums)}")
    if only_real:
        print("matrices only in the real output: " + ", ".join(only_real))
    if only_ours:
        print("matrices only in xferbench's output: " + ", ".join(only_ours))
    worst = max(rows, key=lambda r: abs(r[4] - 1)) if rows else None
    return len(rows), within, worst


def compare_json(real_path, ours_path):
    with open(real_path) as f:
        real = json.load(f)["nvbandwidth"]
    with open(ours_path) as f:
        ours = json.load(f)["nvbandwidth"]
    ours_by_name = {t["name"]: t for t in ours.get("testcases", [])}
    same = 0
    print(f"\n{'JSON test case':<52} {'real':>9} {'xferbench':>10}  matrix rows x cols")
    for t in real.get("testcases", []):
        o = ours_by_name.get(t["name"], {})
        shape = lambda m: f"{len(m)}x{len(m[0]) if m else 0}"  # noqa: E731
        rs, os_ = shape(t.get("bandwidth_matrix", [])), shape(o.get("bandwidth_matrix", []))
        ok = t.get("status") == o.get("status") and rs == os_
        same += ok
        print(f"{t['name']:<52} {t.get('status', '-'):>9} {o.get('status', 'missing'):>10}  {rs} / {os_}"
              f"{'' if ok else '  DIFFERS'}")
    for key in ("CUDA Runtime Version", "Driver Version", "git_version", "GPU Device list"):
        print(f"{key}: real {real.get(key)!r}; xferbench {ours.get(key)!r}")
    return len(real.get("testcases", [])), same


def side_by_side(a):
    cells, within, worst = compare_text(a.real_txt, a.ours_txt)
    summary = [f"text: {cells} cells in both, {within} within 2%"]
    if worst:
        summary.append(f"largest difference: {worst[0]} [{worst[1][0]},{worst[1][1]}] real {worst[2]:.2f}, "
                       f"xferbench {worst[3]:.2f} (x{worst[4]:.3f})")
    if a.real_json:
        cases, same = compare_json(a.real_json, a.ours_json)
        summary.append(f"json: {cases} test cases, {same} with the same status and matrix shape")
    print("\n" + "\n".join(summary))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    m = sub.add_parser("medians", help="per-cell medians and spreads of repeated runs of both tools")
    m.add_argument("--nvb", nargs="+", required=True, metavar="NVB.txt", help="nvbandwidth's text output, one per run")
    m.add_argument("--xb", nargs="+", required=True, metavar="XB.json|XB.txt",
                   help="xferbench's run JSON, or its text when started as nvbandwidth, one per run")
    m.set_defaults(func=medians)
    s = sub.add_parser("side-by-side", help="one nvbandwidth output against xferbench's as nvbandwidth")
    s.add_argument("real_txt", metavar="REAL.txt", help="the real nvbandwidth's text")
    s.add_argument("ours_txt", metavar="OURS.txt", help="xferbench's text as nvbandwidth")
    s.add_argument("real_json", nargs="?", metavar="REAL.json", help="the real nvbandwidth's -j output (optional)")
    s.add_argument("ours_json", nargs="?", metavar="OURS.json", help="xferbench's -j output as nvbandwidth")
    s.set_defaults(func=side_by_side)
    a = ap.parse_args()
    if a.command == "side-by-side" and bool(a.real_json) != bool(a.ours_json):
        s.error("give both REAL.json and OURS.json, or neither")
    a.func(a)


if __name__ == "__main__":
    main()
