"""A fleet (xferbench-fleet: run or check under mpirun/srun on several nodes) as a grid of nodes x cases: each
square is the node's worst cell of that case as a percentage of the fleet median of the same cell (the fleet's own
statistics, per GPU group), outliers (the fleet's list) boxed and marked '!', nodes without a result greyed with their
error. Reading is pure Python; drawing imports matplotlib."""

import math
import textwrap

from .fields import InputError, Place

MAX_NODES = 2000
MAX_CASES = 120
TEXT_CELLS = 600  # above this many squares the percentages are left out: colour and marks only


def _stats(place, fleet):
    medians = {}
    for i, s in enumerate(place.objects(fleet, "stats")):
        at = place.at(f"fleet.stats[{i}]")
        key = tuple(at.text(s, k, optional=True) for k in ("gpu_group", "test", "group", "link", "unit"))
        medians[key] = (at.number(s, "median", minimum=0), bool(s.get("lower_is_better")))
    return medians


def _node_cells(place, host, result):
    """(test, group, link, unit, value) of every measured cell of a node's run result."""
    at = place.at(f"node '{host}' result")
    schema = at.text(result, "schema", optional=True)
    if schema != "xferbench-run":
        raise InputError(f"'{place.path}': node '{host}' holds an {schema or 'unknown'} result: a fleet plot draws "
                         "fleets of run and check results")
    out = []
    for i, case in enumerate(at.objects(result, "cases")):
        name = at.at(f"node '{host}' cases[{i}]").text(case, "name")
        for k, m in enumerate(at.at(f"node '{host}' case '{name}'").objects(case, "matrices", optional=True)):
            mat = place.at(f"node '{host}' case '{name}' matrices[{k}]")
            unit = "ns" if mat.text(m, "metric", optional=True) == "latency_ns" else "GB/s"
            group = mat.text(m, "name", optional=True)
            for j, c in enumerate(mat.objects(m, "cells")):
                cell = place.at(f"node '{host}' case '{name}' cell {j}")
                value = cell.number(c, "value_ns" if unit == "ns" else "value_gbps", optional=True, minimum=0)
                if value is not None and not c.get("invalid") and not c.get("error"):
                    out.append((name, group, cell.text(c, "link", optional=True), unit, value))
    return out


def fleet_grid(result):
    """rows (node, label, error), cases, ratio[row][case] (None: no cell), outlier[row][case], threshold."""
    if result.schema != "xferbench-fleet":
        raise InputError(f"'{result.path}' is an {result.schema} result: a fleet figure needs a fleet file")
    place, doc = Place(result.path), result.doc
    fleet = place.object(doc, "fleet")
    threshold = place.at("fleet").number(fleet, "threshold", positive=True)
    medians = _stats(place, fleet)
    outliers = {(place.at(f"fleet.outliers[{i}]").text(o, "node"), place.at(f"fleet.outliers[{i}]").text(o, "test"))
                for i, o in enumerate(place.objects(fleet, "outliers"))}
    nodes = place.object(doc, "nodes")
    if len(nodes) > MAX_NODES:
        raise InputError(f"'{result.path}' holds {len(nodes)} nodes: a fleet figure draws at most {MAX_NODES}")
    cases, rows, worst = [], [], []
    for host, node in nodes.items():
        at = place.at(f"node '{host}'")
        if not isinstance(node, dict):
            raise at.bad("node", node, "an object")
        group = at.text(node, "gpu_group", optional=True)
        result_doc = at.object(node, "result", optional=True)
        if result_doc is None:
            err = at.object(node, "error", optional=True) or {}
            code = at.number(node, "exit_code", optional=True, integer=True)
            message = place.at(f"node '{host}' error").text(err, "message", optional=True)
            rows.append({"node": host, "error": f"ERROR (exit {code}): {message}"})
            worst.append({})
            continue
        ratios = {}
        for test, grp, link, unit, value in _node_cells(place, host, result_doc):
            median, lower = medians.get((group, test, grp, link, unit), (None, False))
            if not median or value <= 0:
                continue
            ratio = median / value if lower else value / median
            if test not in cases:
                cases.append(test)
            ratios[test] = min(ratio, ratios.get(test, math.inf))
        rows.append({"node": host, "error": None})
        worst.append(ratios)
    if not cases:
        raise InputError(f"'{result.path}' holds no node with a measured cell to draw")
    if len(cases) > MAX_CASES:
        raise InputError(f"'{result.path}' holds {len(cases)} cases: a fleet figure draws at most {MAX_CASES}")
    ratio = [[w.get(c) for c in cases] for w in worst]
    marked = [[(r["node"], c) in outliers for c in cases] for r in rows]
    return {"rows": rows, "cases": cases, "ratio": ratio, "outlier": marked, "threshold": threshold,
            "command": place.text(doc, "command", optional=True, default="run")}


