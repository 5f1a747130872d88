"""Reading xferbench result JSON: schema checks and the data each plot needs.

Pure Python without matplotlib, so bad input is reported before any drawing
library is imported and nothing is written.
"""

import json
import math
import os
import stat

from . import fabric, soak
from .fields import InputError, Place, describe

# Schemas this plotter reads, with the versions it knows.
VERSIONED = {"xferbench-run": {1}, "xferbench-sweep": {1}, "xferbench-scenario": {1}, "xferbench-pingpong": {1},
             "xferbench-sms": {1}, "xferbench-fleet": {1}, fabric.SCHEMA: {1}}
# Pingpong results written before the schema_version field carried the
# version in the name; "xferbench-pingpong/1" is schema_version 1.
PINGPONG_PREFIX = "xferbench-pingpong/"
LEGACY_PINGPONG = {"xferbench-pingpong/1"}
# What one figure can hold: matplotlib refuses images of 2^16 pixels or more
# on a side (at 100 dpi, 655 inches), and a matrix of thousands of labelled
# cells would take minutes to draw and be unreadable.
MAX_PANELS = 300
MAX_MATRIX_SIDE = 256
MAX_TIMELINE_ROWS = 1000
MAX_TIMELINE_BARS = 100_000

__all__ = ["InputError", "Result", "load", "curve_series", "sm_budget_series", "heatmap_panels", "timeline_transfers"]


class Result:
    def __init__(self, path, schema, doc):
        self.path = path
        self.schema = schema
        self.doc = doc

    @property
    def name(self):
        return os.path.splitext(os.path.basename(self.path))[0]


def _read(path):
    """The file's text; only a regular file is read (a FIFO would wait for a writer, a directory has no text)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as e:
        raise InputError(f"cannot read '{path}': {e.strerror}") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise InputError(f"cannot read '{path}': not a regular file")
    with os.fdopen(fd, "rb") as f:
        try:
            data = f.read()
        except OSError as e:
            raise InputError(f"cannot read '{path}': {e.strerror}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(f"'{path}' is not JSON: not UTF-8 text (byte {e.start})") from None


class _NumberOutOfRange(ValueError):
    pass


def _finite_float(text):
    """A JSON number as a float; one beyond a double's range (1e400) is an error, not inf."""
    value = float(text)
    if math.isinf(value):
        raise _NumberOutOfRange(f"the number {text} is out of range")
    return value


def _no_constant(name):
    raise _NumberOutOfRange(f"{name} is not a JSON number")


def _parse_json(text):
    return json.loads(text, parse_float=_finite_float, parse_constant=_no_constant)


def load(path):
    text = _read(path)
    # A soak file is JSON Lines: told by its first line's schema, whatever the file's name.
    if soak.header_of(text, _parse_json) is not None:
        return Result(path, soak.SCHEMA, soak.parse(path, text, _parse_json))
    try:
        doc = _parse_json(text)
    except RecursionError:
        raise InputError(f"'{path}' is not JSON this plotter reads: lists or objects nested too deeply") from None
    except ValueError as e:  # also a number with more digits than Python converts
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
                         "xferbench-run, xferbench-sweep, xferbench-sms, xferbench-pingpong, xferbench-scenario and "
                         "xferbench-fleet results "
                         f"and {soak.SCHEMA} files")
    version = doc.get("schema_version")
    if isinstance(version, bool) or not isinstance(version, int) or version not in VERSIONED[schema]:
        raise InputError(f"'{path}' has {schema} schema_version {describe(version)}: "
                         f"this plotter reads version {', '.join(map(str, sorted(VERSIONED[schema])))}")
    return Result(path, schema, doc)


def _peak(at, series):
    """A series' theoretical peak in GB/s, or None when unknown (the field is null)."""
    peak = at.object(series, "peak", optional=True)
    return None if peak is None else at.number(peak, "gbps", optional=True, minimum=0, name="peak.gbps")


def _fit(at, series):
    """A sweep series' fit, or None. Its startup_s may be negative and n_half_bytes 0 (the report says n/a)."""
    fit = at.object(series, "fit", optional=True)
    if fit is None:
        return None
    return {"startup_s": at.number(fit, "startup_s", name="fit.startup_s"),
            "asymptotic_gbps": at.number(fit, "asymptotic_gbps", name="fit.asymptotic_gbps"),
            "n_half_bytes": at.number(fit, "n_half_bytes", optional=True, name="fit.n_half_bytes")}


def _sweep_series(result):
    place, out = Place(result.path), []
    for i, s in enumerate(place.objects(result.doc, "series")):
        label = place.at(f"series[{i}]").text(s, "label")
        at = place.at(f"series '{label}'")
        rows = at.objects(s, "rows")
        points = [(place.at(f"series '{label}' row {j}"), r) for j, r in enumerate(rows)]
        out.append({"label": label, "link": at.text(s, "link", optional=True),
                    "bytes": [p.number(r, "bytes", positive=True) for p, r in points],
                    "gbps": [p.number(r, "value_gbps", minimum=0) for p, r in points],
                    "peak": _peak(at, s), "fit": _fit(at, s)})
    return out


