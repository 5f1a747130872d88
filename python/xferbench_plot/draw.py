"""Figures from the data load.py extracts. matplotlib's object API only (no
pyplot global state), so several figures can be built in one process."""

import math
import textwrap

from matplotlib.figure import Figure
from matplotlib.patches import Patch
from matplotlib.ticker import FuncFormatter, LogLocator

DPI = 100


def size_label(n, _pos=None):
    for unit, scale in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if n >= scale:
            v = n / scale
            return f"{v:.0f}{unit}" if abs(v - round(v)) < 1e-9 else f"{v:.3g}{unit}"
    return f"{n:.0f}"


def _bytes_text(n):
    text = size_label(n)
    return text[:-1] + " " + text[-1] + "iB" if text[-1] in "KMG" else text + " B"


def _n_half_text(n):
    # The sweep writes n_half_bytes <= 0 when the fitted startup is not positive (its report says n/a).
    return _bytes_text(n) if n is not None and n > 0 else "n/a"


def _fit_gbps(fit, n):
    # Hockney model: time = startup + n / B, so bandwidth = n / time.
    t = fit["startup_s"] + n / (fit["asymptotic_gbps"] * 1e9)
    return n / t / 1e9 if t > 0 else float("nan")


def curves(results_series, title):
    """results_series: list of (prefix, series list). One axes, every series on it."""
    fig = Figure(figsize=(9, 5.5), dpi=DPI, layout="constrained")
    ax = fig.add_subplot()
    peaks = {}
    for prefix, series in results_series:
        for s in series:
            label = f"{prefix}{s['label']}" + (f" ({s['link']})" if s.get("link") else "")
            (line,) = ax.plot(s["bytes"], s["gbps"], marker="o", markersize=3.5, linewidth=1.4, label=label)
            fit = s.get("fit")
            if fit and fit.get("asymptotic_gbps", 0) > 0 and len(s["bytes"]) > 1:
                lo, hi = min(s["bytes"]), max(s["bytes"])
                xs = [lo * (hi / lo) ** (i / 100) for i in range(101)]
                ax.plot(xs, [_fit_gbps(fit, x) for x in xs], linestyle="--", linewidth=0.9, color=line.get_color(),
                        label=f"fit: startup {fit['startup_s'] * 1e6:.2f} us, "
                              f"{fit['asymptotic_gbps']:.1f} GB/s, n_half {_n_half_text(fit.get('n_half_bytes'))}")
            if s.get("peak"):
                peaks.setdefault(round(s["peak"], 3), s.get("link", ""))
    for gbps, link in sorted(peaks.items()):
        ax.axhline(gbps, color="0.4", linestyle=":", linewidth=1)
        ax.annotate(f"peak {gbps:.1f} GB/s {link}", xy=(0.005, gbps), xycoords=("axes fraction", "data"),
                    fontsize=8, color="0.3", va="bottom")
    ax.set_xscale("log", base=2)
    # Every power of 4 in range gets a tick; by default matplotlib 3.6 keeps every other one.
    ax.xaxis.set_major_locator(LogLocator(base=4, numticks=32))
    ax.xaxis.set_major_formatter(FuncFormatter(size_label))
    ax.set_xlabel("transfer size (bytes, K/M/G = 2^10/2^20/2^30)")
    ax.set_ylabel("bandwidth (GB/s = 1e9 B/s)")
    ax.set_ylim(bottom=0)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(0, 0.93))
    ax.set_title(title)
    return fig


def sm_budget(series, title):
    """Bandwidth against the SMs a copy kernel may use; the 90% and 95% marks of each series."""
    fig = Figure(figsize=(9, 5.5), dpi=DPI, layout="constrained")
    ax = fig.add_subplot()
    peaks = {}
    for s in series:
        label = s["label"] + (f" ({s['link']})" if s.get("link") else "")
        (line,) = ax.plot(s["sms"], s["gbps"], marker="o", markersize=3.5, linewidth=1.4, label=label)
        for pct, key, style in ((90, "sms_for_90", ":"), (95, "sms_for_95", "--")):
            n = s.get(key)
            if n:
                ax.axvline(n, color=line.get_color(), linestyle=style, linewidth=0.9,
                           label=f"{s['label']}: {pct}% of {s['all_sm_gbps']:.1f} GB/s from {n} SMs")
        if s.get("peak"):
            peaks.setdefault(round(s["peak"], 3), s.get("link", ""))
    for gbps, link in sorted(peaks.items()):
        ax.axhline(gbps, color="0.4", linestyle=":", linewidth=1)
        ax.annotate(f"peak {gbps:.1f} GB/s {link}", xy=(0.005, gbps), xycoords=("axes fraction", "data"),
                    fontsize=8, color="0.3", va="bottom")
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _pos: f"{x:.0f}"))
    ax.set_xlabel("SMs the copy kernel runs on (pinned, spread over the GPU)")
    ax.set_ylabel("bandwidth (GB/s = 1e9 B/s)")
    ax.set_ylim(bottom=0)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    ax.set_title(title)
    return fig


