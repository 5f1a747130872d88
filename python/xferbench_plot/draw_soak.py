"""The soak figure: small multiples, one panel per cell (value against elapsed
time), then four telemetry panels (temperature, power, SM clock, memory
clock) with a line per GPU. Every panel shares the time axis and shows the
same events: clock-slowdown spans shaded, XIDs, error-counter increases and
resumes as vertical lines; their labels are written on the telemetry panels,
so the cell panels stay readable when a soak has twenty cells."""

import statistics

from matplotlib.collections import LineCollection, PolyCollection
from matplotlib.figure import Figure
from matplotlib.transforms import blended_transform_factory

from .soak import SLOWDOWN_MASK, slowdown_names

DPI = 100
NCOLS = 4
TELEMETRY = (("temperature_c", "temperature (°C)"), ("power_w", "power (W)"),
             ("sm_clock_mhz", "SM clock (MHz)"), ("mem_clock_mhz", "memory clock (MHz)"))
COUNTERS = (("ecc_corrected", "ECC corrected"), ("ecc_uncorrected", "ECC uncorrected"),
            ("rows_remapped_correctable", "row remap"), ("rows_remapped_uncorrectable", "row remap (uncorrectable)"),
            ("pcie_replays", "PCIe replay"))
STYLE = {"xid": dict(color="tab:red", linewidth=1.2),
         "counter": dict(color="tab:purple", linewidth=1.0, linestyle="--"),
         "resume": dict(color="0.35", linewidth=1.0, linestyle="-.")}
SHADE = dict(color="tab:orange", alpha=0.2, linewidth=0)
WEAK_LOAD_PCT = 50
MAX_LABELS = 24  # event labels written on the figure; every event is still drawn


def _time_axis(span_s):
    """Hours for a soak of 2 h or more, minutes below."""
    return (3600.0, "elapsed time (h)") if span_s >= 7200 else (60.0, "elapsed time (min)")


def _readings(samples):
    """{gpu: [(t_s, reading)...]} in time order."""
    by_gpu = {}
    for s in samples:
        for r in s["telemetry"]:
            by_gpu.setdefault(r["gpu"], []).append((s["t_s"], r))
    for rows in by_gpu.values():
        rows.sort(key=lambda row: row[0])
    return dict(sorted(by_gpu.items()))


def _throttle_spans(by_gpu, span_s):
    """(start_s, end_s, label) of each run of readings with a slowdown bit, per GPU; a reading stands for the
    time up to halfway to its neighbours, and a lone one at the end gets a sliver, so every one shows."""
    spans = []
    for gpu, rows in by_gpu.items():
        run = None  # [start_s, end_s, reason bits] of the run being extended
        for i, (t, r) in enumerate(rows):
            mask = (r["clock_reasons"] or 0) & SLOWDOWN_MASK
            if not mask:
                run = None
                continue
            lo = (rows[i - 1][0] + t) / 2 if i > 0 else t
            hi = (rows[i + 1][0] + t) / 2 if i + 1 < len(rows) else t
            if run is None:
                run = [lo, hi, 0, gpu]
                spans.append(run)
            run[1], run[2] = max(run[1], hi), run[2] | mask
    width = span_s * 0.004
    return [(a, max(b, a + width), f"gpu{gpu} " + ", ".join(slowdown_names(mask))) for a, b, mask, gpu in spans]


def _events(data, by_gpu):
    """(t_s, kind, series, label): XIDs, error-counter increases (per GPU, against its previous reading) and resumes.
    Events of one series share one label: a counter that rises in every reading of an 8-hour soak is thousands of
    events and one series."""
    events = [(t, "resume", ("resume",), "resume") for t in data["resumes"]]
    for gpu, rows in by_gpu.items():
        last = {}
        for t, r in rows:
            for x in r["xids"]:
                events.append((t, "xid", ("xid", gpu, x), f"XID {x} (gpu{gpu})"))
            for key, name in COUNTERS:
                v = r[key]
                if v is None:
                    continue
                if key in last and v > last[key]:
                    events.append((t, "counter", ("counter", gpu, key), (name, gpu, v - last[key])))
                last[key] = v
    return sorted(events, key=lambda e: e[0])


