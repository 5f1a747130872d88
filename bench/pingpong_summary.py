#!/usr/bin/env python3
"""Summary of bench/suites/pingpong_device.sh's OUT_DIR against the GPU-initiated transfer targets:
one row per figure with the value read from the run's JSON, the target and
a verdict. usage: pingpong_summary.py OUT_DIR"""
import json
import os
import re
import sys


def load(out, name):
    try:
        with open(os.path.join(out, name + ".json"), encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def first_size(doc):
    if not doc or not doc.get("pairs") or not doc["pairs"][0].get("sizes"):
        return None, None
    pair = doc["pairs"][0]
    return pair, pair["sizes"][0]


def exit_line(out, name):
    try:
        with open(os.path.join(out, name + ".txt"), encoding="utf-8") as f:
            lines = [l for l in f.read().splitlines() if l.startswith("exit ")]
        return lines[-1] if lines else "no exit line"
    except OSError:
        return "not run"


def latency(out, name):
    pair, s = first_size(load(out, name))
    if s is None:
        return None, f"no result ({exit_line(out, name)})"
    t = s["one_way_time_s"]
    note = f"{pair['transport']}, p99 {t['p99'] * 1e6:.2f} max {t['max'] * 1e6:.2f} us, {s['repetitions']} reps"
    if not s["verified"]:
        note += ", VERIFICATION FAILED"
    return t["median"] * 1e6, note


def bandwidth(out, name):
    pair, s = first_size(load(out, name))
    if s is None:
        return None, f"no result ({exit_line(out, name)})"
    note = f"{pair['transport']}, {s['bytes'] >> 20} MiB"
    if not s["verified"]:
        note += ", VERIFICATION FAILED"
    return s["bandwidth_gbps"], note


def write_sm(out):
    doc = load(out, "write_sm")
    try:
        cells = doc["cases"][0]["matrices"][0]["cells"]
        return max(c["value_gbps"] for c in cells), f"best of {len(cells)} cells"
    except (TypeError, KeyError, IndexError, ValueError):
        return None, f"no result ({exit_line(out, 'write_sm')})"


def row(name, value, unit, target, ok, note):
    shown = "-" if value is None else f"{value:.3f} {unit}"
    verdict = "" if ok is None else ("MET" if ok else "MISSED")
    print(f"{name:44} {shown:>16} {target:>12} {verdict:>7}  {note}")


def main(out):
    print(f"{'figure':44} {'value':>16} {'target':>12} {'verdict':>7}  note")
    for name, label, limit in [("lat_device_gpu_gpu", "device gpu<->gpu 8 B one-way median", 1.0),
                               ("lat_device_host_gpu", "device host->gpu 8 B (host times)", 1.6),
                               ("lat_device_gpu_host", "device gpu->host 8 B (gpu times)", 1.6),
                               ("lat_device_gpu_gpu_flag", "device gpu<->gpu 8 B, release flag (no LL)", None),
                               ("lat_ipc", "ipc gpu<->gpu 8 B", None), ("lat_nccl", "nccl gpu<->gpu 8 B", None),
                               ("lat_staged", "staged gpu<->gpu 8 B", None), ("lat_mpi_host", "mpi host<->host 8 B", None)]:
        v, note = latency(out, name)
        row(label, v, "us", f"<= {limit}" if limit else "", None if limit is None or v is None else v <= limit, note)
    ref, ref_note = write_sm(out)
    row("run -t device_to_device_memcpy_write_sm", ref, "GB/s", "", None, ref_note)
    v, note = bandwidth(out, "bw_device")
    target = f">= {0.95 * ref:.1f}" if ref else ">= 0.95 x ref"
    row("device bw 512 MiB (osu_bw window 8)", v, "GB/s", target, None if v is None or ref is None else v >= 0.95 * ref,
        note + (f", {v / ref:.3f} x write_sm" if v and ref else ""))
    for name, label in [("bibw_device", "device bibw 512 MiB (both ways)"), ("bw_ipc", "ipc bw 512 MiB"),
                        ("bw_nccl", "nccl bw 512 MiB")]:
        v, note = bandwidth(out, name)
        row(label, v, "GB/s", "", None, note)
    for name, label in [("bw_staged", "staged bw 512 MiB (4 MiB chunks)"), ("bw_staged_chunk1M", "staged bw, 1 MiB chunks"),
                        ("bw_staged_chunk16M", "staged bw, 16 MiB chunks")]:
        v, note = bandwidth(out, name)
        row(label, v, "GB/s", ">= 12" if name == "bw_staged" else "", None if name != "bw_staged" or v is None else v >= 12,
            note)
    for name, label in [("pingpong_staged_512M", "staged pingpong 512 MiB"), ("bw_mpi_host", "mpi host bw 512 MiB")]:
        v, note = bandwidth(out, name)
        row(label, v, "GB/s", "", None, note)
    auto, _ = first_size(load(out, "auto_gpu_gpu"))
    print(f"{'auto picks for gpu<->gpu':44} {(auto or {}).get('transport') or '-':>16}")
    try:
        with open(os.path.join(out, "fault.txt"), encoding="utf-8") as f:
            text = f.read()
        m = re.search(r"fault check: exit (\d+), rank 0 ended ([0-9.]+) s", text)
        err = [l for l in text.splitlines() if "error" in l]
        ok = bool(m) and m.group(1) == "9" and float(m.group(2)) <= 3 + 3  # timeout + a kernel run under way
        print(f"{'fault: rank 1 stopped -> rank 0':44} {(m.group(0) if m else 'no result'):>16} {'exit 9':>12} "
              f"{'MET' if ok else 'MISSED':>7}  {err[0] if err else ''}")
    except OSError:
        print("fault: not run")


if __name__ == "__main__":
    main(sys.argv[1])
