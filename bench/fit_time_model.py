#!/usr/bin/env python3
"""Fits the constants of the --dry-run time model (src/core/run_plan.cpp) to
the full-catalogue runs recorded in bench/results, and prints how well the
fitted model predicts each of them.

usage: bench/fit_time_model.py XFERBENCH [RUN.json ...]

For every recorded run it asks `xferbench run --dry-run --topology RUN.json
--suite full --format json` for the plan (cells, copy time at the expected
bandwidth, host transfers per cell, new buffers), then fits:
  - efficiencies: median of recorded cell value / link peak per link and engine;
  - contention: expected samples = min + f * (max - min), f = min(1, c * (k - 1))
    for k host transfers in a cell, c by least squares over recorded cells;
  - overheads: case wall - (warm-up + recorded samples x recorded copies) x
    copy time - verification, regressed on cases, cells, latency cells, GiB of
    new pinned host buffers and GiB of new device buffers;
  - start-up: process wall time (full_time.txt) - sum of case walls, linear in
    the GPU count.
Paste the printed block into kRecorded in src/core/run_plan.cpp, rebuild and
run again: the last table is the model's prediction with the constants the
binary holds.
"""

import glob
import json
import os
import re
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.join(HERE, "results")
# Process start to last line, measured around `run --suite full` (bench/suites/*.sh).
PROCESS_WALL = {
    "2026-11-22-h200x2-refactor-check/full.json": "2026-11-22-h200x2-refactor-check/full_time.txt",
    "2026-11-22-h200x4/full.json": "2026-11-22-h200x4/full_time.txt",
}
WARMUP = 2
MIN_S, MAX_S = 3, 40


def recorded_runs():
    """Full-catalogue runs of the current measurement code: from 2026-11-22 on
    (the 2026-11-21 runs predate SM copies repeating inside one kernel launch
    and the bulk-copy default over NVLink, which changed per-case times)."""
    out = []
    for path in sorted(glob.glob(os.path.join(RESULTS, "2026-11-2[2-9]*", "*.json"))):
        try:
            doc = json.load(open(path))
        except ValueError:
            continue
        if doc.get("schema") == "xferbench-run" and "--suite" in doc.get("command_line", []) and len(doc["cases"]) == 35:
            out.append(path)
    return out


def plan_of(xb, path):
    text = subprocess.run([xb, "run", "--dry-run", "--topology", path, "--suite", "full", "--format", "json"],
                          check=True, capture_output=True, text=True).stdout
    return json.loads(text)


def engine_of(case):
    name = case["name"]
    if name == "device_local_copy":
        return "ce"
    if "bidirectional" in name and name.startswith(("host_to_device", "device_to_host")) and name.endswith("_sm"):
        return "split"
    return name.rsplit("_", 1)[1]


def link_of(cell):
    link = cell["link"]
    return "nvlink" if link.startswith("NVLink") else "local" if link == "device memory" else "pcie"


def efficiencies(runs):
    quiet = {0, 1, 16, 17, 18, 19, 4, 5, 20, 21, 34}
    groups = {}
    for doc, _ in runs:
        for case in doc["cases"]:
            if case["index"] not in quiet:
                continue
            for cell in case["matrices"][0]["cells"]:
                peak = (cell.get("peak") or {}).get("gbps")
                if not peak:
                    continue
                scale = 2.0 if engine_of(case) == "split" else 1.0  # per direction -> both directions
                groups.setdefault((link_of(cell), engine_of(case)), []).append(scale * cell["value_gbps"] / peak)
    return {k: float(np.median(v)) for k, v in sorted(groups.items())}


def cells_of(doc, plan):
    """(recorded case, planned case, [(recorded cell, planned cell)])."""
    for rc, pc in zip(doc["cases"], plan["cases"]):
        assert rc["name"] == pc["name"], (rc["name"], pc["name"])
        rec = rc["matrices"][0]["cells"] if rc["matrices"] else []
        yield rc, pc, list(zip(rec, pc["cells"]))


