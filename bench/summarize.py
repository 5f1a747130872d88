#!/usr/bin/env python3
"""Summarize repeated `xferbench run -o RUN.json` files against nvbandwidth's
reference figures (../shared/DESIGN.md, H200 x2, 512 MiB): per case the
median over runs of each cell, the run-to-run CoV, the largest per-cell CoV
within a run, and wall times. usage: summarize.py RUN1.json [RUN2.json ...]"""
import json
import statistics
import sys

# nvbandwidth v0.8 on H200 x2, 512 MiB, median of 3 (DESIGN.md).
REFERENCE = {
    "host_to_device_memcpy_ce": 55.5, "device_to_host_memcpy_ce": 55.4,
    "host_to_device_bidirectional_memcpy_ce": 51.1,
    "device_to_device_memcpy_read_ce": 394.0, "device_to_device_memcpy_write_ce": 396.4,
    "device_to_device_bidirectional_memcpy_write_ce": 391.8,
    "host_to_device_memcpy_sm": 51.3, "device_to_host_memcpy_sm": 52.6,
    "host_to_device_bidirectional_memcpy_sm": 42.4,
    "device_to_device_memcpy_read_sm": 376.0, "device_to_device_memcpy_write_sm": 369.9,
    "device_to_device_bidirectional_memcpy_write_sm": 365.7,
    "device_local_copy": 2091.5, "host_device_latency_sm": 1174, "device_to_device_latency_sm": 826,
}


def cells(case):
    """First matrix's cells (for bidirectional D2D: the first direction)."""
    return case["matrices"][0]["cells"] if case["matrices"] else []


def main(paths):
    runs = [json.load(open(p)) for p in paths]
    print(f"# {len(runs)} runs; machine: {runs[0]['environment']['hostname']}, "
          f"{len(runs[0]['environment']['gpus'])} x {runs[0]['environment']['gpus'][0]['name']}, "
          f"driver {runs[0]['environment']['driver_version']}, started {runs[0]['start_time_utc']}")
    print(f"# wall seconds per run: {', '.join('%.1f' % r['wall_seconds'] for r in runs)}")
    print(f"{'case':48} {'cells (median over runs)':34} {'ref':>8} {'ratio':>7} {'run-CoV%':>8} {'max cell CoV%':>13}")
    for i, case in enumerate(runs[0]["cases"]):
        name = case["name"]
        per_cell = list(zip(*[[c.get("value_gbps", c.get("value_ns")) for c in cells(r["cases"][i])] for r in runs]))
        if not per_cell:
            print(f"{name:48} {case['status']}")
            continue
        med = [statistics.median(v) for v in per_cell]
        run_cov = max((statistics.stdev(v) / statistics.mean(v) * 100) if len(v) > 1 else 0 for v in per_cell)
        cell_cov = max(c["stats"]["cov"] * 100 for r in runs for c in cells(r["cases"][i]))
        ref = REFERENCE.get(name)
        ratio = f"{min(med) / ref:.3f}" if ref else ""
        if ref and name.endswith("latency_sm"):
            ratio = f"{max(med) / ref:.3f}"
        vals = " ".join(f"{v:.1f}" for v in med)
        print(f"{name:48} {vals:34} {ref if ref else '':>8} {ratio:>7} {run_cov:8.2f} {cell_cov:13.2f}")


if __name__ == "__main__":
    main(sys.argv[1:])
