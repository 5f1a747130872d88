"""prometheus_alerts.py XFERBENCH SRC WORKDIR (run by prometheus_check.sh --alerts).

Prometheus's own promtool evaluates xferbench's metrics files against the
alerting rules the package ships (share/xferbench/prometheus/
xferbench-alerts.yml, which docs/prometheus.md shows verbatim):

1. The rules load (promtool check rules) and the docs show them unchanged.
2. Every run recorded in bench/results is judged by `check --judge` (the
   built-in expectations) into a metrics file; on each node the check
   passes, no alert of the file fires; on each it fails (a recorded run
   with one cell halved, on purpose, so the test can tell), exactly
   XferbenchCheckFailed and XferbenchLinkFailed for each failed link do.
3. The old PASS is gone: a passing check's file, then `check` again on a
   machine without a usable GPU (CUDA_VISIBLE_DEVICES empty), writing the
   same file: exit 3, xferbench_up 0 with reason no_device, no
   xferbench_check_pass 1 left, the last success carried over, and
   XferbenchCannotMeasure and XferbenchCheckFailed fire.
4. XferbenchCheckStale fires three days after the last check, not one day
   after.
"""
import json
import os
import re
import socket
import subprocess
import sys

XFERBENCH, SRC, WORK = sys.argv[1:4]
RULES = os.path.join(SRC, "share", "xferbench", "prometheus", "xferbench-alerts.yml")
failures = []


def expect(ok, what):
    if not ok:
        failures.append(what)


def alert_rules():
    """[(name, labels, summary template)] of the rules file, in order."""
    text = open(RULES, encoding="utf-8").read()
    out = []
    for block in text.split("- alert: ")[1:]:
        name = block.split("\n", 1)[0].strip()
        labels = dict(re.findall(r"\n {10}(\w+): (\w+)", block.split("annotations:")[0]))
        summary = re.search(r'summary: "(.*)"', block).group(1)
        out.append((name, labels, summary))
    return out


def samples(path):
    """[(series text, value)] of a metrics file: each sample line split at its last space."""
    out = []
    for line in open(path, encoding="utf-8"):
        if line.startswith("#") or not line.strip():
            continue
        series, value = line.rstrip("\n").rsplit(" ", 1)
        out.append((series, value))
    return out