def _pingpong_series(result):
    place, out = Place(result.path), []
    mode = place.text(result.doc, "mode", optional=True, default="pingpong")
    for i, p in enumerate(place.objects(result.doc, "pairs")):
        ranks = [place.at(f"pairs[{i}]").number(p, k, integer=True, minimum=0) for k in ("rank_a", "rank_b")]
        where = f"pair r{ranks[0]}-r{ranks[1]}"
        at = place.at(where)
        transport = at.text(p, "transport", optional=True) or "?"
        buffers = [at.text(p, k, optional=True) for k in ("buffer_a", "buffer_b")]
        sizes = [(place.at(f"{where} size {j}"), s) for j, s in enumerate(at.objects(p, "sizes", optional=True))]
        out.append({"label": f"r{ranks[0]}-r{ranks[1]} {buffers[0]}->{buffers[1]} {transport} ({mode})",
                    "link": transport,
                    "bytes": [q.number(s, "bytes", positive=True) for q, s in sizes],
                    "gbps": [q.number(s, "bandwidth_gbps", minimum=0) for q, s in sizes],
                    "peak": None, "fit": None})
    return out


def curve_series(result):
    """Bandwidth-vs-size series: dicts with label, bytes, gbps, peak, link, fit."""
    if result.schema == "xferbench-sweep":
        out = _sweep_series(result)
    elif result.schema == "xferbench-pingpong":
        out = _pingpong_series(result)
    else:
        raise InputError(f"'{result.path}' is an {result.schema} result: curves need a sweep or pingpong result")
    out = [s for s in out if s["bytes"]]
    if not out:
        raise InputError(f"'{result.path}' holds no measured sizes to draw")
    return out


def sm_budget_series(result):
    """SM-budget curves (sweep --sms): dicts with label, link, sms, gbps, peak, all_sm_gbps, sms_for_90/95."""
    if result.schema != "xferbench-sms":
        raise InputError(f"'{result.path}' is an {result.schema} result: SM budget curves need a sweep --sms result")
    place, out = Place(result.path), []
    for i, s in enumerate(place.objects(result.doc, "series")):
        label = place.at(f"series[{i}]").text(s, "label")
        at = place.at(f"series '{label}'")
        points = []
        for j, p in enumerate(at.objects(s, "points")):
            q = place.at(f"series '{label}' points[{j}]")
            points.append((q.number(p, "sms", integer=True, positive=True), q.number(p, "value_gbps", minimum=0)))
        points.sort(key=lambda point: point[0])
        out.append({"label": label, "link": at.text(s, "link", optional=True), "sms": [p[0] for p in points],
                    "gbps": [p[1] for p in points], "peak": _peak(at, s),
                    "gpu_sms": at.number(s, "gpu_sms", integer=True, positive=True),
                    "all_sm_gbps": at.number(s, "all_sm_gbps", minimum=0),
                    "sms_for_90": at.number(s, "sms_for_90pct", optional=True, integer=True, positive=True),
                    "sms_for_95": at.number(s, "sms_for_95pct", optional=True, integer=True, positive=True)})
    out = [s for s in out if s["sms"]]
    if not out:
        raise InputError(f"'{result.path}' holds no measured SM counts to draw")
    return out


def _index(place, cell, key, labels):
    """A cell's row or col: an index into the matrix's labels (a negative one would silently pick another cell)."""
    i = place.number(cell, key, integer=True, minimum=0)
    if i >= len(labels):
        raise place.bad(key, i, f"an index below {len(labels)} (the matrix has {len(labels)} {key}s)")
    return i


def _panel(place, case_name, at, m):
    """One matrix of a run as a heatmap panel, or None when it has no cells."""
    rows, cols = at.texts(m, "row_labels"), at.texts(m, "col_labels")
    for key, labels in (("row_labels", rows), ("col_labels", cols)):
        if len(labels) > MAX_MATRIX_SIDE:
            raise InputError(f"'{place.path}': {at.where}: field \"{key}\" has {len(labels)} entries: "
                             f"a heatmap draws at most {MAX_MATRIX_SIDE}")
    unit = "ns" if at.text(m, "metric", optional=True) == "latency_ns" else "gbps"
    name = at.text(m, "name", optional=True)
    title = case_name + (f" [{name}]" if name else "")
    values = [[None] * len(cols) for _ in rows]
    eff = [[None] * len(cols) for _ in rows]
    loaded = []
    cells = at.objects(m, "cells")
    for j, c in enumerate(cells):
        index_at = place.at(f"case '{title}' cells[{j}]")
        r, k = _index(index_at, c, "row", rows), _index(index_at, c, "col", cols)
        where = place.at(f"case '{title}' cell ({r}, {k})")
        values[r][k] = where.number(c, f"value_{unit}", minimum=0)
        eff[r][k] = where.number(c, "efficiency", optional=True, minimum=0)
        if unit == "ns" and c.get("loaded") is not None:
            loaded.append(_loaded(where, c, f"{rows[r]}, {cols[k]}", values[r][k]))
    if not cells:
        return None
    return {"title": title, "subtitle": at.text(m, "title", optional=True), "rows": rows, "cols": cols,
            "values": values, "efficiency": eff, "unit": unit, "loaded": loaded}


