"""Reading xferbench result JSON: schema checks and the data each plot needs.

Pure Python without matplotlib, so bad input is reported before any drawing
library is imported and nothing is written.
"""

import json
import os

# Schemas this plotter reads, with the versions it knows.
VERSIONED = {"xferbench-run": {1}, "xferbench-sweep": {1}, "xferbench-scenario": {1}, "xferbench-pingpong": {1},
             "xferbench-sms": {1}}
# Pingpong results written before the schema_version field carried the
# version in the name; "xferbench-pingpong/1" is schema_version 1.
PINGPONG_PREFIX = "xferbench-pingpong/"
LEGACY_PINGPONG = {"xferbench-pingpong/1"}


class InputError(Exception):
    """A result file this plotter cannot draw; the message is one line."""


class Result:
    def __init__(self, path, schema, doc):
        self.path = path
        self.schema = schema
        self.doc = doc

    @property
    def name(self):
        return os.path.splitext(os.path.basename(self.path))[0]


def load(path):
    try:
        with open(path, "r", encoding="utf-8") as f:
            doc = json.load(f)
    except OSError as e:
        raise InputError(f"cannot read '{path}': {e.strerror}") from None
    except ValueError as e:
        raise InputError(f"'{path}' is not JSON: {e}") from None
    schema = doc.get("schema") if isinstance(doc, dict) else None
    if not isinstance(schema, str):
        raise InputError(f"'{path}' is not an xferbench result: no \"schema\" field")
    if schema in LEGACY_PINGPONG:
        return Result(path, "xferbench-pingpong", doc)
    if schema.startswith(PINGPONG_PREFIX):
        raise InputError(f"'{path}' has schema '{schema}': this plotter reads xferbench-pingpong schema_version 1")
    if schema not in VERSIONED:
        raise InputError(f"'{path}' has schema '{schema}': this plotter reads "
                         "xferbench-run, xferbench-sweep, xferbench-sms, xferbench-pingpong and xferbench-scenario results")
    version = doc.get("schema_version")
    if version not in VERSIONED[schema]:
        raise InputError(f"'{path}' has {schema} schema_version {json.dumps(version)}: "
                         f"this plotter reads version {', '.join(map(str, sorted(VERSIONED[schema])))}")
    return Result(path, schema, doc)


def _number(value, path, where, field, optional=False):
    """`value` if it is a number (or None when optional); else InputError naming the file and the field."""
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"'{path}': {where}: field \"{field}\" is {json.dumps(value)}, not a number")
    return value


def _fit(fit, path, where):
    if fit is None:
        return None
    if not isinstance(fit, dict):
        raise InputError(f"'{path}': {where}: field \"fit\" is {json.dumps(fit)}, not an object")
    for field in ("startup_s", "asymptotic_gbps"):
        _number(fit.get(field), path, where, f"fit.{field}")
    _number(fit.get("n_half_bytes"), path, where, "fit.n_half_bytes", optional=True)
    return fit


def _get(obj, *keys, default=None):
    for k in keys:
        if not isinstance(obj, dict) or k not in obj:
            return default
        obj = obj[k]
    return obj


def curve_series(result):
    """Bandwidth-vs-size series: dicts with label, bytes, gbps, peak, link, fit."""
    out = []
    try:
        if result.schema == "xferbench-sweep":
            for s in result.doc["series"]:
                where = f"series '{s['label']}'"
                rows = s["rows"]
                out.append({"label": s["label"], "link": s.get("link", ""),
                            "bytes": [_number(r["bytes"], result.path, f"{where} row {i}", "bytes")
                                      for i, r in enumerate(rows)],
                            "gbps": [_number(r["value_gbps"], result.path, f"{where} row {i}", "value_gbps")
                                     for i, r in enumerate(rows)],
                            "peak": _number(_get(s, "peak", "gbps"), result.path, where, "peak.gbps", optional=True),
                            "fit": _fit(s.get("fit"), result.path, where)})
        elif result.schema == "xferbench-pingpong":
            mode = result.doc.get("mode", "pingpong")
            for p in result.doc["pairs"]:
                sizes = p.get("sizes") or []
                transport = p.get("transport") or "?"
                label = (f"r{p['rank_a']}-r{p['rank_b']} {p.get('buffer_a', '')}->{p.get('buffer_b', '')} "
                         f"{transport} ({mode})")
                where = f"pair r{p['rank_a']}-r{p['rank_b']}"
                out.append({"label": label, "link": transport,
                            "bytes": [_number(s["bytes"], result.path, f"{where} size {i}", "bytes")
                                      for i, s in enumerate(sizes)],
                            "gbps": [_number(s["bandwidth_gbps"], result.path, f"{where} size {i}", "bandwidth_gbps")
                                     for i, s in enumerate(sizes)],
                            "peak": None, "fit": None})
        else:
            raise InputError(f"'{result.path}' is an {result.schema} result: curves need a sweep or pingpong result")
    except (KeyError, TypeError, IndexError) as e:
        raise InputError(f"'{result.path}' is a malformed {result.schema} result: missing {e}") from None
    out = [s for s in out if s["bytes"]]
    if not out:
        raise InputError(f"'{result.path}' holds no measured sizes to draw")
    return out


