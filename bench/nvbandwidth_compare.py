#!/usr/bin/env python3
"""Compares the real nvbandwidth's output with xferbench's run as nvbandwidth.

usage: nvbandwidth_compare.py REAL.txt OURS.txt [REAL.json OURS.json]

Prints one row per matrix cell present in both texts (real value, ours,
ours / real, '!' beyond 2%), the SUM lines, what only one side printed, and
for the JSON the status and matrix shape of each test case. Standard library
only (it runs on the GPU machine).
"""
import json
import re
import sys

HEADER = re.compile(r"^(memcpy|memory latency|Device to Device Latency)")
SUM = re.compile(r"^(SUM|&&&& PERF) (\S+) (\d+\.\d+)")


def matrices(path):
    """{sum key: {(row, col): value}} and {sum key: sum} from an nvbandwidth text."""
    out, sums = {}, {}
    cells, in_matrix, header_seen = {}, False, False
    with open(path, encoding="utf-8", errors="replace") as f:
        for raw in f:
            line = raw.rstrip("\n")
            if HEADER.match(line):
                cells, in_matrix, header_seen = {}, True, False
                continue
            m = SUM.match(line)
            if m:
                out[m.group(2)] = cells
                sums[m.group(2)] = float(m.group(3))
                in_matrix = False
                continue
            if not in_matrix or not line.strip():
                continue
            fields = line.split()
            if not header_seen:
                header_seen = True
                columns = fields
                continue
            for col, value in zip(columns, fields[1:]):
                if value != "N/A":
                    cells[(int(fields[0]), int(col))] = float(value)
    return out, sums


def compare_text(real_path, ours_path):
    real, real_sums = matrices(real_path)
    ours, our_sums = matrices(ours_path)
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


def main(argv):
    if len(argv) not in (3, 5):
        sys.exit(__doc__)
    cells, within, worst = compare_text(argv[1], argv[2])
    summary = [f"text: {cells} cells in both, {within} within 2%"]
    if worst:
        summary.append(f"largest difference: {worst[0]} [{worst[1][0]},{worst[1][1]}] real {worst[2]:.2f}, "
                       f"xferbench {worst[3]:.2f} (x{worst[4]:.3f})")
    if len(argv) == 5:
        cases, same = compare_json(argv[3], argv[4])
        summary.append(f"json: {cases} test cases, {same} with the same status and matrix shape")
    print("\n" + "\n".join(summary))


if __name__ == "__main__":
    main(sys.argv)