def _labels(spans, events):
    """(t_s, kind, text) of at most MAX_LABELS labels: one per series of events at its first time (with how many
    there were), then one per throttled GPU; and how many more series were left unlabelled."""
    series = {}
    for t, kind, key, label in events:
        first = series.setdefault(key, [t, kind, label, 0, 0])
        first[3] += 1
        if kind == "counter":
            first[4] += label[2]
    labels = []
    for t, kind, label, count, total in series.values():
        if kind == "counter":
            name, gpu, _ = label
            text = f"{name} +{total} (gpu{gpu})" + (f" in {count} increases" if count > 1 else "")
        else:
            text = label + (f" x{count}" if count > 1 else "")
        labels.append((t, kind, text))
    throttled = {}
    for a, _b, label in spans:
        throttled.setdefault(label.split(" ", 1)[0], [a, "throttle", label, 0])[3] += 1
    for a, kind, label, count in throttled.values():
        labels.append((a, kind, label + (f" ({count} spans)" if count > 1 else "")))
    labels.sort(key=lambda x: x[0])
    return labels[:MAX_LABELS], max(0, len(labels) - MAX_LABELS)


def _mark(ax, spans, events, labels, scale):
    """Shades the slowdown spans and draws every event as a vertical line: one collection per kind, so thousands of
    counter increases cost one drawing call, not one artist each."""
    where = blended_transform_factory(ax.transData, ax.transAxes)
    if spans:
        boxes = [[(a / scale, 0), (a / scale, 1), (b / scale, 1), (b / scale, 0)] for a, b, _label in spans]
        ax.add_collection(PolyCollection(boxes, transform=where, **SHADE), autolim=False)
    for kind, style in STYLE.items():
        xs = [t / scale for t, k, _key, _label in events if k == kind]
        if xs:
            lines = LineCollection([[(x, 0), (x, 1)] for x in xs], transform=where, **style)
            ax.add_collection(lines, autolim=False)
    for t, kind, text in labels:
        if kind == "throttle":
            ax.text(t / scale, 0.03, text, transform=where, rotation=90, ha="right", va="bottom", fontsize=7,
                    color="tab:brown")
        else:
            ax.text(t / scale, 0.97, text, transform=where, rotation=90, ha="right", va="top", fontsize=7,
                    color=STYLE[kind]["color"])


def _unit_text(unit):
    return "GB/s" if unit == "gbps" else "ns"


def _cell_panel(ax, cell, samples, scale):
    unit = _unit_text(samples[0]["unit"])
    good = [s for s in samples if s["value"] is not None]
    t = [s["t_s"] / scale for s in good]
    loaded = any(s["idle_ns"] is not None for s in good)
    ax.plot(t, [s["value"] for s in good], marker=".", markersize=3, linewidth=1, color="tab:blue",
            label="under load" if loaded else None)
    median = statistics.median(s["value"] for s in good) if good else None
    title = cell + (f"\nmedian {median:.4g} {unit}" if median is not None else "\nno value")
    if loaded:
        idle = [(s["t_s"] / scale, s["idle_ns"]) for s in good if s["idle_ns"] is not None]
        ax.plot([p[0] for p in idle], [p[1] for p in idle], linewidth=1, linestyle="--", color="0.45", label="idle")
        weak = [s for s in good if s["load_pct"] is not None and s["load_pct"] < WEAK_LOAD_PCT]
        if weak:
            ax.plot([s["t_s"] / scale for s in weak], [s["value"] for s in weak], linestyle="none", marker="o",
                    markersize=6, markerfacecolor="none", markeredgecolor="tab:red",
                    label=f"weak load (<{WEAK_LOAD_PCT}% of peak)")
        idle_median = statistics.median(p[1] for p in idle) if idle else None
        if idle_median and median is not None:
            title += f", idle {idle_median:.4g} ns (x{median / idle_median:.2f})"
    bad = [s for s in samples if s["value"] is None or not s["verified"]]
    if bad:
        where = blended_transform_factory(ax.transData, ax.transAxes)
        ax.plot([s["t_s"] / scale for s in bad], [0.04] * len(bad), transform=where, linestyle="none", marker="x",
                color="tab:red", label="failed or not verified")
    if median:
        # A steady cell is drawn within +-1% of its median at least: noise of 0.01% does not fill the panel.
        lo, hi = ax.get_ylim()
        ax.set_ylim(min(lo, median * 0.99), max(hi, median * 1.01))
    ax.set_title(title, fontsize=8)
    ax.set_ylabel(unit, fontsize=8)
    ax.tick_params(labelsize=7)
    ax.grid(True, alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=6.5, loc="best")


