"""The figures an operator looks at first, each rendered and read back from matplotlib's objects:

- a one-GPU run as bars, each bar's length and text its % of peak, latency on its own axis and colour;
- latency heatmaps on their own colour scale (a panel's lowest latency is the lightest colour, never the darkest);
- no title running into another, or out of the figure, in any figure kind;
- ping-pong latency and bandwidth against size, both on log axes;
- a fleet as nodes x cases with the fleet's outliers marked and nodes without a result named.

Recorded inputs are read from bench/results (real runs on H200s); the fleet is a small hand-made document in the
fleet schema (src/report/fleet_report.cpp), and the 64-node fleet the simulation test writes is drawn by ctest's
cli_plot_fleet_png."""

import copy
import json
import os

import pytest

pytest.importorskip("matplotlib")

from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402

from xferbench_plot import __main__ as cli  # noqa: E402
from xferbench_plot import load as L  # noqa: E402

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
RESULTS = os.path.join(ROOT, "bench", "results")
DATA = os.path.join(os.path.dirname(__file__), "data")
ONE_GPU = os.path.join(RESULTS, "2026-11-23-h200", "xferbench_full1.json")
FOUR_GPUS = os.path.join(RESULTS, "2026-11-22-h200x4", "full.json")
LOADED = os.path.join(RESULTS, "2026-11-25-h200-loaded-latency", "loaded1.json")
PINGPONG = os.path.join(RESULTS, "2026-11-25-h200-gpu-paths-relay", "pp_host_gpu_auto_pingpong.json")


def figure(path, kind="auto"):
    r = L.load(str(path))
    return cli.build_figure([r], cli.auto_kind(r) if kind == "auto" else kind, "")


def titles(fig):
    """Every title of the figure: suptitles of the figure and its subfigures, and each visible axes' titles."""
    found = []

    def walk(f):
        if getattr(f, "_suptitle", None) is not None and f._suptitle.get_text():
            found.append(f._suptitle)
        for sub in getattr(f, "subfigs", []):
            walk(sub)

    walk(fig)
    for ax in fig.axes:
        if ax.get_visible():
            found.extend(t for t in (ax.title, ax._left_title, ax._right_title) if t.get_text())
    return found


def assert_titles_apart(fig):
    """No two titles overlap and each lies inside the figure, as drawn."""
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in titles(fig)]
    assert boxes
    width, height = fig.bbox.width, fig.bbox.height
    for text, b in boxes:
        assert b.x0 >= -1 and b.y0 >= -1 and b.x1 <= width + 1 and b.y1 <= height + 1, f"'{text}' leaves the figure"
    for i, (text_a, a) in enumerate(boxes):
        for text_b, b in boxes[i + 1:]:
            assert not a.overlaps(b), f"'{text_a}' and '{text_b}' overlap"


def bar_axes(fig, title):
    return next(ax for ax in fig.axes if ax.get_title(loc="left") == title)


def test_one_gpu_run_draws_bars_of_percent_of_peak():
    run = json.load(open(ONE_GPU, encoding="utf-8"))
    fig = figure(ONE_GPU)
    bw = bar_axes(fig, "bandwidth")
    measured = [(c["name"], m, m["cells"][0]) for c in run["cases"] for m in c.get("matrices", [])
                if m["cells"] and m.get("metric") != "latency_ns"]
    bars = bw.patches
    assert len(bars) == len(measured)
    for (name, _m, cell), bar in zip(measured, bars):
        assert bar.get_width() == pytest.approx(cell["efficiency"] * 100), name
    texts = [t.get_text() for t in bw.texts]
    h2d = next(cell for name, _m, cell in measured if name == "host_to_device_memcpy_ce")
    assert f"{h2d['value_gbps']:.4g} GB/s = {h2d['efficiency'] * 100:.1f}% of" in "\n".join(texts)
    assert "% of the link's theoretical peak" in bw.get_xlabel()
    # Latency: its own axis, in ns, in a colour no bandwidth bar has.
    lat = bar_axes(fig, "latency")
    assert "ns" in lat.get_xlabel() and len(lat.patches) == 1
    latency_color = lat.patches[0].get_facecolor()
    assert all(b.get_facecolor() != latency_color for b in bars)
    assert_titles_apart(fig)


def test_a_run_of_several_gpus_still_draws_heatmaps(tmp_path):
    fig = figure(FOUR_GPUS)
    assert not any(ax.get_title(loc="left") == "bandwidth" for ax in fig.axes)
    assert any(ax.images for ax in fig.axes)
    # --kind bars refuses matrices of several cells.
    out = tmp_path / "bars.png"
    assert cli.main([FOUR_GPUS, "--kind", "bars", "-o", str(out)]) == 2
    assert not out.exists()


def latency_images(fig):
    return [ax.images[0] for ax in fig.axes if ax.images and "latency" in ax.get_title()]


def test_latency_heatmaps_have_their_own_colour_scale():
    fig = figure(FOUR_GPUS)
    images = latency_images(fig)
    assert len(images) == 2  # host_device_latency_sm, device_to_device_latency_sm
    bandwidth = next(ax.images[0] for ax in fig.axes if ax.images and "latency" not in ax.get_title())
    for im in images:
        assert im.get_cmap().name != bandwidth.get_cmap().name
        data = im.get_array()
        values = [v for v in data.compressed()]
        # Each cell over the panel's lowest: the lowest is x1, the lightest end of the scale, not the darkest.
        assert min(values) == pytest.approx(1.0)
        assert im.norm.vmin == 1.0 and im.norm.vmax > 1.0
    # One latency cell alone (a one-GPU run drawn as a heatmap) is the lightest colour.
    one = figure(ONE_GPU, kind="heatmap")
    (im,) = latency_images(one)
    assert list(im.get_array().compressed()) == [1.0]
    assert im.norm(1.0) == 0.0