def labels_of(series):
    body = series[series.index("{") + 1:-1] if "{" in series else ""
    return {k: v.replace('\\"', '"').replace("\\\\", "\\") for k, v in re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', body)}


def render(template, labels):
    return re.sub(r"\{\{ \$labels\.(\w+) \}\}", lambda m: labels.get(m.group(1), ""), template)


def input_series(path, steps=10):
    return [{"series": s, "values": f"{v}+0x{steps}"} for s, v in samples(path)]


def promtool_test(name, tests, evaluation_interval="1m"):
    path = os.path.join(WORK, name)
    # JSON is YAML: promtool reads it as its test file.
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"rule_files": [RULES], "evaluation_interval": evaluation_interval, "tests": tests}, f)
    r = subprocess.run(["promtool", "test", "rules", path], capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def docs_show_the_rules():
    rules = open(RULES, encoding="utf-8").read().rstrip("\n").split("\n")
    docs = open(os.path.join(SRC, "docs", "prometheus.md"), encoding="utf-8").read()
    block = "\n".join(("    " + line).rstrip() for line in rules)
    expect(block in docs, "docs/prometheus.md does not show share/xferbench/prometheus/xferbench-alerts.yml verbatim "
                          "(an indented block)")
    r = subprocess.run(["promtool", "check", "rules", RULES], capture_output=True, text=True)
    expect(r.returncode == 0, f"promtool check rules: {r.stdout}{r.stderr}")


def recorded_runs():
    found = []
    for root, _dirs, files in os.walk(os.path.join(SRC, "bench", "results")):
        for name in sorted(files):
            if not name.endswith(".json"):
                continue
            path = os.path.join(root, name)
            try:
                doc = json.load(open(path, encoding="utf-8"))
            except ValueError:
                continue
            if isinstance(doc, dict) and doc.get("schema") == "xferbench-run" and doc.get("schema_version") == 1:
                found.append(path)
    return sorted(found)


def check_file(run, out, env=None, *extra):
    return subprocess.run([XFERBENCH, "check", "--judge", run, "--format", "prometheus", "-o", out, *extra],
                          capture_output=True, text=True, env=env)


def degraded_copy(run, out):
    """A recorded run with its gpu0's host-to-GPU copy-engine cell at half its value: check must fail it."""
    doc = json.load(open(run, encoding="utf-8"))
    for c in doc["cases"]:
        if c["name"] == "host_to_device_memcpy_ce":
            for cell in c["matrices"][0]["cells"]:
                if cell["col"] == 0:
                    cell["value_gbps"] /= 2
                    cell["efficiency"] /= 2
    json.dump(doc, open(out, "w", encoding="utf-8"))
    return out


def expected_alerts(rules, path, code):
    """What each alert must give for a check file: nothing when check passed; when it failed,
    XferbenchCheckFailed for the host and XferbenchLinkFailed for each link whose verdict is 0."""
    out = {name: [] for name, _labels, _summary in rules}
    if code == 0:
        return out
    by_name = {n: (labels, summary) for n, labels, summary in rules}
    for series, value in samples(path):
        name, labels = series.split("{", 1)[0], labels_of(series)
        if name == "xferbench_check_pass" and float(value) == 0:
            alert = "XferbenchCheckFailed"
        elif name == "xferbench_check_link_pass" and float(value) == 0:
            alert = "XferbenchLinkFailed"
        else:
            continue
        rule_labels, summary = by_name[alert]
        out[alert].append({"exp_labels": dict(rule_labels, **labels),
                           "exp_annotations": {"summary": render(summary, labels)}})
    return out


def alerts_on_recorded_runs(rules):
    runs = recorded_runs()
    # A negative control: the same files must make the alerts fire when check fails.
    control = degraded_copy(os.path.join(SRC, "bench", "results", "2026-11-21-h200x2-full-run1.json"),
                            os.path.join(WORK, "degraded_h200x2.json"))
    tests, passed, failed = [], 0, 0
    for i, run in enumerate(runs + [control]):
        out = os.path.join(WORK, f"recorded{i}.prom")
        r = check_file(run, out)
        rel = os.path.relpath(run, SRC)
        expect(r.returncode in (0, 1), f"check --judge {rel}: exit {r.returncode}: {r.stderr}")
        if r.returncode not in (0, 1):
            continue
        want = expected_alerts(rules, out, r.returncode)
        if run == control:
            expect(r.returncode == 1 and len(want["XferbenchLinkFailed"]) == 1,
                   f"the degraded run: exit {r.returncode}, failed links {want['XferbenchLinkFailed']}")
        group = {"interval": "1m", "input_series": input_series(out), "name": rel,
                 "alert_rule_test": [{"eval_time": "5m", "alertname": name, "exp_alerts": want[name]}
                                     for name, _labels, _summary in rules]}
        tests.append(group)
        passed += r.returncode == 0
        failed += r.returncode == 1
    code, text = promtool_test("recorded_runs.test.json", tests)
    expect(code == 0, f"promtool test rules on the recorded runs: {text[-3000:]}")
    expect(passed >= 10, f"only {passed} recorded runs pass check: too few to show anything")
    print(f"{len(runs)} recorded runs: {passed} pass check and raise no alert; {failed} fail it (one degraded on "
          "purpose) and raise exactly XferbenchCheckFailed and XferbenchLinkFailed for each failed link")


def old_pass_is_gone(rules):
    host = socket.gethostname()
    run = os.path.join(SRC, "bench", "results", "2026-11-23-h200", "xferbench_full1.json")
    doc = json.load(open(run, encoding="utf-8"))
    doc["environment"]["hostname"] = host
    judged = os.path.join(WORK, "this_host_run.json")
    json.dump(doc, open(judged, "w", encoding="utf-8"))
    prom = os.path.join(WORK, "node.prom")
    r = check_file(judged, prom)
    expect(r.returncode == 0, f"the passing check: exit {r.returncode}: {r.stderr}")
    started = next(float(v) for s, v in samples(prom) if s.startswith("xferbench_last_run_timestamp_seconds"))
    before = input_series(prom)
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="")
    r = subprocess.run([XFERBENCH, "check", "--summary", "--format", "prometheus", "-o", prom], capture_output=True,
                       text=True, env=env)
    expect(r.returncode == 3, f"check without a usable GPU: exit {r.returncode}, not 3: {r.stderr}")
    expect("without a GPU these work" in r.stderr, f"the no-GPU message names no command that works: {r.stderr}")
    lint = subprocess.run(["promtool", "check", "metrics"], stdin=open(prom, encoding="utf-8"), capture_output=True,
                          text=True)
    expect(lint.returncode == 0 and not lint.stdout + lint.stderr, f"promtool check metrics: {lint.stdout}{lint.stderr}")
    h = f'Hostname="{host}"'
    by_name = {n: (labels, summary) for n, labels, summary in rules}
    fired = lambda name, labels: {"exp_labels": dict(by_name[name][0], **labels),  # noqa: E731
                                  "exp_annotations": {"summary": render(by_name[name][1], labels)}}
    tests = [
        {"name": "the passing check's file", "interval": "1m", "input_series": before,
         "promql_expr_test": [{"expr": "xferbench_check_pass == 1", "eval_time": "5m",
                               "exp_samples": [{"labels": f"xferbench_check_pass{{{h}}}", "value": 1}]}]},
        {"name": "the same file after a check that could not measure", "interval": "1m",
         "input_series": input_series(prom),
         "promql_expr_test": [
             {"expr": "xferbench_check_pass == 1", "eval_time": "5m", "exp_samples": []},
             {"expr": "xferbench_check_pass", "eval_time": "5m",
              "exp_samples": [{"labels": f"xferbench_check_pass{{{h}}}", "value": 0}]},
             {"expr": "xferbench_up", "eval_time": "5m",
              "exp_samples": [{"labels": f'xferbench_up{{{h},reason="no_device"}}', "value": 0}]},
             {"expr": "xferbench_exit_code", "eval_time": "5m",
              "exp_samples": [{"labels": f"xferbench_exit_code{{{h}}}", "value": 3}]},
             {"expr": "xferbench_last_success_timestamp_seconds", "eval_time": "5m",
              "exp_samples": [{"labels": f"xferbench_last_success_timestamp_seconds{{{h}}}", "value": started}]},
             {"expr": "count(xferbench_gpu_bandwidth_bytes_per_second)", "eval_time": "5m", "exp_samples": []}],
         "alert_rule_test": [
             {"eval_time": "5m", "alertname": "XferbenchCannotMeasure",
              "exp_alerts": [fired("XferbenchCannotMeasure", {"Hostname": host, "reason": "no_device"})]},
             {"eval_time": "5m", "alertname": "XferbenchCheckFailed",
              "exp_alerts": [fired("XferbenchCheckFailed", {"Hostname": host})]},
             {"eval_time": "5m", "alertname": "XferbenchLinkFailed", "exp_alerts": []}]},
    ]
    code, text = promtool_test("old_pass.test.json", tests)
    expect(code == 0, f"promtool test rules, the old PASS: {text[-3000:]}")