def wrap_name(text, width):
    """Lines of at most `width` characters, broken at spaces and after underscores (case names), so a name is
    never cut inside a word."""
    import re

    lines, line = [], ""
    for piece in re.findall(r"[^ _]*_|[^ _]+ ?| ", text):
        if line and len(line) + len(piece.rstrip()) > width:
            lines.append(line.rstrip())
            line = ""
        line += piece
    if line.strip():
        lines.append(line.rstrip())
    return "\n".join(lines)


def _latency_scale(values):
    """Latency colours: each cell over its panel's lowest latency, from x1 (light) to x2 and beyond (dark), in a
    colour map of their own (the bandwidth panels' is % of peak). A panel of one cell, or of equal cells, is all
    light: none is slower than another."""
    present = [v for row in values for v in row if v is not None and v > 0]
    low = min(present) if present else 1.0
    return [[float("nan") if v is None else (v / low if low > 0 else 1.0) for v in row] for row in values]


def _cell_text(value, eff, unit):
    text = f"{value:.0f}" if unit == "ns" or value >= 1000 else f"{value:.1f}"
    if eff is not None:
        text += f"\n{eff * 100:.0f}%"
    return text


def _heatmap_panel(fig, ax, p):
    rows, cols = len(p["rows"]), len(p["cols"])
    # Colour says how close each cell is to its link's theoretical peak, on
    # one fixed 0-100% scale for every panel; a scale stretched over each
    # panel's own range would paint 55.4 vs 55.5 GB/s as opposites. Latency
    # panels (no peak) have a scale of their own (_latency_scale).
    by_eff = any(e is not None for row in p["efficiency"] for e in row)
    if by_eff:
        data = [[float("nan") if v is None else v for v in row] for row in p["efficiency"]]
        im = ax.imshow(data, cmap="viridis", aspect="auto", vmin=0, vmax=1.0)
    else:
        data = _latency_scale(p["values"])
        im = ax.imshow(data, cmap="Oranges", aspect="auto", vmin=1.0, vmax=2.0)
    for r in range(rows):
        for c in range(cols):
            v = p["values"][r][c]
            if v is None:
                ax.text(c, r, "-", ha="center", va="center", fontsize=9, color="0.5")
                continue
            dark = data[r][c] < 0.55 if by_eff else data[r][c] > 1.6
            ax.text(c, r, _cell_text(v, p["efficiency"][r][c], p["unit"]), ha="center", va="center", fontsize=9,
                    color="white" if dark else "black")
    ax.set_xticks(range(cols), p["cols"])
    ax.set_yticks(range(rows), p["rows"])
    ax.set_title(wrap_name(p["title"], 64), fontsize=9)
    if by_eff:
        bar = fig.colorbar(im, ax=ax, shrink=0.8, label="% of peak", format=FuncFormatter(lambda x, _: f"{x * 100:.0f}"))
    else:
        bar = fig.colorbar(im, ax=ax, shrink=0.8, label="x the panel's lowest ns",
                           format=FuncFormatter(lambda x, _: f"x{x:.1f}"))
    bar.ax.tick_params(labelsize=8)