def test_loaded_latency_titles_do_not_overlap():
    fig = figure(LOADED)
    bars = [ax for ax in fig.axes if "idle vs under load" in ax.get_title().replace("\n", " ")]
    assert len(bars) == 4
    assert_titles_apart(fig)
    assert_titles_apart(figure(LOADED, kind="heatmap"))


@pytest.mark.parametrize("path", [ONE_GPU, FOUR_GPUS, os.path.join(DATA, "run_h200x2.json"),
                                  os.path.join(DATA, "run_loaded_latency.json"), PINGPONG,
                                  os.path.join(DATA, "sweep_htod_2gpu.json"), os.path.join(DATA, "sms_synthetic_2gpu.json"),
                                  os.path.join(DATA, "recorded_h200x2_scenario.json")])
def test_no_title_overlaps_another(path):
    assert_titles_apart(figure(path))


def test_pingpong_draws_latency_and_bandwidth_on_log_axes(tmp_path):
    doc = json.load(open(PINGPONG, encoding="utf-8"))
    sizes = doc["pairs"][0]["sizes"]
    fig = figure(PINGPONG)
    lat, bw = (ax for ax in fig.axes if ax.get_visible())
    assert lat.get_title() == "latency" and bw.get_title() == "bandwidth"
    for ax in (lat, bw):
        assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    (line,) = lat.get_lines()
    assert list(line.get_xdata()) == [s["bytes"] for s in sizes]
    assert list(line.get_ydata()) == pytest.approx([s["one_way_time_s"]["median"] * 1e6 for s in sizes])
    assert "us" in lat.get_ylabel()
    (line,) = bw.get_lines()
    assert list(line.get_ydata()) == pytest.approx([s["bandwidth_gbps"] for s in sizes])
    assert_titles_apart(fig)
    out = tmp_path / "pp.png"
    assert cli.main([PINGPONG, "-o", str(out)]) == 0 and out.stat().st_size > 20_000


def small_fleet():
    """Three nodes of one recorded run (two of them copies), node02's d2d cells at 80%, node03 without a GPU; the
    fleet statistics and outliers as the fleet code would compute them for these few cells."""
    run = json.load(open(os.path.join(DATA, "run_h200x2.json"), encoding="utf-8"))
    slow = copy.deepcopy(run)
    for c in slow["cases"]:
        if c["name"] == "device_to_device_memcpy_read_ce":
            for cell in c["matrices"][0]["cells"]:
                cell["value_gbps"] *= 0.8
    group = "2 x NVIDIA H200"
    stats, outliers = [], []
    for c in run["cases"]:
        for m in c["matrices"]:
            latency = m.get("metric") == "latency_ns"
            for cell in m["cells"]:
                value = cell["value_ns" if latency else "value_gbps"]
                stats.append({"gpu_group": group, "test": c["name"], "group": m.get("name", ""), "link": cell["link"],
                              "unit": "ns" if latency else "GB/s", "lower_is_better": latency, "median": value})
                if c["name"] == "device_to_device_memcpy_read_ce":
                    outliers.append({"node": "node02", "test": c["name"], "group": m.get("name", ""),
                                     "cell": "[x]", "link": cell["link"], "value": value * 0.8})
    node = lambda r: {"status": "passed", "exit_code": 0, "gpu_group": group, "result": r}  # noqa: E731
    return {"schema": "xferbench-fleet", "schema_version": 1, "command": "run",
            "nodes": {"node00": node(run), "node01": node(run), "node02": node(slow),
                      "node03": {"status": "error", "exit_code": 3, "gpu_group": None, "result": None,
                                 "error": {"kind": "no_device", "message": "no CUDA GPU found"}}},
            "fleet": {"threshold": 0.9, "stats": stats, "outliers": outliers}}


def test_fleet_draws_nodes_by_cases_with_outliers_marked(tmp_path):
    path = tmp_path / "fleet.json"
    path.write_text(json.dumps(small_fleet()))
    fig = figure(path)
    ax = next(a for a in fig.axes if a.images)
    cases = [c["name"] for c in json.load(open(os.path.join(DATA, "run_h200x2.json")))["cases"] if c["matrices"]]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["node00", "node01", "node02", "node03"]
    assert len(ax.get_xticklabels()) == len(cases)
    data = ax.images[0].get_array()
    col = cases.index("device_to_device_memcpy_read_ce")
    assert data[2][col] == pytest.approx(80.0) and data[0][col] == pytest.approx(100.0)
    boxes = [p for p in ax.patches if isinstance(p, Rectangle) and not p.get_fill()]
    assert [(round(b.get_y() + 0.5), round(b.get_x() + 0.5)) for b in boxes] == [(2, col)]
    texts = [t.get_text() for t in ax.texts]
    assert "80!" in texts
    assert any(t.startswith("ERROR (exit 3): no CUDA GPU found") for t in texts)
    assert_titles_apart(fig)
    out = tmp_path / "fleet.png"
    assert cli.main([str(path), "-o", str(out)]) == 0 and out.stat().st_size > 20_000


def test_fleet_of_sweeps_is_refused_naming_the_node(tmp_path, capsys):
    doc = small_fleet()
    doc["nodes"]["node00"]["result"] = {"schema": "xferbench-sweep"}
    path = tmp_path / "fleet.json"
    path.write_text(json.dumps(doc))
    assert cli.main([str(path), "-o", str(tmp_path / "f.png")]) == 2
    assert "node 'node00' holds an xferbench-sweep result" in capsys.readouterr().err
    assert not (tmp_path / "f.png").exists()
