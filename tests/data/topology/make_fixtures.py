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
  kind-*.json               one synthetic fixture per data-centre kind of
                            src/machine/gpu_models.cpp (and the six A6000s of
                            nvbandwidth#50): host link (PCIe generation or
                            NVLink-C2C), NVLink links and fabric, peer access,
                            from the public documents named there; memory
                            clocks are chosen so the DDR formula gives the
                            datasheet's bandwidth

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


PCIE = {4: (16.0, 128 / 130, "128b/130b"), 5: (32.0, 128 / 130, "128b/130b"), 6: (64.0, 242 / 256, "FLIT 242/256")}


def pcie_peak(gen):
    gts, eff, code = PCIE[gen]
    return {"gbps": gts * 16 * eff / 8, "formula": f"PCIe Gen{gen}: {gts:g} GT/s x 16 lanes x {code} / 8",
            "source": "synthetic fixture"}


# name, CUDA name, GPUs, cc, SMs, smem KiB, memory MHz, bus bits, host link ("pcie4/5/6" or "c2c"),
# NVLinks per GPU, GB/s per link and direction, fabric (switch: every pair; bridge: pairs 0-1, 2-3;
# none), peer access without NVLink, NUMA nodes
KINDS = [
    ("a100-sxm", "NVIDIA A100-SXM4-80GB", 8, "8.0", 108, 164, 1593, 5120, "pcie4", 12, 25.0, "switch", True, 2),
    ("a100-pcie", "NVIDIA A100 80GB PCIe", 2, "8.0", 108, 164, 1512, 5120, "pcie4", 12, 25.0, "bridge", True, 1),
    ("h100-sxm", "NVIDIA H100 80GB HBM3", 8, "9.0", 132, 228, 2619, 5120, "pcie5", 18, 25.0, "switch", True, 2),
    ("h100-pcie", "NVIDIA H100 PCIe", 2, "9.0", 114, 228, 1593, 5120, "pcie5", 12, 25.0, "bridge", True, 1),
    ("h100-nvl", "NVIDIA H100 NVL", 2, "9.0", 132, 228, 2619, 6016, "pcie5", 12, 25.0, "bridge", True, 1),
    ("h200-sxm", "NVIDIA H200", 8, "9.0", 132, 228, 3201, 6016, "pcie5", 18, 25.0, "switch", True, 2),
    ("h200-nvl", "NVIDIA H200 NVL", 2, "9.0", 132, 228, 3201, 6016, "pcie5", 18, 25.0, "bridge", True, 1),
    ("gh200", "NVIDIA GH200 480GB", 1, "9.0", 132, 228, 2619, 6016, "c2c", 18, 25.0, "switch", True, 1),
    # B200: CUDA reports a 7680-bit bus at 3996 MHz (pytorch/ao#4002, from a B200's device query).
    ("b200", "NVIDIA B200", 8, "10.0", 148, 228, 3996, 7680, "pcie6", 18, 50.0, "switch", True, 2),
    ("gb200", "NVIDIA GB200", 4, "10.0", 148, 228, 3906, 8192, "c2c", 18, 50.0, "switch", True, 2),
    ("l40s", "NVIDIA L40S", 4, "8.9", 142, 100, 9000, 384, "pcie4", 0, 0.0, "none", False, 2),
    # Not a data-centre kind: the six PCIe Gen4 cards of nvbandwidth#50, peers over PCIe.
    ("a6000", "NVIDIA RTX A6000", 6, "8.6", 84, 100, 8000, 384, "pcie4", 0, 0.0, "none", True, 2),
]
# NVLink-C2C, both directions together (gpu_models.cpp): GH200 and GB200 900 GB/s.
C2C_TOTAL = 900.0


def make_c2c(env, n_gpus):
    """Host link over NVLink-C2C; each GPU's memory a NUMA node of its own after the Grace nodes."""
    graces = len(env["numa_nodes"])
    for g in env["gpus"]:
        g["host_link"] = "nvlink_c2c"
        g["host_link_evidence"] = "synthetic fixture"
        g["memory_visible_to_cpu"] = True
        g["memory_numa_node"] = graces + g["index"]
        g["pcie"] = {"generation_current": -1, "generation_max": -1, "width_current": -1, "width_max": -1}
        g["peak_host_link"] = {"gbps": C2C_TOTAL / 2, "formula": f"NVLink-C2C: {C2C_TOTAL:g} GB/s both directions / 2",
                               "source": "synthetic fixture"}
    for node in env["numa_nodes"]:
        node["kind"] = "grace_lpddr5x"
    env["numa_nodes"] += [{"id": graces + i, "cpus": "", "memory_bytes": 0, "free_bytes": 0, "kind": "gpu_memory"}
                          for i in range(n_gpus)]


def kind_fixture(base, key, name, n, cc, sms, smem, mem_mhz, bus_bits, host, links, link_gbps, fabric, peer, numa):
    env = synthetic(base, n, name, sms, mem_mhz, bus_bits, links if fabric == "switch" else 0, link_gbps, numa,
                    f"synthetic-{key}x{n}")
    for g in env["gpus"]:
        g["compute_capability"] = cc
        g["shared_memory_per_sm_kib"] = smem
        g["nvlink"]["active_links"] = links
        g["nvlink"]["gbps_per_link"] = link_gbps
        if host.startswith("pcie"):
            gen = int(host[4:])
            g["pcie"] = {"generation_current": gen, "generation_max": gen, "width_current": 16, "width_max": 16}
            g["peak_host_link"] = pcie_peak(gen)
    for link in env["gpu_links"]:
        a, b = link["from"], link["to"]
        if a == b:
            continue
        if fabric == "bridge" and a // 2 == b // 2:
            link.update({"kind": "nvlink", "nvlinks": links, "peer_access": True,
                         "peak": peak(links * link_gbps, f"{links} NVLinks x {link_gbps} GB/s")})
        elif fabric != "switch":
            pcie = env["gpus"][a]["peak_host_link"]
            link.update({"kind": "pcie", "nvlinks": 0, "peer_access": True, "peak": pcie} if peer else
                        {"kind": "none", "nvlinks": 0, "peer_access": False, "peak": None})
    if host == "c2c":
        make_c2c(env, n)
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
        # HBM3e 8 TB/s; each GPU reaches its Grace over NVLink-C2C (two GPUs per Grace, 36 Grace nodes).
        "gb200x72.json": synthetic(base, 72, "NVIDIA GB200", 148, 3906, 8192, 18, 50.0, 36, "synthetic-gb200x72"),
    }
    make_c2c(fixtures["gb200x72.json"], 72)
    for k in KINDS:
        fixtures[f"kind-{k[0]}.json"] = kind_fixture(base, *k)
    for out, env in fixtures.items():
        # Compact: the 72-GPU file holds 5,184 links.
        json.dump(env, open(os.path.join(HERE, out), "w"), separators=(",", ":"))


if __name__ == "__main__":
    main()
