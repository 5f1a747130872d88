#!/usr/bin/env python3
"""Cell-by-cell comparison of nvbandwidth and xferbench runs made on the same
machine: nvbandwidth's text output (NVB*.txt) and xferbench's run JSON
(XB*.json) or its text under the name nvbandwidth (XB*.txt). For every case both ran, every cell: nvbandwidth's median over
its runs, xferbench's median over its runs, the ratio, and each tool's
run-to-run spread (max/min - 1). Matrices are paired in order (nvbandwidth
prints its bidirectional D2D matrices in the order xferbench keeps them).

usage: compare_nvbandwidth.py --nvb NVB1.txt [NVB2.txt ...] --xb XB1.json [XB2.json ...]
"""
import argparse
import json
import re
import statistics

ROW = re.compile(r"^\s*(\d+)((?:\s+(?:[-+]?\d+(?:\.\d+)?|N/A))+)\s*$")


def parse_nvbandwidth(path):
    """{case: [matrix, ...]} with matrix = {(row, col): value}."""
    cases, case, matrix, header = {}, None, None, False
    for line in open(path, errors="replace"):
        line = line.rstrip("\n")
        m = re.match(r"^Running (\S+)\.$", line)
        if m:
            case = m.group(1)
            cases[case] = []
            matrix = None
            continue
        if case is None:
            continue
        if re.search(r"\(row\).*\(column\)", line):
            matrix = {}
            cases[case].append(matrix)
            header = True
            continue
        if matrix is not None and header and re.match(r"^\s*\d+(\s+\d+)*\s*$", line):
            header = False  # the column-index line: 0 1 2 ...
            continue
        r = ROW.match(line)
        if r and matrix is not None:
            for col, tok in enumerate(r.group(2).split()):
                if tok != "N/A":
                    matrix[(int(r.group(1)), col)] = float(tok)
    return cases


def parse_xferbench(path):
    if path.endswith(".txt"):  # the `nvbandwidth` link's output: nvbandwidth's own layout
        return parse_nvbandwidth(path), None, {}
    doc = json.load(open(path))
    cases = {}
    for c in doc["cases"]:
        mats = []
        for m in c.get("matrices", []):
            unit = "ns" if m.get("metric") == "latency_ns" else "gbps"
            mats.append({(cell["row"], cell["col"]): cell["value_" + unit] for cell in m["cells"]
                         if not cell.get("invalid")})
        cases[c["name"]] = mats
    return cases, doc.get("wall_seconds"), doc.get("stability", {})


def spread(values):
    return max(values) / min(values) - 1 if values and min(values) > 0 else float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nvb", nargs="+", required=True)
    ap.add_argument("--xb", nargs="+", required=True)
    a = ap.parse_args()
    nvb = [parse_nvbandwidth(p) for p in a.nvb]
    xbs = [parse_xferbench(p) for p in a.xb]
    xb = [x[0] for x in xbs]
    print(f"# nvbandwidth runs: {len(nvb)}, xferbench runs: {len(xb)}; "
          f"xferbench wall s: {', '.join('%.1f' % x[1] for x in xbs if x[1] is not None)}")
    for i, (_, _, st) in enumerate(xbs):
        if st.get("checked"):
            refs = ", ".join(f"{r['label']} {r['drift_pct']:+.2f}%" for r in st.get("references", []))
            print(f"# xferbench run {i + 1} drift check: {refs}; stable={st.get('stable')}")
    print(f"{'case':50} {'cell':>9} {'nvbandwidth':>12} {'xferbench':>10} {'ratio':>7} {'nvb spread':>10} {'xb spread':>9}")
    ratios, worst = [], []
    for case in nvb[0]:
        if case not in xb[0]:
            continue
        for mi, nmat in enumerate(nvb[0][case]):
            if mi >= len(xb[0][case]):
                continue
            for key in sorted(nmat):
                nv = [r[case][mi][key] for r in nvb if case in r and mi < len(r[case]) and key in r[case][mi]]
                xv = [r[case][mi][key] for r in xb if case in r and mi < len(r[case]) and key in r[case][mi]]
                if not nv or not xv:
                    continue
                n, x = statistics.median(nv), statistics.median(xv)
                latency = "latency" in case
                ratio = (n / x if latency else x / n) if n and x else float("nan")  # > 1: xferbench better
                ratios.append(ratio)
                worst.append((ratio, case, mi, key))
                print(f"{case:50} {mi}:{key[0]},{key[1]:>3} {n:12.2f} {x:10.2f} {ratio:7.3f} {spread(nv) * 100:9.2f}% "
                      f"{spread(xv) * 100:8.2f}%")
    if ratios:
        print(f"# {len(ratios)} cells; median ratio (xferbench/nvbandwidth, latency inverted) "
              f"{statistics.median(ratios):.4f}; within 2%: {sum(abs(r - 1) <= 0.02 for r in ratios)}")
        for r, case, mi, key in sorted(worst)[:5]:
            print(f"# lowest: {case} matrix {mi} cell {key}: {r:.3f}")


if __name__ == "__main__":
    main()
