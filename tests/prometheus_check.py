"""prometheus_check.py XFERBENCH DIR SRC (run by prometheus_check.sh).

Checks every --format prometheus file: those PrometheusFiles.* wrote to DIR
(run, check, a fleet of runs, a fleet of checks: tests/test_prometheus.cpp
says how each was made), one the real binary writes here through a
symbolic link from a recorded H100 run, and its stdout for a recorded run
on four H200s. Each must pass `promtool check
metrics` with nothing to say, parse with prometheus_client into gauges
without timestamps, no series twice and one HELP text per metric name over
all files; then the values and labels each file was made to show.
"""
import json
import math
import os
import subprocess
import sys
import time

from prometheus_client.parser import text_string_to_metric_families

XFERBENCH, DIR, SRC = sys.argv[1:4]
failures = []


def expect(ok, what):
    if not ok:
        failures.append(what)


def parse(path):
    """{(name, frozenset(labels)): value}, after the checks every file gets."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    lint = subprocess.run(["promtool", "check", "metrics"], input=text, capture_output=True, text=True)
    expect(lint.returncode == 0 and lint.stdout + lint.stderr == "",
           f"{path}: promtool check metrics exit {lint.returncode}: {lint.stdout}{lint.stderr}")
    samples = {}
    for family in text_string_to_metric_families(text):
        expect(family.type == "gauge", f"{path}: {family.name} is a {family.type}, not a gauge")
        expect(HELP.setdefault(family.name, family.documentation) == family.documentation,
               f"{path}: {family.name} has another HELP text than in an earlier file")
        for s in family.samples:
            expect(s.timestamp is None, f"{path}: {s.name} has a timestamp")
            key = (s.name, frozenset(s.labels.items()))
            expect(key not in samples, f"{path}: {s.name}{s.labels} twice")
            samples[key] = s.value
    return samples


HELP = {}


def values(samples, name, **labels):
    """Values of `name` whose labels include `labels`."""
    want = set(labels.items())
    return [v for (n, ls), v in samples.items() if n == name and want <= ls]


def one(samples, name, **labels):
    found = values(samples, name, **labels)
    expect(len(found) == 1, f"{name}{labels}: {len(found)} samples, wanted one")
    return found[0] if found else math.nan


def near(a, b):
    return math.isclose(a, b, rel_tol=1e-9)


def check_run(s):
    h2d = dict(Hostname="testhost", gpu="0", case="host_to_device_memcpy_ce", link="host<->gpu0", peer="host")
    # FakeSource: 50 GB/s over 1.001 (the median sample), on PCIe Gen5 x16's 63.015 GB/s.
    expect(near(one(s, "xferbench_bandwidth_bytes_per_second", **h2d), 50e9 / 1.001), "run: h2d bandwidth")
    expect(near(one(s, "xferbench_link_peak_bytes_per_second", **h2d), 32e9 * 16 * 128 / 130 / 8), "run: peak")
    expect(near(one(s, "xferbench_efficiency_ratio", **h2d), 50 / 1.001 / (32 * 16 * 128 / 130 / 8)), "run: ratio")
    expect(one(s, "xferbench_bandwidth_bytes_per_second", **dict(h2d, gpu="0"), UUID="GPU-00000000-0000-0000-0000-000000000000") > 0,
           "run: the UUID label")
    expect(near(one(s, "xferbench_latency_seconds", gpu="1", case="host_device_latency_sm"), 1201e-9), "run: latency")
    expect(len(values(s, "xferbench_bandwidth_bytes_per_second", matrix="total")) == 2, "run: bidirectional totals")
    expect(set(values(s, "xferbench_cell_valid")) == {1}, "run: every cell valid")
    expect(one(s, "xferbench_exit_code", Hostname="testhost") == 0, "run: exit code")
    started = one(s, "xferbench_last_run_timestamp_seconds", Hostname="testhost")
    expect(1.7e9 < started <= time.time() + 60, f"run: start time {started} is not a recent unix time")


def check_check(s):
    host = 'rack"7"\\node'  # escaped in the file, itself again once parsed
    h2d = dict(Hostname=host, case="host_to_device_memcpy_ce", link_type="PCIe Gen5 x16")
    expect(one(s, "xferbench_bandwidth_bytes_per_second", gpu="0", **h2d) == 55e9, "check: a 55 GB/s cell reads 55e9")
    expect(one(s, "xferbench_bandwidth_bytes_per_second", gpu="1", **h2d) == 35e9, "check: the slow cell")
    expect(one(s, "xferbench_check_cell_pass", gpu="1", **h2d) == 0, "check: the slow cell fails")
    expect(one(s, "xferbench_check_link_pass", Hostname=host, link="host<->gpu1", peer="host", gpu="1") == 0,
           "check: its link FAILs")
    expect(one(s, "xferbench_check_link_margin_ratio", Hostname=host, link="host<->gpu1") < 1,
           "check: the failed link's margin is below 1")
    expect(one(s, "xferbench_check_link_pass", Hostname=host, link="host<->gpu0") == 1, "check: the other host link passes")
    expect(one(s, "xferbench_check_link_margin_ratio", Hostname=host, link="host<->gpu0") >= 1,
           "check: a passed link's margin is 1 or more")
    invalid = dict(Hostname=host, gpu="1", case="device_to_device_memcpy_read_ce")
    expect(one(s, "xferbench_cell_valid", **invalid) == 0, "check: the invalid cell")
    expect(values(s, "xferbench_bandwidth_bytes_per_second", **invalid) == [], "check: no value for the invalid cell")
    expect(one(s, "xferbench_check_pass", Hostname=host) == 0, "check: verdict")
    expect(one(s, "xferbench_exit_code", Hostname=host) == 1, "check: exit code")
    expect(one(s, "xferbench_up", Hostname=host) == 1, "check: it measured")
    expect(one(s, "xferbench_gpu_unusable_cells", Hostname=host, gpu="1") >= 1, "check: gpu1's invalid cell counted")


def check_run_fleet(s):
    expect({dict(ls)["Hostname"] for (n, ls) in s if n == "xferbench_exit_code"} == {"nodeA", "nodeB", "nodeC"},
           "fleet: a Hostname label per node")
    expect(one(s, "xferbench_exit_code", Hostname="nodeB") == 3, "fleet: the node without a GPU")
    expect(one(s, "xferbench_up", Hostname="nodeB", reason="no_device") == 0, "fleet: it is down, and why")
    expect(values(s, "xferbench_gpu_bandwidth_bytes_per_second", Hostname="nodeB") == [], "fleet: no cells for it")
    expect(one(s, "xferbench_fleet_outlier", Hostname="nodeC") == 1, "fleet: the slow node is an outlier")
    expect(one(s, "xferbench_fleet_outlier", Hostname="nodeA") == 0, "fleet: the other is not")
    a, c = (one(s, "xferbench_gpu_bandwidth_bytes_per_second", Hostname="node" + h, gpu="1", case="device_local_copy")
            for h in "AC")
    expect(near(c, a / 2), f"fleet: nodeC copies at half nodeA's rate ({c} vs {a})")


def check_check_fleet(s):
    expect(one(s, "xferbench_check_pass", Hostname="nodeA") == 1, "check fleet: nodeA passes")
    expect(one(s, "xferbench_check_pass", Hostname="nodeC") == 0, "check fleet: nodeC fails")
    expect(one(s, "xferbench_check_link_pass", Hostname="nodeC", link="host<->gpu0") == 0, "check fleet: nodeC's host link")
    expect(one(s, "xferbench_exit_code", Hostname="nodeB") == 3, "check fleet: nodeB has no GPU")
    expect(one(s, "xferbench_check_pass", Hostname="nodeB") == 0, "check fleet: nodeB is not accepted")
    expect(one(s, "xferbench_up", Hostname="nodeB", reason="no_device") == 0, "check fleet: nodeB is down, and why")


def check_cli():
    """The binary writes -o through a symbolic link, atomically, text on stdout."""
    cli = os.path.join(DIR, "cli")
    os.makedirs(cli, exist_ok=True)
    for name in os.listdir(cli):
        os.remove(os.path.join(cli, name))
    recorded = os.path.join(SRC, "bench/results/2026-11-23-h100/full1.json")
    with open(recorded, encoding="utf-8") as f:
        uuid = json.load(f)["environment"]["gpus"][0]["uuid"]
    target, link = os.path.join(cli, "target.prom"), os.path.join(cli, "link.prom")
    with open(target, "w", encoding="utf-8") as f:
        f.write("old\n")
    os.symlink("target.prom", link)
    before = os.stat(target).st_ino

    def check(out):
        return subprocess.run([XFERBENCH, "check", "--judge", recorded, "--format", "prometheus", "-o", out],
                              capture_output=True, text=True)

    r = check(link)
    expect(r.returncode in (0, 1), f"cli: check --judge exit {r.returncode}: {r.stderr}")
    expect("xferbench check: " in r.stdout and "# HELP" not in r.stdout, f"cli: stdout is not text: {r.stdout[:200]}")
    expect(os.path.islink(link) and os.readlink(link) == "target.prom", "cli: the link was replaced")
    expect(os.stat(target).st_ino != before, "cli: the target was rewritten in place, not renamed over")
    expect(sorted(os.listdir(cli)) == ["link.prom", "target.prom"], f"cli: files left behind: {os.listdir(cli)}")
    s = parse(target)
    expect(one(s, "xferbench_exit_code", Hostname="vm") == r.returncode, "cli: the file's exit code is the command's")
    expect(one(s, "xferbench_check_pass", Hostname="vm") == (r.returncode == 0), "cli: the verdict")
    expect(len(values(s, "xferbench_gpu_bandwidth_bytes_per_second", gpu="0", UUID=uuid)) >= 5, "cli: the recorded UUID")
    missing = os.path.join(cli, "no-such-dir", "x.prom")
    r = check(missing)
    expect(r.returncode == 7 and "cannot write output file" in r.stderr, f"cli: -o in a missing directory: {r}")
    expect(sorted(os.listdir(cli)) == ["link.prom", "target.prom"], "cli: a failed write created something")


def check_stdout():
    """Without -o the metrics go to stdout: a recorded full suite on four H200s, judged."""
    recorded = os.path.join(SRC, "bench/results/2026-11-22-h200x4/full.json")
    r = subprocess.run([XFERBENCH, "check", "--judge", recorded, "--format", "prometheus"], capture_output=True, text=True)
    expect(r.returncode in (0, 1) and r.stdout.startswith("# HELP "), f"stdout: exit {r.returncode}: {r.stderr}")
    path = os.path.join(DIR, "stdout_h200x4.prom")
    with open(path, "w", encoding="utf-8") as f:
        f.write(r.stdout)
    s = parse(path)
    expect(one(s, "xferbench_exit_code", Hostname="vm") == r.returncode, "stdout: the exit code")
    expect(len(values(s, "xferbench_check_link_pass")) >= 4 + 6, "stdout: a verdict per host link and GPU pair")
    # The check suite has 16 cases; gpu3 takes part in every one of them but the latencies.
    expect(len(values(s, "xferbench_gpu_bandwidth_bytes_per_second", gpu="3")) >= 14, "stdout: gpu3's cases")


CHECKS = {"run.prom": check_run, "check.prom": check_check, "run_fleet.prom": check_run_fleet,
          "check_fleet.prom": check_check_fleet}
for name, check in CHECKS.items():
    path = os.path.join(DIR, name)
    if not os.path.exists(path):
        failures.append(f"{path} is missing (ctest's prometheus_files writes it)")
        continue
    check(parse(path))
check_cli()
check_stdout()
for f in failures:
    print("FAILED:", f)
print(f"prometheus_check: {len(CHECKS) + 2} files, {len(failures)} failure(s)")
sys.exit(1 if failures else 0)