def _heatmap_grid(fig, panels, ncols, nrows, title):
    axes = fig.subplots(nrows, ncols, squeeze=False)
    for i, p in enumerate(panels):
        _heatmap_panel(fig, axes[i // ncols][i % ncols], p)
    for j in range(len(panels), nrows * ncols):
        axes[j // ncols][j % ncols].set_visible(False)
    fig.suptitle(textwrap.fill(title, max(40, ncols * 40)) + "\ncell: GB/s (or ns) and % of the link's theoretical peak")


def heatmap(panels, title):
    """One heatmap per matrix; below them, when latency cells were also measured under load, their idle and
    loaded bars (loaded_bars)."""
    n = len(panels)
    ncols = min(3, n)
    nrows = math.ceil(n / ncols)
    loaded = [p for p in panels if p.get("loaded")]
    if not loaded:
        fig = Figure(figsize=(4.6 * ncols, 3.4 * nrows + 0.6), dpi=DPI, layout="constrained")
        _heatmap_grid(fig, panels, ncols, nrows, title)
        return fig
    bars_width = sum(max(3.0, 2.2 * len(p["loaded"]) + 1.2) for p in loaded)
    fig = Figure(figsize=(max(4.6 * ncols, bars_width), 3.4 * nrows + 0.6 + 4.4), dpi=DPI, layout="constrained")
    top, bottom = fig.subfigures(2, 1, height_ratios=[3.4 * nrows + 0.6, 4.4])
    _heatmap_grid(top, panels, ncols, nrows, title)
    loaded_bars(bottom, loaded)
    return fig


def _load_text(c):
    parts = [c["load_label"]] if c["load_label"] else []
    if c["load_gbps"] is not None:
        parts.append(f"{c['load_gbps']:.4g} GB/s" + (f", {c['pct_of_peak']:.0f}% of peak"
                                                     if c["pct_of_peak"] is not None else ""))
    if c["weak"]:
        parts.append("weak load")
    return "\n".join(parts)


def loaded_bars(fig, panels):
    """Per loaded-latency cell, the idle and the loaded latency side by side, the ratio above, the load's
    GB/s and % of its link's peak under them; a weak load (under 50% of peak) hatched and named."""
    widths = [max(3.0, 2.2 * len(p["loaded"]) + 1.2) for p in panels]
    axes = fig.subplots(1, len(panels), squeeze=False, gridspec_kw={"width_ratios": widths})[0]
    for ax, p, width in zip(axes, panels, widths):
        cells = p["loaded"]
        xs = range(len(cells))
        ax.bar([x - 0.2 for x in xs], [c["idle_ns"] for c in cells], 0.4, color="tab:blue", label="idle")
        bars = ax.bar([x + 0.2 for x in xs], [c["loaded_ns"] for c in cells], 0.4, color="tab:red",
                      label="under load")
        for x, c, bar in zip(xs, cells, bars):
            if c["weak"]:
                bar.set_hatch("//")
                bar.set_facecolor("mistyrose")
                bar.set_edgecolor("tab:red")
            top = max(c["idle_ns"], c["loaded_ns"])
            text = f"x{c['ratio']:.2f}" if c["ratio"] is not None else "x n/a"
            ax.annotate(text, xy=(x, top), xytext=(0, 3), textcoords="offset points", ha="center", va="bottom",
                        fontsize=9, fontweight="bold")
        ax.set_xticks(list(xs), [c["label"] + "\n" + _load_text(c) for c in cells], fontsize=7.5)
        ax.set_ylim(0, max(max(c["idle_ns"], c["loaded_ns"]) for c in cells) * 1.45 or 1)  # room for the legend
        ax.set_ylabel("latency (ns)")
        # Wrapped to the panel's width, so neighbouring titles never run into each other.
        ax.set_title(wrap_name(p["title"] + ": idle vs under load", max(18, int(width * 12))), fontsize=9)
        ax.grid(True, axis="y", alpha=0.3)
        handles = ax.get_legend_handles_labels()[0]
        if any(c["weak"] for c in cells):
            handles.append(Patch(facecolor="mistyrose", edgecolor="tab:red", hatch="//",
                                 label="under a weak load (<50% of peak)"))
        ax.legend(handles=handles, fontsize=8, loc="upper left")
    fig.suptitle(textwrap.fill("latency under load: ratio = loaded / idle; under each pair the load that ran "
                               "(hatched: weak load, under 50% of the link's peak, so the ratio understates)",
                               max(40, int(sum(widths) * 11))), fontsize=10)


def timeline(transfers, title):
    height = max(2.5, 0.55 * len(transfers) + 1.5)
    fig = Figure(figsize=(9, height), dpi=DPI, layout="constrained")
    ax = fig.add_subplot()
    colors = [f"C{i % 10}" for i in range(len(transfers))]
    for i, t in enumerate(transfers):
        n = len(t["start_s"])
        # Each sample gets a thin lane inside the transfer's row, so overlap
        # between transfers shows sample by sample.
        lane = 0.8 / n
        for k, (s, e) in enumerate(zip(t["start_s"], t["end_s"])):
            ax.broken_barh([(s * 1e6, (e - s) * 1e6)], (i - 0.4 + k * lane, lane * 0.85), facecolors=colors[i])
    ax.set_yticks(range(len(transfers)), [t["label"] for t in transfers])
    ax.invert_yaxis()
    ax.set_xlabel("time since the gate release (us); one lane per sample")
    ax.set_xlim(left=0)
    ax.grid(True, axis="x", alpha=0.3)
    ax.set_title(title)
    return fig
