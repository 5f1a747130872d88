#!/usr/bin/env python3
"""Summary table of bench/suites/nvbandwidth_v010_cases.sh: python3 bench/v010_summary.py OUT_DIR.
Reads only what the script wrote; a missing or failed step shows as such."""

import json
import os
import sys


def load(out, name):
    try:
        with open(os.path.join(out, name)) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def cells(doc, name, matrix=0):
    for c in (doc or {}).get("cases", []):
        if c["name"] == name:
            if c["status"] == "waived":
                return "waived: " + c["message"]
            if not c["matrices"]:
                return f"{c['status']}: {c['message']}"
            return c["matrices"][matrix]["cells"]
    return "not run"


def cell_text(cell):
    if "value_ns" in cell:
        return f"{cell['value_ns']:.0f} ns"
    eff = f" ({cell['efficiency'] * 100:.0f}%)" if cell.get("efficiency") is not None else ""
    page = f" [{cell['host_page_bytes'] // 1024} KiB pages]" if cell.get("host_page_bytes") else ""
    bad = "" if cell["verification"]["status"] == "passed" else " " + cell["verification"]["status"].upper()
    return f"{cell['value_gbps']:.1f}{eff}{page}{bad}"


def row(doc, name):
    cs = cells(doc, name)
    return cs if isinstance(cs, str) else "  ".join(f"[{c['row']},{c['col']}] {cell_text(c)}" for c in cs)


def new_cases(out):
    doc = load(out, "new_cases.json")
    print("== new cases and references (GB/s, % of peak; latency ns)")
    for name in ("device_to_device_memcpy_write_ce", "device_to_device_memcpy_write_sm",
                 "device_to_device_memcpy_write_tma", "device_to_device_memcpy_read_ce",
                 "device_to_device_memcpy_read_sm", "device_to_device_memcpy_read_tma",
                 "device_to_device_latency_sm", "device_to_device_latency_tma", "device_local_copy",
                 "device_local_copy_tma", "device_local_read_sm", "device_local_write_sm"):
        print(f"{name:36} {row(doc, name)}")
    best = {}
    for name in ("device_to_device_memcpy_write_ce", "device_to_device_memcpy_write_sm"):
        cs = cells(doc, name)
        for c in cs if isinstance(cs, list) else []:
            key = (c["row"], c["col"])
            best[key] = max(best.get(key, 0), c["value_gbps"])
    tma = cells(doc, "device_to_device_memcpy_write_tma")
    for c in tma if isinstance(tma, list) else []:
        ref = best.get((c["row"], c["col"]))
        if ref:
            print(f"TMA write [{c['row']},{c['col']}] / best CE-or-SM write: {c['value_gbps'] / ref:.4f} "
                  f"({(c['value_gbps'] / ref - 1) * 100:+.2f}%)")


def hugepages(out):
    print("== host <-> GPU CE: pinned vs 2 MiB huge pages (GB/s per GPU, two alternating rounds)")
    for run in ("pinned_1", "hugepages_1", "pinned_2", "hugepages_2"):
        doc = load(out, run + ".json")
        print(f"{run:12} H2D {row(doc, 'host_to_device_memcpy_ce')}   D2H {row(doc, 'device_to_host_memcpy_ce')}")
    for name in ("hugepages.txt", "hugepages_waiver.txt"):
        path = os.path.join(out, name)
        if os.path.exists(path):
            print("".join(f"  {line}" for line in open(path) if line.strip())[:1500], end="")


def sm_budget(out):
    print("== SM budget (sweep --sms, 256 MiB): all-SM GB/s and the fewest SMs reaching 90% / 95%")
    for name in sorted(n for n in os.listdir(out) if n.startswith("sms_") and n.endswith(".json")):
        doc = load(out, name)
        if not doc:
            print(f"{name[4:-5]:36} no result")
            continue
        if doc["status"] == "waived":
            print(f"{name[4:-5]:36} waived: {doc['messages'][0] if doc['messages'] else ''}")
            continue
        for s in doc["series"]:
            curve = " ".join(f"{p['sms']}:{p['value_gbps']:.0f}" for p in s["points"])
            print(f"{name[4:-5]:36} {s['label']:14} all {s['all_sm_gbps']:7.1f}  90%@{s['sms_for_90pct']} "
                  f"95%@{s['sms_for_95pct']} of {s['gpu_sms']}  | {curve}")


def shapes(out):
    print("== read-only / write-only kernel shapes (BLOCKS_PER_SM,THREADS,UNROLL; default 4,512,4)")
    for name in sorted(n for n in os.listdir(out) if n.startswith("read_shape_") and n.endswith(".json")):
        doc = load(out, name)
        shape = name[len("read_shape_"):-5].replace("_", ",")
        print(f"{shape:10} read {row(doc, 'device_local_read_sm')}   write {row(doc, 'device_local_write_sm')}")
    for name in sorted(n for n in os.listdir(out) if n.startswith("tma_shape_") and n.endswith(".json")):
        doc = load(out, name)
        print(f"TMA write bulk,{name[len('tma_shape_'):-5].replace('_', ','):8} {row(doc, 'device_to_device_memcpy_write_tma')}")


def dry_run(out):
    plan, full = load(out, "plan.json"), load(out, "full.json")
    try:
        wall = float(open(os.path.join(out, "full_wall_seconds.txt")).read())
    except (OSError, ValueError):
        wall = None
    print("== dry-run estimate vs run --suite full (process start to exit)")
    if plan and wall:
        est = plan["estimated_seconds"]
        print(f"estimate {est:.1f} s, measured {wall:.1f} s, error {(est - wall) / wall * 100:+.1f}% "
              f"(run's own wall {full['wall_seconds']:.1f} s)" if full else f"estimate {est:.1f} s, measured {wall:.1f} s")
        if full:
            for pc, rc in zip(plan["cases"], full["cases"]):
                if abs(pc["estimated_seconds"] - rc["wall_seconds"]) > 0.5:
                    print(f"  {rc['name']:48} estimate {pc['estimated_seconds']:5.2f} s, measured {rc['wall_seconds']:5.2f} s")
    else:
        print("missing plan.json or full run")


def main(out):
    steps = os.path.join(out, "steps.txt")
    if os.path.exists(steps):
        failed = [l.strip() for l in open(steps) if not l.strip().endswith("exit 0")]
        print("steps not exiting 0:", ", ".join(failed) or "none")
    for part in (new_cases, hugepages, sm_budget, shapes, dry_run):
        try:
            part(out)
        except Exception as e:  # a summary must not hide the other parts
            print(f"({part.__name__}: could not summarise: {type(e).__name__}: {e})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
