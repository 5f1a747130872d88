"""The fabric figure: per rail, a node x node matrix of bandwidth from row to column, coloured by its ratio to
the fabric's median; culprit nodes' labels in red, culprit pairs boxed, a culprit rail's title in red."""

import math

from matplotlib.colors import TwoSlopeNorm
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from .draw import DPI

RED = "tab:red"


def _mark_pairs(ax, m, rail, culprits):
    for a, b, r in culprits["pairs"]:
        if r not in (-1, rail):
            continue
        for x, y in ((b, a), (a, b)):
            ax.add_patch(Rectangle((x - 0.5, y - 0.5), 1, 1, fill=False, edgecolor=RED, linewidth=2.2))


def _panel(fig, ax, m, names, rail, median, min_ratio, culprits):
    n = len(names)
    ratio = [[v / median if median > 0 and not math.isnan(v) else math.nan for v in row] for row in m]
    norm = TwoSlopeNorm(vmin=0, vcenter=min_ratio, vmax=max(1.2, min_ratio + 0.05))
    image = ax.imshow(ratio, cmap="RdYlGn", norm=norm, interpolation="nearest")
    if n <= 16:
        for y in range(n):
            for x in range(n):
                if not math.isnan(m[y][x]):
                    ax.text(x, y, f"{m[y][x]:.3g}", ha="center", va="center", fontsize=7)
    bad_nodes = culprits["nodes"] | {node for node, r in culprits["node_rails"] if r == rail}
    step = max(1, n // 32)
    ticks = list(range(0, n, step))
    ax.set_xticks(ticks, [names[i] for i in ticks], rotation=90, fontsize=7)
    ax.set_yticks(ticks, [names[i] for i in ticks], fontsize=7)
    for label in ax.get_xticklabels() + ax.get_yticklabels():
        if label.get_text() in {names[i] for i in bad_nodes}:
            label.set_color(RED)
            label.set_fontweight("bold")
    for node in bad_nodes:
        ax.axhline(node, color=RED, linewidth=0.8, alpha=0.6)
        ax.axvline(node, color=RED, linewidth=0.8, alpha=0.6)
    _mark_pairs(ax, m, rail, culprits)
    bad_rail = rail in culprits["rails"]
    ax.set_title(f"rail {rail}" + (": CULPRIT (the rail)" if bad_rail else ""), color=RED if bad_rail else "black",
                 fontsize=10)
    ax.set_xlabel("to")
    ax.set_ylabel("from")
    return image


def fabric(data, title):
    rails = data["rails"]
    ncols = min(3, len(rails))
    nrows = math.ceil(len(rails) / ncols)
    side = min(7.0, 2.5 + 0.18 * len(data["names"]))
    fig = Figure(figsize=(side * ncols + 1.2, side * nrows + 1.0), dpi=DPI, layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False)
    image = None
    for i, r in enumerate(rails):
        image = _panel(fig, axes[i // ncols][i % ncols], r["gbps"], data["names"], r["rail"], data["median_gbps"],
                       data["min_ratio"], data["culprits"])
    for j in range(len(rails), nrows * ncols):
        axes[j // ncols][j % ncols].set_visible(False)
    fig.colorbar(image, ax=axes, shrink=0.8, label="bandwidth / fabric median")
    named = []
    c = data["culprits"]
    names = data["names"]
    named += [f"node {names[x]}" for x in sorted(c["nodes"])]
    named += [f"node {names[x]} rail {r}" for x, r in sorted(c["node_rails"])]
    named += [f"rail {r}" for r in sorted(c["rails"])]
    named += [f"pair {names[a]}-{names[b]}" + (f" rail {r}" if r >= 0 else "") for a, b, r in sorted(c["pairs"])]
    fig.suptitle(f"{title}\ncell: GB/s from row to column (p50); median {data['median_gbps']:.3g} GB/s; "
                 f"red: below {data['min_ratio'] * 100:.0f}% of it"
                 + ("\nculprits: " + ", ".join(named) if named else "\nno culprit"), fontsize=10)
    return fig
