"""A run whose matrices hold one cell each (one GPU) as bar charts: one bar per bandwidth matrix, its length the
cell's % of its link's theoretical peak (so host links and device memory share one axis), its GB/s and peak written
beside it; latency cells on their own axis in ns, in a colour of their own; loaded latency as in the heatmap figure."""

import textwrap

from matplotlib import colormaps
from matplotlib.figure import Figure

from . import draw

BAR_HEIGHT_IN = 0.34
LATENCY_COLOR = "tab:orange"


def one_cell_each(panels):
    """True when every measured matrix has exactly one cell: a one-GPU run, which heatmaps would draw as 1x1
    squares."""
    return all(sum(v is not None for row in p["values"] for v in row) == 1 for p in panels)


def _only_cell(p):
    for r, row in enumerate(p["values"]):
        for c, v in enumerate(row):
            if v is not None:
                return v, p["efficiency"][r][c], f"[{p['rows'][r]}, {p['cols'][c]}]"
    raise ValueError("a panel without a cell")  # one_cell_each() was checked first


def _bars(panels):
    bandwidth, latency = [], []
    for p in panels:
        value, eff, where = _only_cell(p)
        bar = {"label": f"{p['title']}\n{where}", "value": value, "eff": eff}
        (latency if p["unit"] == "ns" else bandwidth).append(bar)
    return bandwidth, latency


def _bandwidth_axes(ax, bars):
    cmap = colormaps["viridis"]
    ys = list(range(len(bars)))
    lengths = [b["eff"] * 100 if b["eff"] is not None else 0 for b in bars]
    colors = [cmap(min(b["eff"], 1.0)) if b["eff"] is not None else "0.7" for b in bars]
    ax.barh(ys, lengths, color=colors, height=0.7)
    for y, b, length in zip(ys, bars, lengths):
        text = f"{b['value']:.4g} GB/s"
        text += f" = {b['eff'] * 100:.1f}% of {b['value'] / b['eff']:.4g} GB/s" if b["eff"] else " (peak unknown)"
        ax.annotate(text, xy=(length, y), xytext=(4, 0), textcoords="offset points", va="center", fontsize=8)
    ax.set_yticks(ys, [b["label"] for b in bars], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, max([100.0] + lengths) + 35)  # room for the text right of the longest bar
    ax.set_xticks([0, 20, 40, 60, 80, 100])
    ax.axvline(100, color="0.4", linestyle=":", linewidth=1)
    ax.set_xlabel("% of the link's theoretical peak (bar); text: GB/s = 1e9 B/s and the peak")
    ax.grid(True, axis="x", alpha=0.3)
    ax.set_title("bandwidth", fontsize=10, loc="left")


def _latency_axes(ax, bars):
    ys = list(range(len(bars)))
    ax.barh(ys, [b["value"] for b in bars], color=LATENCY_COLOR, height=0.7)
    top = max(b["value"] for b in bars)
    for y, b in zip(ys, bars):
        ax.annotate(f"{b['value']:.0f} ns", xy=(b["value"], y), xytext=(4, 0), textcoords="offset points",
                    va="center", fontsize=8)
    ax.set_yticks(ys, [b["label"] for b in bars], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, top * 1.25 or 1)
    ax.set_xlabel("latency (ns): lower is better")
    ax.grid(True, axis="x", alpha=0.3)
    ax.set_title("latency", fontsize=10, loc="left")


def run_bars(panels, title):
    """The figure: bandwidth bars, latency bars, then (when measured) idle and loaded latency."""
    bandwidth, latency = _bars(panels)
    loaded = [p for p in panels if p.get("loaded")]
    heights = [len(bars) * BAR_HEIGHT_IN + 1.1 for bars in (bandwidth, latency) if bars]
    loaded_height = 4.4 if loaded else 0
    width = max([11.0] + [sum(max(3.0, 2.2 * len(p["loaded"]) + 1.2) for p in loaded)])  # as loaded_bars wants
    fig = Figure(figsize=(width, sum(heights) + loaded_height + 0.9), dpi=draw.DPI, layout="constrained")
    parts = fig.subfigures(len(heights) + (1 if loaded else 0), 1, squeeze=False,
                           height_ratios=heights + ([loaded_height] if loaded else []))[:, 0]
    i = 0
    for bars, draw_axes in ((bandwidth, _bandwidth_axes), (latency, _latency_axes)):
        if bars:
            draw_axes(parts[i].add_subplot(), bars)
            i += 1
    if loaded:
        draw.loaded_bars(parts[i], loaded)
    fig.suptitle(textwrap.fill(title + ": one GPU, one bar per matrix", 110))
    return fig