def fit_contention(runs):
    xs, ys = [], []
    for doc, plan in runs:
        for _, _, cells in cells_of(doc, plan):
            for r, p in cells:
                if "value_gbps" in r and p["host_transfers"] >= 2:
                    xs.append(p["host_transfers"] - 1)
                    ys.append((r["samples"] - MIN_S) / (MAX_S - MIN_S))
    grid = np.linspace(0.01, 1.0, 1000)
    err = [sum((min(1.0, c * x) - y) ** 2 for x, y in zip(xs, ys)) for c in grid]
    return float(grid[int(np.argmin(err))]), len(xs)


def fit_overheads(runs):
    rows, rhs = [], []
    for doc, plan in runs:
        for rc, pc, cells in cells_of(doc, plan):
            sampling, n_bw, n_lat = 0.0, 0, 0
            for r, p in cells:
                if "value_gbps" in r:
                    n_bw += 1
                    sampling += (WARMUP + r["samples"] * r["copies_per_sample"]) * p["copy_seconds"] + p["verify_seconds"]
                else:
                    n_lat += 1
                    sampling += (1 + r["samples"]) * p["copy_seconds"]
            gib = 1024.0 ** 3
            rows.append([1.0, n_bw, n_lat, pc["new_host_buffer_bytes"] / gib, pc["new_device_buffer_bytes"] / gib])
            rhs.append(rc["wall_seconds"] - sampling)
    # Least squares with every constant >= 0: a term that comes out negative
    # is noise around zero; drop it and fit the others again.
    a, b = np.array(rows), np.array(rhs)
    keep = list(range(a.shape[1]))
    while True:
        coef, *_ = np.linalg.lstsq(a[:, keep], b, rcond=None)
        if (coef >= 0).all():
            break
        keep = [k for k, c in zip(keep, coef) if c >= 0]
    full = [0.0] * a.shape[1]
    for k, c in zip(keep, coef):
        full[k] = float(c)
    return dict(zip(["case_s", "cell_s", "latency_cell_s", "pin_s_per_gib", "device_s_per_gib"], full))


def fit_start(runs_by_path):
    xs, ys = [], []
    for rel, timefile in PROCESS_WALL.items():
        doc = runs_by_path.get(os.path.join(RESULTS, rel))
        if doc is None:
            continue
        text = open(os.path.join(RESULTS, timefile)).read()
        process = float(re.search(r"([0-9.]+) s", text).group(1))
        xs.append(len(doc["environment"]["gpus"]))
        ys.append(process - sum(c["wall_seconds"] for c in doc["cases"]))
    slope = (ys[1] - ys[0]) / (xs[1] - xs[0]) if len(xs) == 2 and xs[0] != xs[1] else 0.0
    return {"start_s": ys[0] - slope * xs[0], "start_per_gpu_s": slope}


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    xb = argv[1]
    paths = argv[2:] or recorded_runs()
    runs = [(json.load(open(p)), plan_of(xb, p)) for p in paths]
    eff = efficiencies(runs)
    contention, n = fit_contention(runs)
    over = fit_overheads(runs)
    start = fit_start({p: doc for p, (doc, _) in zip(paths, runs)})
    print(f"# {len(runs)} recorded full-catalogue runs")
    print("# efficiencies (median cell / peak):", ", ".join(f"{k[0]} {k[1]} {v:.3f}" for k, v in eff.items()))
    print(f"# contention c = {contention:.3f} over {n} cells with 2+ host transfers")
    for k, v in {**start, **over}.items():
        print(f"#   {k} = {v:.4f}")
    print("\n# with the constants in this binary: estimate vs recorded (run wall + fitted start-up)")
    for p, (doc, plan) in zip(paths, runs):
        gpus = len(doc["environment"]["gpus"])
        recorded = doc["wall_seconds"] + start["start_s"] + start["start_per_gpu_s"] * gpus
        est = plan["estimated_seconds"]
        print(f"{os.path.relpath(p, RESULTS):50} {gpus} GPUs  estimate {est:6.1f} s  recorded {recorded:6.1f} s  "
              f"error {100 * (est - recorded) / recorded:+6.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