def _telemetry_panel(ax, key, label, by_gpu, scale):
    drawn = False
    for gpu, rows in by_gpu.items():
        pts = [(t / scale, r[key]) for t, r in rows if r[key] is not None]
        if pts:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], linewidth=1, label=f"gpu{gpu}")
            drawn = True
    if not drawn:
        ax.text(0.5, 0.5, "not reported", transform=ax.transAxes, ha="center", va="center", color="0.5")
    ax.set_title(label, fontsize=9)
    ax.tick_params(labelsize=7)
    ax.grid(True, alpha=0.3)
    if drawn:
        ax.legend(fontsize=6.5, loc="best")


def _key(spans, events, unlabelled):
    """What the shading and the vertical lines mean, for the kinds this soak has."""
    kinds = [("clock slowdown (power cap, thermal, HW slowdown, power brake) shaded", bool(spans))]
    kinds += [(text, any(e[1] == kind for e in events)) for kind, text in
              (("xid", "XID: red line"), ("counter", "ECC / row remap / PCIe replay increase: purple dashed"),
               ("resume", "resume: grey dash-dot"))]
    shown = [text for text, present in kinds if present]
    if unlabelled:
        shown.append(f"{unlabelled} more kinds of event drawn but not named")
    return "; ".join(shown) if shown else "no throttling, XID, error counter increase or resume"


def _title(data, cells, span_s, unit_text):
    h = data["header"]
    rounds = {s["round"] for s in data["samples"] if s["round"] is not None}
    where = f" on {h['host']}" if h["host"] else ""
    scale, _ = _time_axis(span_s)
    text = (f"xferbench soak{where}: {len(cells)} cells, {len(data['samples'])} samples"
            + (f" in {len(rounds)} rounds" if rounds else "") + f" over {span_s / scale:.3g} {unit_text}")
    end = data["end"]
    text += ", " + (end["status"] + (f" ({end['reason']})" if end["reason"] else "") if end else "no end line")
    if data["torn"]:
        text += "; last line cut short (a kill), ignored"
    return text


def soak(data, title):
    samples = data["samples"]
    span_s = max([s["t_s"] for s in samples] + data["resumes"] + [(data["end"]["t_s"] or 0) if data["end"] else 0])
    span_s = max(span_s, 1.0)
    scale, xlabel = _time_axis(span_s)
    cells = {}
    for s in samples:
        cells.setdefault(s["cell"], []).append(s)
    for rows in cells.values():
        rows.sort(key=lambda s: s["t_s"])
    by_gpu = _readings(samples)
    spans, events = _throttle_spans(by_gpu, span_s), _events(data, by_gpu)
    labels, unlabelled = _labels(spans, events)
    cell_rows = -(-len(cells) // NCOLS)
    nrows = cell_rows + (1 if by_gpu else 0)
    fig = Figure(figsize=(4.2 * NCOLS, 2.5 * nrows + 1.0), dpi=DPI, layout="constrained")
    axes = fig.subplots(nrows, NCOLS, squeeze=False, sharex=True)
    for i, (cell, rows) in enumerate(cells.items()):
        ax = axes[i // NCOLS][i % NCOLS]
        _cell_panel(ax, cell, rows, scale)
        _mark(ax, spans, events, labels if not by_gpu and i == 0 else [], scale)
    for j in range(len(cells), cell_rows * NCOLS):
        axes[j // NCOLS][j % NCOLS].set_visible(False)
    for k, (key, label) in enumerate(TELEMETRY if by_gpu else ()):
        ax = axes[-1][k]
        _telemetry_panel(ax, key, label, by_gpu, scale)
        # Event labels once, on the SM clock panel, where a slowdown shows; the other panels get the lines only.
        _mark(ax, spans, events, labels if key == "sm_clock_mhz" else [], scale)
        ax.set_xlabel(xlabel, fontsize=8)
    for row in axes:
        for ax in row:
            ax.tick_params(labelbottom=True)
    axes[0][0].set_xlim(0, span_s / scale * 1.01)
    fig.suptitle((title or _title(data, cells, span_s, xlabel.split("(")[1].rstrip(")")))
                 + "\none panel per cell, then the telemetry of each GPU (events named on the SM clock panel)\n"
                 + _key(spans, events, unlabelled), fontsize=10)
    return fig