def stale_check_alerts(rules):
    """XferbenchCheckStale on a file whose check started at T: quiet at T + 1 day, firing at T + 3 days."""
    day = 86400
    start = 1795000000  # 2026-11-18, near the recorded runs
    days = start // day + 4
    series = [{"series": 'xferbench_last_run_timestamp_seconds{Hostname="n1"}', "values": f"{start}+0x{days}"}]
    name, labels, summary = next(r for r in rules if r[0] == "XferbenchCheckStale")
    test = {"interval": "1d", "input_series": series, "alert_rule_test": [
        {"eval_time": f"{(start + day) // day}d", "alertname": name, "exp_alerts": []},
        {"eval_time": f"{(start + 3 * day) // day}d", "alertname": name,
         "exp_alerts": [{"exp_labels": dict(labels, Hostname="n1"),
                         "exp_annotations": {"summary": render(summary, {"Hostname": "n1"})}}]}]}
    code, text = promtool_test("stale.test.json", [test], evaluation_interval="1d")
    expect(code == 0, f"promtool test rules, staleness: {text[-2000:]}")


os.makedirs(WORK, exist_ok=True)
RULESET = alert_rules()
expect([r[0] for r in RULESET] == ["XferbenchCannotMeasure", "XferbenchCheckFailed", "XferbenchLinkFailed",
                                   "XferbenchCheckStale"], f"the rules file's alerts: {[r[0] for r in RULESET]}")
docs_show_the_rules()
alerts_on_recorded_runs(RULESET)
old_pass_is_gone(RULESET)
stale_check_alerts(RULESET)
for f in failures:
    print("FAILED:", f)
print(f"prometheus_alerts: {len(failures)} failure(s)")
sys.exit(1 if failures else 0)
