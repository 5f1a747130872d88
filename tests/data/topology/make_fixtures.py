#!/usr/bin/env python3
"""Writes the topology fixtures of the dry-run tests (tests/test_dry_run.cpp),
in the schema of `xferbench list --format json`:

  h200x2.json, h200x4.json  the environments recorded by real runs on
                            nvidia-h200-x2 / -x4 (bench/results), unchanged
                            apart from the fields older builds did not write
  h100x1.json, h200x8.json, gb200x72.json
                            synthetic: built from the H200 x2 record with the
                            GPU count, NVLink and memory figures of the named
                            systems (public specifications), marked synthetic
                            in their hostname; no measurement stands behind them

usage: python3 tests/data/topology/make_fixtures.py  (from the repository root)
"""

import copy
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..", "..")
RECORDED = {
    "h200x2.json": "bench/results/2026-11-22-h200x2-sm-bulk/full1.json",
    "h200x4.json": "bench/results/2026-11-22-h200x4/full.json",
}


def recorded(path):
    env = json.load(open(os.path.join(ROOT, path)))["environment"]
    for g in env["gpus"]:
        g.setdefault("uuid", "")
        g.setdefault("shared_memory_per_sm_kib", 228)  # H200: cudaDevAttrMaxSharedMemoryPerMultiprocessor / 1024
        g.setdefault("memory_bus_width_bits", 6016)
        g.setdefault("memory_clock_khz", 3201000)
    return env


def peak(gbps, formula):
    return {"gbps": gbps, "formula": formula, "source": "synthetic fixture"}


def synthetic(base, n, name, sms, mem_mhz, bus_bits, links, link_gbps, numa_nodes, hostname):
    env = copy.deepcopy(base)
    env["hostname"] = hostname
    mem = mem_mhz * 2 * bus_bits / 8 / 1000
    gpu0 = env["gpus"][0]
    env["gpus"] = []
    for i in range(n):
        g = copy.deepcopy(gpu0)
        g.update({"index": i, "name": name, "sm_count": sms, "pci_bus_id": f"0000:{0x10 + i:02x}:00.0",
                  "uuid": f"GPU-synthetic-{i:04d}", "numa_node": i * numa_nodes // n,
                  "memory_bus_width_bits": bus_bits, "memory_clock_khz": mem_mhz * 1000,
                  "peak_device_memory": peak(mem, f"{mem_mhz} MHz x 2 (DDR) x {bus_bits} bits / 8")})
        g["nvlink"] = {"active_links": links, "gbps_per_link": link_gbps, "rate_source": "synthetic fixture",
                       "remote_bus_ids": []}
        env["gpus"].append(g)
    env["gpu_links"] = []
    for a in range(n):
        for b in range(n):
            if a == b:
                link = {"kind": "self", "nvlinks": 0, "peer_access": True,
                        "peak": peak(mem / 2, f"({mem_mhz} MHz x 2 (DDR) x {bus_bits} bits / 8) / 2 (read + write)")}
            elif links:
                link = {"kind": "nvlink", "nvlinks": links, "peer_access": True,
                        "peak": peak(links * link_gbps, f"{links} NVLinks x {link_gbps} GB/s")}
            else:
                link = {"kind": "none", "nvlinks": 0, "peer_access": False, "peak": None}
            env["gpu_links"].append({"from": a, "to": b, **link})
    env["numa_nodes"] = [{"id": i, "cpus": "", "memory_bytes": 0, "free_bytes": 0} for i in range(numa_nodes)]
    return env


def main():
    for out, src in RECORDED.items():
        json.dump(recorded(src), open(os.path.join(HERE, out), "w"), indent=1)
    base = recorded(RECORDED["h200x2.json"])
    fixtures = {
        # H100 SXM5: 132 SMs, HBM3 2619 MHz x 5120 bits; alone, no NVLink peer.
        "h100x1.json": synthetic(base, 1, "NVIDIA H100 80GB HBM3", 132, 2619, 5120, 0, 0.0, 1, "synthetic-h100x1"),
        # HGX H200: 8 GPUs, 18 NVLink 4 links each into NVSwitches (every pair sees all 18), two NUMA nodes.
        "h200x8.json": synthetic(base, 8, "NVIDIA H200", 132, 3201, 6016, 18, 26.5625, 2, "synthetic-h200x8"),
        # GB200 NVL72: 72 GPUs, 18 NVLink 5 links each (50 GB/s) into the NVLink switch system; 148 SMs,
        # HBM3e 8 TB/s. The Grace C2C host link is not modelled: the record's PCIe Gen5 x16 stands in.
        "gb200x72.json": synthetic(base, 72, "NVIDIA GB200", 148, 3906, 8192, 18, 50.0, 36, "synthetic-gb200x72"),
    }
    for out, env in fixtures.items():
        # Compact: the 72-GPU file holds 5,184 links.
        json.dump(env, open(os.path.join(HERE, out), "w"), separators=(",", ":"))


if __name__ == "__main__":
    main()