def sm_budget_series(result):
    """SM-budget curves (sweep --sms): dicts with label, link, sms, gbps, peak, all_sm_gbps, sms_for_90/95."""
    if result.schema != "xferbench-sms":
        raise InputError(f"'{result.path}' is an {result.schema} result: SM budget curves need a sweep --sms result")
    out = []
    try:
        for s in result.doc["series"]:
            points = sorted(s["points"], key=lambda p: p["sms"])
            out.append({"label": s["label"], "link": s.get("link", ""), "sms": [p["sms"] for p in points],
                        "gbps": [p["value_gbps"] for p in points], "peak": _get(s, "peak", "gbps"),
                        "gpu_sms": s["gpu_sms"], "all_sm_gbps": s["all_sm_gbps"],
                        "sms_for_90": s.get("sms_for_90pct"), "sms_for_95": s.get("sms_for_95pct")})
    except (KeyError, TypeError) as e:
        raise InputError(f"'{result.path}' is a malformed xferbench-sms result: missing {e}") from None
    out = [s for s in out if s["sms"]]
    if not out:
        raise InputError(f"'{result.path}' holds no measured SM counts to draw")
    return out


def heatmap_panels(result):
    """One panel per measured matrix of a run: title, labels, values, efficiencies, unit."""
    if result.schema != "xferbench-run":
        raise InputError(f"'{result.path}' is an {result.schema} result: heatmaps need a run result")
    panels = []
    try:
        for case in result.doc["cases"]:
            for m in case.get("matrices") or []:
                unit = "ns" if m.get("metric") == "latency_ns" else "gbps"
                rows, cols = m["row_labels"], m["col_labels"]
                values = [[None] * len(cols) for _ in rows]
                eff = [[None] * len(cols) for _ in rows]
                name = case["name"] + (f" [{m['name']}]" if m.get("name") else "")
                for c in m["cells"]:
                    where = f"case '{name}' cell ({c['row']}, {c['col']})"
                    values[c["row"]][c["col"]] = _number(c[f"value_{unit}"], result.path, where, f"value_{unit}")
                    eff[c["row"]][c["col"]] = _number(c.get("efficiency"), result.path, where, "efficiency",
                                                      optional=True)
                if not m["cells"]:
                    continue
                panels.append({"title": name, "subtitle": m.get("title", ""), "rows": rows, "cols": cols,
                               "values": values, "efficiency": eff, "unit": unit})
    except (KeyError, TypeError, IndexError) as e:
        raise InputError(f"'{result.path}' is a malformed xferbench-run result: missing {e}") from None
    if not panels:
        raise InputError(f"'{result.path}' holds no measured matrices to draw")
    return panels


def _as_list(v):
    if isinstance(v, (int, float)):
        return [float(v)]
    if isinstance(v, list) and all(isinstance(x, (int, float)) for x in v):
        return [float(x) for x in v]
    return None


def _walk(node, found, context):
    if isinstance(node, dict):
        starts, ends = _as_list(node.get("start_s")), _as_list(node.get("end_s"))
        if starts is not None and ends is not None and len(starts) == len(ends) and starts:
            label = node.get("label") or node.get("name") or f"{context} #{len(found)}"
            found.append({"label": str(label), "start_s": starts, "end_s": ends})
            return
        for k, v in node.items():
            _walk(v, found, node.get("name", context) if k != "name" else context)
    elif isinstance(node, list):
        for v in node:
            _walk(v, found, context)


def timeline_transfers(result):
    """Every object holding per-transfer start_s and end_s (numbers or per-sample lists), in file order."""
    found = []
    _walk(result.doc, found, "transfer")
    if not found:
        raise InputError(f"'{result.path}' has no per-transfer start_s/end_s to draw a timeline from")
    return found