def _loaded(where, cell, label, value_ns):
    """A loaded-latency cell: idle and loaded ns, their ratio, and the load that ran (a weak one cannot fake a
    small ratio, so it is shown)."""
    lo, at = where.object(cell, "loaded"), where
    idle = at.number(lo, "idle_ns", minimum=0, name="loaded.idle_ns")
    busy = at.number(lo, "loaded_ns", optional=True, minimum=0, name="loaded.loaded_ns")
    busy = value_ns if busy is None else busy
    ratio = at.number(lo, "ratio", optional=True, minimum=0, name="loaded.ratio")
    load = at.object(lo, "load", optional=True) or {}
    pct = at.number(load, "pct_of_peak", optional=True, minimum=0, name="loaded.load.pct_of_peak")
    weak = load.get("weak")
    if weak is not None and not isinstance(weak, bool):
        raise at.bad("loaded.load.weak", weak, "true or false")
    return {"label": label, "idle_ns": idle, "loaded_ns": busy,
            "ratio": ratio if ratio is not None else (busy / idle if idle > 0 else None),
            "load_label": at.text(load, "label", optional=True),
            "load_gbps": at.number(load, "gbps", optional=True, minimum=0, name="loaded.load.gbps"),
            "load_link": at.text(load, "link", optional=True), "pct_of_peak": pct,
            "weak": weak if weak is not None else (pct is not None and pct < 50)}


def heatmap_panels(result):
    """One panel per measured matrix of a run: title, labels, values, efficiencies, unit."""
    if result.schema != "xferbench-run":
        raise InputError(f"'{result.path}' is an {result.schema} result: heatmaps need a run result")
    place, panels = Place(result.path), []
    for i, case in enumerate(place.objects(result.doc, "cases")):
        name = place.at(f"cases[{i}]").text(case, "name")
        for k, m in enumerate(place.at(f"case '{name}'").objects(case, "matrices", optional=True)):
            panel = _panel(place, name, place.at(f"case '{name}' matrices[{k}]"), m)
            if panel is not None:
                panels.append(panel)
    if not panels:
        raise InputError(f"'{result.path}' holds no measured matrices to draw")
    if len(panels) > MAX_PANELS:
        raise InputError(f"'{result.path}' holds {len(panels)} measured matrices: a figure draws at most {MAX_PANELS}")
    return panels


def _times(at, node, key):
    """start_s or end_s of a transfer: a number or a non-empty list of numbers (one per sample)."""
    value = node[key]
    if isinstance(value, list):
        if not value:
            raise at.bad(key, value, "a number or a non-empty list of numbers")
        return [float(at.number(value, i, name=f"{key}[{i}]")) for i in range(len(value))]
    return [float(at.number(node, key))]


def _transfer(place, node, label):
    at = place.at(f"transfer '{label}'")
    starts, ends = _times(at, node, "start_s"), _times(at, node, "end_s")
    if len(starts) != len(ends):
        raise InputError(f"'{place.path}': {at.where}: field \"start_s\" has {len(starts)} samples "
                         f"and \"end_s\" {len(ends)}")
    for i, (s, e) in enumerate(zip(starts, ends)):
        if e < s:
            raise InputError(f"'{place.path}': {at.where}: sample {i} ends ({e!r} s) before it starts ({s!r} s)")
    return {"label": label, "start_s": starts, "end_s": ends}


def _label(place, node, context, count):
    for key in ("label", "name"):
        if node.get(key) is not None:
            text = place.at(f"transfer {count}").text(node, key)
            if text:
                return text
    return f"{context} #{count}"


def timeline_transfers(result):
    """Every object holding per-transfer start_s and end_s (numbers or per-sample lists), in file order."""
    place, found = Place(result.path), []
    # Depth first in file order, without recursion: a deeply nested file must not end in a RecursionError.
    stack = [(result.doc, "transfer")]
    while stack:
        node, context = stack.pop()
        if isinstance(node, dict):
            if node.get("start_s") is not None and node.get("end_s") is not None:  # null: no time recorded
                found.append(_transfer(place, node, _label(place, node, context, len(found))))
                continue
            name = node.get("name")
            inner = name if isinstance(name, str) and name else context
            stack.extend((v, context if k == "name" else inner) for k, v in reversed(list(node.items())))
        elif isinstance(node, list):
            stack.extend((v, context) for v in reversed(node))
    if not found:
        raise InputError(f"'{result.path}' has no per-transfer start_s/end_s to draw a timeline from")
    bars = sum(len(t["start_s"]) for t in found)
    if len(found) > MAX_TIMELINE_ROWS or bars > MAX_TIMELINE_BARS:
        raise InputError(f"'{result.path}' holds {len(found)} transfers with {bars} samples: a timeline draws at most "
                         f"{MAX_TIMELINE_ROWS} transfers and {MAX_TIMELINE_BARS} samples")
    return found
