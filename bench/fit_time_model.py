#!/usr/bin/env python3
"""Fits the constants of the --dry-run time model (src/cases/run_plan.cpp) to
the full-catalogue runs recorded in bench/results, and prints how well the
fitted model predicts each of them.

usage: bench/fit_time_model.py XFERBENCH [RUN.json ...]

For every recorded run it asks `xferbench run --dry-run --topology RUN.json
--suite full --format json` for the plan (cells, copy time at the expected
bandwidth, contending host transfers per cell, new buffers, and for the cells
measured nvbandwidth's way too the second measurement's copy time and
copies), then fits:
  - efficiencies: median of recorded cell value / link peak per link and engine
    (copy engines over PCIe apart when both directions run at once);
  - contention: expected samples = min + f * (max - min), f = min(1, c * (k - 1))
    for k contending host transfers in a cell, c by least squares over the
    recorded sample counts of both measurements (own and nvbandwidth's way),
    one c for streaming transfers and one for split-warp kernels repeating
    in place (nvbandwidth's way of the host split-warp cells);
  - host memory bandwidth: median of transfers x recorded per-transfer figure
    over the cells with 4+ host transfers streaming at once;
  - overheads: case wall - (warm-up + recorded samples x recorded copies) x
    copy time - verification, the second measurement likewise where the run
    took it, regressed on cases, cells, latency cells, second measurements,
    GiB of new pinned host buffers and GiB of new device buffers;
  - start-up: process wall time (PROCESS_WALL) - sum of case walls - the
    drift check's end measurement (where the run had one; its start
    measurement and buffers are in the first case's wall, and are taken out
    of that case in the overhead regression), linear in the GPU count, least
    squares over every run timed from process start.
Paste the printed block into kRecorded in src/cases/run_plan.cpp, rebuild and
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
# Process start to last line, measured around `run --suite full` (bench/suites/*.sh): the file
# that holds it and a pattern whose group is the seconds.
PROCESS_WALL = {
    "2026-11-22-h200x2-refactor-check/full.json": ("2026-11-22-h200x2-refactor-check/full_time.txt", r"([0-9.]+) s"),
    "2026-11-22-h200x4/full.json": ("2026-11-22-h200x4/full_time.txt", r"([0-9.]+) s"),
    # 1 x H200 (CUDA_VISIBLE_DEVICES=0 on the x2 node): the README's dry-run table.
    "2026-11-27-h200x2-whole-node/dryrun/full_1gpu.json": ("2026-11-27-h200x2-whole-node/README.md",
                                                           r"\| ([0-9.]+) s \(`full_1gpu.json`\)"),
    "2026-11-27-h200x2-whole-node/catalogue_2_3/xb1.json": ("2026-11-27-h200x2-whole-node/catalogue_2_3/footprint.txt",
                                                            r"xb1 rc=0 wall_s=([0-9.]+)"),
    "2026-11-27-h200x2-whole-node/catalogue_2_3/xb2.json": ("2026-11-27-h200x2-whole-node/catalogue_2_3/footprint.txt",
                                                            r"xb2 rc=0 wall_s=([0-9.]+)"),
    "2026-11-27-h100x4-whole-node/dryrun_4/full.json": ("2026-11-27-h100x4-whole-node/dryrun_4/stages.txt",
                                                        r"full rc=0 ([0-9.]+) s"),
}
# 4 x H200, two of the three catalogue rounds (the third ran under the nvbandwidth name: text only).
PROCESS_WALL.update({f"2026-11-28-h200x4-catalogue/round{i}/xb1.json": (f"2026-11-28-h200x4-catalogue/round{i}/footprint.txt",
                                                                        r"xb1 rc=0 wall_s=([0-9.]+)") for i in (1, 2)})
# 1 x H200 (CUDA_VISIBLE_DEVICES=0 on an x2 node), `whole_node.sh dryrun:1:3`.
PROCESS_WALL.update({f"2026-11-27-h200x2-dry-run-1gpu/full_{i}.json": ("2026-11-27-h200x2-dry-run-1gpu/stages.txt",
                                                                      rf"full_{i} rc=0 ([0-9.]+) s") for i in (1, 2, 3)})
# 2 x H200 and 1 x H200 (CUDA_VISIBLE_DEVICES=0), the first runs with all_to_host_memcpy_sm measured
# nvbandwidth's way too: `whole_node.sh catalogue:2:3 dryrun:1:3`.
A2H = "2026-11-28-h200x2-a2h-nvbway/"
PROCESS_WALL.update({f"{A2H}catalogue_2_3/xb{i}.json": (f"{A2H}catalogue_2_3/footprint.txt", rf"xb{i} rc=0 wall_s=([0-9.]+)")
                     for i in (1, 2)})
PROCESS_WALL.update({f"{A2H}dryrun_1_3/full_{i}.json": (f"{A2H}dryrun_1_3/stages.txt", rf"full_{i} rc=0 ([0-9.]+) s")
                     for i in (1, 2, 3)})
# 4 x H200 with it: `whole_node.sh dryrun:4:1`, then `catalogue:4:1` (one round, NAMED_ROUND=0).
A2H4 = "2026-11-28-h200x4-a2h-nvbway/"
PROCESS_WALL.update({f"{A2H4}dryrun_4_1/full_1.json": (f"{A2H4}dryrun_4_1/stages.txt", r"full_1 rc=0 ([0-9.]+) s"),
                     f"{A2H4}catalogue_4_1/xb1.json": (f"{A2H4}catalogue_4_1/footprint.txt", r"xb1 rc=0 wall_s=([0-9.]+)")})
WARMUP = 2
MIN_S, MAX_S = 3, 40


def recorded_runs():
    """Full-catalogue runs of the current measurement code: from 2026-11-22 on
    (the 2026-11-21 runs predate SM copies repeating inside one kernel launch
    and the bulk-copy default over NVLink, which changed per-case times)."""
    out = []
    for path in sorted(glob.glob(os.path.join(RESULTS, "2026-11-2[2-9]*", "**", "*.json"), recursive=True)):
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
    duplex = {2, 3}  # one GPU's copy engines both ways at once over its PCIe link
    for doc, _ in runs:
        for case in doc["cases"]:
            if case["index"] not in quiet | duplex or not case["matrices"]:
                continue
            for cell in case["matrices"][0]["cells"]:
                peak = (cell.get("peak") or {}).get("gbps")
                if not peak:
                    continue
                scale = 2.0 if engine_of(case) == "split" else 1.0  # per direction -> both directions
                engine = "ce_duplex" if case["index"] in duplex else engine_of(case)
                groups.setdefault((link_of(cell), engine), []).append(scale * cell["value_gbps"] / peak)
    return {k: float(np.median(v)) for k, v in sorted(groups.items())}


def cells_of(doc, plan):
    """(recorded case, planned case, [(recorded cell, planned cell)])."""
    for rc, pc in zip(doc["cases"], plan["cases"]):
        assert rc["name"] == pc["name"], (rc["name"], pc["name"])
        rec = rc["matrices"][0]["cells"] if rc["matrices"] else []
        yield rc, pc, list(zip(rec, pc["cells"]))


def second_of(r, p):
    """The recorded and planned second measurement (nvbandwidth's way) of a cell, when the run took it."""
    if "nvbandwidth" in r and "nvbandwidth_way" in p:
        return len(r["nvbandwidth"]["samples_gbps"]), p["nvbandwidth_way"]
    return None


def sample_counts(runs):
    """(contending host transfers, recorded samples) of every measurement of every bandwidth cell."""
    for doc, plan in runs:
        for _, _, cells in cells_of(doc, plan):
            for r, p in cells:
                if "value_gbps" not in r or "copy_seconds" not in p:
                    continue
                k = p["contending_host_transfers"]
                yield k, r["samples"], False
                second = second_of(r, p)
                if second:
                    # nvbandwidth's way of a host cell: split-warp kernels repeating in place.
                    yield k, second[0], k > 0


def fit_contention(runs, in_place):
    """c of f = min(1, c * (k - 1)) over the measurements of streaming (in_place
    False) or in-place split-warp kernels (True)."""
    xs, ys, by_k = [], [], {}
    for k, n, place in sample_counts(runs):
        if place != in_place:
            continue
        by_k.setdefault(k, []).append(n)
        if k >= 2:
            xs.append(k - 1)
            ys.append((n - MIN_S) / (MAX_S - MIN_S))
    grid = np.linspace(0.0, 1.0, 1001)
    err = [sum((min(1.0, c * x) - y) ** 2 for x, y in zip(xs, ys)) for c in grid]
    return float(grid[int(np.argmin(err))]), len(xs), by_k


def fit_host_memory(runs):
    """Host memory bandwidth: median over the cells with 4+ host transfers
    streaming at once (every GPU, or both ways on 2+ GPUs) of the transfers x
    the recorded per-transfer figure (per direction for split-warp kernels)."""
    totals = []
    for doc, plan in runs:
        for _, _, cells in cells_of(doc, plan):
            for r, p in cells:
                if "value_gbps" in r and p.get("host_transfers", 0) >= 4:
                    totals.append(p["host_transfers"] * r["value_gbps"])
    return float(np.median(totals)), len(totals)


def fit_overheads(runs):
    rows, rhs = [], []
    gib = 1024.0 ** 3
    for doc, plan in runs:
        # The drift check's first measurement runs inside the first case's
        # first cell and creates the buffers that case then finds.
        drift = plan["drift_check"] if doc.get("stability") else None
        first = next((pc["name"] for pc in plan["cases"] if pc["cells"]), None)
        for rc, pc, cells in cells_of(doc, plan):
            sampling, n_bw, n_lat, n_second = 0.0, 0, 0, 0
            for r, p in cells:
                if "value_gbps" in r:
                    n_bw += 1
                    sampling += (WARMUP + r["samples"] * r["copies_per_sample"]) * p["copy_seconds"] + p["verify_seconds"]
                    second = second_of(r, p)
                    if second:
                        n_second += 1
                        samples, nvb = second
                        sampling += (WARMUP + samples * nvb["copies_per_sample"]) * nvb["copy_seconds"] + p["verify_seconds"]
                else:
                    n_lat += 1
                    sampling += (1 + r["samples"]) * p["copy_seconds"]
            host, device = pc["new_host_buffer_bytes"], pc["new_device_buffer_bytes"]
            if drift and pc["name"] == first:
                sampling += drift["copies_seconds"] / 2
                host += drift["new_host_buffer_bytes"]
                device += drift["new_device_buffer_bytes"]
            rows.append([1.0, n_bw, n_lat, n_second, host / gib, device / gib])
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
    return dict(zip(["case_s", "cell_s", "latency_cell_s", "second_s", "pin_s_per_gib", "device_s_per_gib"], full))


def drift_of(doc, plan):
    """The plan's drift check where the run had one (its stability record)."""
    return plan["drift_check"]["estimated_seconds"] if doc.get("stability") else 0.0


def drift_end_of(doc, plan):
    """The drift check's measurement at the end of the run, outside every case (its start is in the first case)."""
    return plan["drift_check"]["copies_seconds"] / 2 if doc.get("stability") else 0.0


def process_walls(runs_by_path):
    """{path: process wall seconds} for the runs timed from process start."""
    out = {}
    for rel, (timefile, pattern) in PROCESS_WALL.items():
        path = os.path.join(RESULTS, rel)
        if path in runs_by_path:
            out[path] = float(re.search(pattern, open(os.path.join(RESULTS, timefile)).read()).group(1))
    return out


def fit_start(runs_by_path, walls):
    xs, ys = [], []
    for path, process in walls.items():
        doc, plan = runs_by_path[path]
        xs.append(len(doc["environment"]["gpus"]))
        ys.append(process - sum(c["wall_seconds"] for c in doc["cases"]) - drift_end_of(doc, plan))
    slope, intercept = np.polyfit(xs, ys, 1) if len(set(xs)) > 1 else (0.0, float(np.mean(ys)))
    return {"start_s": float(intercept), "start_per_gpu_s": float(slope)}


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    xb = argv[1]
    paths = argv[2:] or recorded_runs()
    runs = [(json.load(open(p)), plan_of(xb, p)) for p in paths]
    by_path = dict(zip(paths, runs))
    walls = process_walls(by_path)
    eff = efficiencies(runs)
    contention, n, by_k = fit_contention(runs, False)
    in_place, n_in_place, by_k_in_place = fit_contention(runs, True)
    host_memory, n_host = fit_host_memory(runs)
    over = fit_overheads(runs)
    start = fit_start(by_path, walls)
    print(f"# {len(runs)} recorded full-catalogue runs, {len(walls)} of them timed from process start")
    print("# efficiencies (median cell / peak):", ", ".join(f"{k[0]} {k[1]} {v:.3f}" for k, v in eff.items()))
    print(f"# host_memory_gbps = {host_memory:.1f} (median of {n_host} cells)")
    for name, c, count, table in (("contention", contention, n, by_k),
                                  ("contention_in_place", in_place, n_in_place, by_k_in_place)):
        print(f"# {name} c = {c:.3f} over {count} measurements with 2+ contending host transfers")
        for k, v in sorted(table.items()):
            model = MIN_S + min(1.0, c * max(0, k - 1)) * (MAX_S - MIN_S)
            print(f"#   k = {k}: {len(v):4} measurements, recorded samples mean {np.mean(v):5.1f} "
                  f"(min {min(v)}, max {max(v)}), model {model:5.1f}")
    for k, v in {**start, **over}.items():
        print(f"#   {k} = {v:.4f}")
    print("\n# with the constants in this binary: estimate vs recorded")
    print("# (timed runs: the process wall; the others: the run's wall, the plan's start-up left out;")
    print("#  the drift check and nvbandwidth's way left out of the estimate of a cell where the run had none)")
    for p, (doc, plan) in zip(paths, runs):
        gpus = len(doc["environment"]["gpus"])
        est = plan["estimated_seconds"] - plan["drift_check"]["estimated_seconds"] + drift_of(doc, plan)
        # A cell the run measured only its own way (a run from before that cell's second measurement):
        # its estimate without the second.
        est -= sum(pc["nvbandwidth_way"]["estimated_seconds"] for _, _, cells in cells_of(doc, plan)
                   for r, pc in cells if "nvbandwidth_way" in pc and "nvbandwidth" not in r)
        if p in walls:
            recorded, what = walls[p], "process"
        else:
            recorded, what = doc["wall_seconds"], "run"
            est -= plan["start_seconds"]
        print(f"{os.path.relpath(p, RESULTS):58} {gpus} GPUs  estimate {est:6.1f} s  {what:7} {recorded:6.1f} s  "
              f"error {100 * (est - recorded) / recorded:+6.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