def figure(grid, title):
    from matplotlib.colors import TwoSlopeNorm
    from matplotlib.figure import Figure
    from matplotlib.patches import Rectangle
    from matplotlib.ticker import FuncFormatter

    from . import draw

    rows, cases = grid["rows"], grid["cases"]
    pct = grid["threshold"] * 100
    data = [[float("nan") if v is None else v * 100 for v in row] for row in grid["ratio"]]
    # Narrow columns with the case names upright above them: 35 cases fit in 16 inches.
    width = min(60.0, max(9.0, 0.34 * len(cases) + 5.0 + (2.5 if show_text_for(rows, cases) else 0)))
    fig = Figure(figsize=(width, min(200.0, 0.26 * len(rows) + 5.5)), dpi=draw.DPI, layout="constrained")
    ax = fig.add_subplot()
    norm = TwoSlopeNorm(vmin=min(pct - 20, 70.0), vcenter=pct, vmax=max(pct + 20, 110.0))
    cmap = draw_cmap()
    im = ax.imshow(data, cmap=cmap, norm=norm, aspect="auto", interpolation="nearest")
    show_text = show_text_for(rows, cases)
    for r, row in enumerate(rows):
        if row["error"]:
            ax.add_patch(Rectangle((-0.5, r - 0.5), len(cases), 1, facecolor="0.85", edgecolor="none"))
            ax.text(-0.4, r, row["error"][:120], va="center", ha="left", fontsize=7.5, color="0.15")
            continue
        for c in range(len(cases)):
            if grid["outlier"][r][c]:
                ax.add_patch(Rectangle((c - 0.5, r - 0.5), 1, 1, fill=False, edgecolor="black", linewidth=2))
            if show_text and not math.isnan(data[r][c]):
                mark = "!" if grid["outlier"][r][c] else ""
                ax.text(c, r, f"{data[r][c]:.0f}{mark}", ha="center", va="center", fontsize=7.5,
                        color="black", fontweight="bold" if mark else "normal")
            elif grid["outlier"][r][c]:
                ax.text(c, r, "!", ha="center", va="center", fontsize=8, color="black", fontweight="bold")
    ax.set_xticks(range(len(cases)), cases, fontsize=7, rotation=90)
    ax.set_yticks(range(len(rows)), [r["node"] for r in rows], fontsize=8 if len(rows) <= 80 else 5)
    ax.xaxis.tick_top()
    bar = fig.colorbar(im, ax=ax, shrink=min(1.0, 12 / max(len(rows), 1) + 0.3),
                       label="the node's worst cell of the case, % of its fleet median",
                       format=FuncFormatter(lambda x, _: f"{x:.0f}"))
    bar.ax.tick_params(labelsize=8)
    fig.suptitle(textwrap.fill(title, int(width * 11)) + "\n" + textwrap.fill(
        f"each square: the node's worst cell of the case as % of the fleet median of that cell (latency: median over "
        f"value); black box and '!': an outlier, below {pct:.0f}% of its median; grey: the node has no result",
        int(width * 11)), fontsize=10)
    return fig


def show_text_for(rows, cases):
    return len(rows) * len(cases) <= TEXT_CELLS


def draw_cmap():
    from matplotlib import colormaps

    return colormaps["RdYlGn"]
