"""Soak files (xferbench soak, JSON Lines) and loaded-latency cells of a run:
what the figures draw, read from the matplotlib objects, and the
one-line errors for bad lines.

Fixtures (synthetic, hand-made from src/soak/soak_record.hpp and the run
schema): soak_synthetic_3cells.jsonl is a 10-minute soak of 3 cells on 2
GPUs: gpu0 throttled (sw_power_cap + sw_thermal) in rounds 8-10, XID 79 on
gpu1 in round 12, gpu0's corrected ECC count up by 2 in round 14, a resume
line before round 16, a weak load (33% of peak) in round 5, and a last line
cut short by a kill. run_loaded_latency.json has two loaded-latency cases,
one of them with a weak load, next to an ordinary latency matrix."""

import json
import os
import subprocess
import sys

import pytest

pytest.importorskip("matplotlib")

from matplotlib.collections import LineCollection, PolyCollection  # noqa: E402

from xferbench_plot import __main__ as cli  # noqa: E402
from xferbench_plot import load as L  # noqa: E402

DATA = os.path.join(os.path.dirname(__file__), "data")
SOAK = os.path.join(DATA, "soak_synthetic_3cells.jsonl")
LOADED_RUN = os.path.join(DATA, "run_loaded_latency.json")
CELLS = ["host_to_device_memcpy_ce[0,0]", "device_local_copy[0,0]", "host_latency_under_htod_load[0,1]"]
PANELS = ["temperature (°C)", "power (W)", "SM clock (MHz)", "memory clock (MHz)"]


def figure(path, kind="auto"):
    r = L.load(path)
    return cli.build_figure([r], cli.auto_kind(r) if kind == "auto" else kind, "")


def panels(fig):
    """Visible axes by the first line of their title."""
    return {ax.get_title().split("\n")[0]: ax for ax in fig.axes if ax.get_visible()}


def texts(ax):
    return [t.get_text() for t in ax.texts]


def shaded_spans(ax):
    """The x extents of the shaded slowdown spans: one PolyCollection per panel, a box per span."""
    out = []
    for c in ax.collections:
        if isinstance(c, PolyCollection):
            for path in c.get_paths():
                xs = sorted({v[0] for v in path.vertices})
                out.append((xs[0], xs[-1]))
    return out


def event_xs(ax):
    """The x of every vertical event line: LineCollections of two-point vertical segments."""
    return [seg[0][0] for c in ax.collections if isinstance(c, LineCollection) for seg in c.get_segments()
            if len(seg) == 2 and seg[0][0] == seg[1][0]]


def soak_lines():
    with open(SOAK, encoding="utf-8") as f:
        return f.read().split("\n")


def write(tmp_path, lines, name="s.jsonl", newline=True):
    src = tmp_path / name
    src.write_text("\n".join(lines) + ("\n" if newline else ""))
    return src


def test_soak_figure_has_a_panel_per_cell_and_four_telemetry_panels():
    fig = figure(SOAK)
    by_title = panels(fig)
    assert sorted(by_title) == sorted(CELLS + PANELS)
    assert len([ax for ax in fig.axes if ax.get_visible()]) == 7  # 3 cells + 4 telemetry, the 4th cell slot hidden
    title = fig._suptitle.get_text()
    assert "synthetic-h200x2: 3 cells, 60 samples in 20 rounds" in title
    assert "last line cut short (a kill), ignored" in title and "no end line" in title
    for key in ("shaded", "XID: red line", "ECC / row remap / PCIe replay increase", "resume: grey dash-dot"):
        assert key in title, key
    # One shared time axis, in minutes for a soak under 2 h.
    xlim = by_title[CELLS[0]].get_xlim()
    assert all(ax.get_xlim() == xlim for ax in by_title.values())
    assert by_title["SM clock (MHz)"].get_xlabel() == "elapsed time (min)"


def test_soak_cell_values_and_units():
    by_title = panels(figure(SOAK))
    h2d = by_title[CELLS[0]]
    values = h2d.lines[0]
    assert len(values.get_xdata()) == 20  # the torn 21st sample of this cell is not drawn
    assert h2d.get_ylabel() == "GB/s" and "median 55.4" in h2d.get_title()
    assert max(values.get_xdata()) == pytest.approx((19 * 30 + 1.5) / 60)
    local = by_title[CELLS[1]]
    assert min(local.lines[0].get_ydata()) < 3100 < 3600 < max(local.lines[0].get_ydata())  # the throttled dip


def test_loaded_latency_cell_draws_idle_line_and_marks_the_weak_load():
    ax = panels(figure(SOAK))[CELLS[2]]
    assert ax.get_ylabel() == "ns"
    by_label = {line.get_label(): line for line in ax.lines}
    assert set(by_label) >= {"under load", "idle", "weak load (<50% of peak)"}
    assert set(by_label["idle"].get_ydata()) == {1180.0, 1181.0}
    weak = by_label["weak load (<50% of peak)"]
    assert list(weak.get_xdata()) == [pytest.approx((4 * 30 + 21.5) / 60)] and list(weak.get_ydata()) == [3320.0]
    assert "idle 1180 ns (x2.80)" in ax.get_title()


def test_telemetry_lines_per_gpu_and_the_throttle_span():
    by_title = panels(figure(SOAK))
    sm = by_title["SM clock (MHz)"]
    assert [line.get_label() for line in sm.lines if line.get_label().startswith("gpu")] == ["gpu0", "gpu1"]
    gpu0 = next(line for line in sm.lines if line.get_label() == "gpu0")
    assert min(gpu0.get_ydata()) == 1410 and max(gpu0.get_ydata()) == 1980
    temp = by_title["temperature (°C)"]
    assert max(next(line for line in temp.lines if line.get_label() == "gpu0").get_ydata()) == 83
    # One shaded span (rounds 8-10 of gpu0) on every panel, named with its reasons on the SM clock panel.
    for ax in by_title.values():
        spans = shaded_spans(ax)
        assert len(spans) == 1, ax.get_title()
        x0, x1 = spans[0]
        assert 3.3 < x0 < 3.6 and 4.7 < x1 < 5.0  # between round 7 (3.4 min) and round 11 (5.0 min)
    assert "gpu0 sw_power_cap, sw_thermal" in texts(sm)


def test_xid_ecc_and_resume_lines_and_their_labels():
    by_title = panels(figure(SOAK))
    sm = by_title["SM clock (MHz)"]
    labels = texts(sm)
    assert labels.count("XID 79 (gpu1)") == 1
    assert "ECC corrected +2 (gpu0)" in labels and "resume" in labels
    assert len(labels) == 4  # XID, ECC, resume and the throttle span: nothing else is an event
    # The vertical lines (every panel): XID in round 12, ECC in round 14, resume at 445 s.
    for ax in by_title.values():
        xs = sorted(round(x * 60, 1) for x in event_xs(ax))
        assert xs == [11 * 30 + 11.5, 13 * 30 + 1.5, 445.0], ax.get_title()


def test_a_long_soak_is_drawn_in_hours(tmp_path):
    lines = soak_lines()[:4]
    late = json.loads(lines[2])  # device_local_copy[0,0] again, 3 hours in
    late["t_s"] = 3 * 3600.0
    src = write(tmp_path, lines + [json.dumps(late)])
    by_title = panels(figure(src))
    assert by_title["power (W)"].get_xlabel() == "elapsed time (h)"
    assert max(by_title[CELLS[0]].lines[0].get_xdata()) == pytest.approx(1.5 / 3600)
    assert max(by_title[CELLS[1]].lines[0].get_xdata()) == pytest.approx(3.0)


def test_soak_without_telemetry_labels_events_on_the_first_cell(tmp_path):
    lines = soak_lines()[:3]
    docs = [json.loads(line) for line in lines[1:]]
    for d in docs:
        d["telemetry"] = []
    src = write(tmp_path, [lines[0]] + [json.dumps(d) for d in docs]
                + ['{"type":"resume","t_s":20}', '{"type":"end","t_s":30,"status":"interrupted","reason":"SIGINT"}'])
    fig = figure(src)
    assert sorted(panels(fig)) == sorted(CELLS[:2])
    assert "resume" in texts(panels(fig)[CELLS[0]])
    assert "interrupted (SIGINT)" in fig._suptitle.get_text()


def test_soak_png_and_svg_are_written(tmp_path):
    png, svg = tmp_path / "soak.png", tmp_path / "soak.svg"
    assert cli.main([SOAK, "-o", str(png)]) == 0
    assert cli.main([SOAK, "-o", str(svg)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 50_000
    text = svg.read_text()
    for label in CELLS + ["XID 79 (gpu1)", "weak load (&lt;50% of peak)", "elapsed time (min)"]:
        assert label in text, label


def test_the_format_is_told_by_the_schema_not_the_extension(tmp_path):
    as_json = tmp_path / "soak.json"
    as_json.write_text(open(SOAK, encoding="utf-8").read())
    assert L.load(str(as_json)).schema == "xferbench.soak"
    run_as_jsonl = tmp_path / "run.jsonl"
    run_as_jsonl.write_text(json.dumps(json.load(open(LOADED_RUN))))  # one line, but an xferbench-run
    assert L.load(str(run_as_jsonl)).schema == "xferbench-run"
    assert cli.main([str(run_as_jsonl), "-o", str(tmp_path / "run.png")]) == 0


def expect_bad(tmp_path, capsys, src, needle, *extra):
    out = tmp_path / "out.png"
    code = cli.main([str(src), "-o", str(out), *extra])
    err = capsys.readouterr().err
    assert code == cli.EXIT_BAD_INPUT, err
    assert needle in err, err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert not out.exists() and [n for n in os.listdir(tmp_path) if n.startswith(".xferbench-plot-")] == []


def replaced(line, **fields):
    doc = json.loads(line)
    doc.update(fields)
    return json.dumps(doc)


@pytest.mark.parametrize("edit, needle", [
    (lambda ls: ls[:3] + [ls[3][:40]] + ls[4:], ":4: not JSON: "),  # a cut line that is not the last one
    (lambda ls: ls[:5] + ["[1, 2]"] + ls[6:], ":6: the line is a list, not a JSON object"),
    (lambda ls: ls[:6] + [replaced(ls[6], value="fast")] + ls[7:], ':7: field "value" is "fast", not a number'),
    (lambda ls: ls[:6] + [replaced(ls[6], t_s=-1)] + ls[7:], ':7: field "t_s" is -1, not a number of at least 0'),
    (lambda ls: ls[:6] + [replaced(ls[6], type="sampel")] + ls[7:], ':7: field "type" is "sampel", not "sample"'),
    (lambda ls: ls[:6] + [ls[0]] + ls[7:], ':7: field "type" is "header", not "sample", "resume" or "end"'),
    (lambda ls: ls[:4] + [replaced(ls[4], unit="ns")] + ls[5:], ":5: cell 'host_to_device_memcpy_ce[0,0]' has "
                                                                 'unit "ns" here, "gbps" before'),
    (lambda ls: ls[:6] + [replaced(ls[6], unit="MB/s")] + ls[7:], ':7: field "unit" is "MB/s", not "gbps" or "ns"'),
    (lambda ls: ls[:6] + [replaced(ls[6], verified="yes")] + ls[7:], ':7: field "verified" is "yes", not true or false'),
    (lambda ls: ls[:2] + [replaced(ls[2], telemetry=[{"gpu": 0, "xids": ["79"]}])] + ls[3:],
     ':3: telemetry[0]: field "xids[0]" is "79", not an integer of at least 0'),
    (lambda ls: ls[:2] + [replaced(ls[2], telemetry=[{"gpu": 0, "clock_reasons": 2.5}])] + ls[3:],
     ':3: telemetry[0]: field "clock_reasons" is 2.5, not an integer of at least 0'),
    (lambda ls: [replaced(ls[0], schema_version=2)] + ls[1:], "xferbench.soak schema_version 2: this plotter reads version 1"),
    (lambda ls: ls[:1], "holds no samples to draw"),
    # A value near the largest double is refused, not an axis limit that overflows (exit 70 before).
    (lambda ls: ls[:6] + [replaced(ls[6], value=1.7976931348623157e308)] + ls[7:],
     ':7: field "value" is 1.7976931348623157e+308, not a number of at least 0 within +-1e+100'),
    (lambda ls: ls[:2] + [replaced(ls[2], telemetry=[{"gpu": 0, "power_w": -1.7e308}])] + ls[3:],
     ':3: telemetry[0]: field "power_w" is -1.7e+308, not a number within +-1e+100'),
])
def test_a_bad_line_is_one_error_naming_file_and_line(tmp_path, capsys, edit, needle):
    lines = [line for line in soak_lines() if line][:-1]  # the complete lines, without the torn one
    src = write(tmp_path, edit(lines))
    expect_bad(tmp_path, capsys, src, f"'{src}'" + needle if needle.startswith(":") else needle)


def test_only_a_cut_last_line_without_newline_is_ignored(tmp_path, capsys):
    lines = [line for line in soak_lines() if line]
    # The fixture's cut last line, but followed by a newline: a complete line that is not JSON.
    src = write(tmp_path, lines)
    expect_bad(tmp_path, capsys, src, f"'{src}':{len(lines)}: not JSON")
    assert L.load(SOAK).doc["torn"] == 1 and len(L.load(SOAK).doc["samples"]) == 60


def test_the_shipped_bad_line_fixture(tmp_path, capsys):
    src = os.path.join(DATA, "soak_bad_middle_line.jsonl")
    expect_bad(tmp_path, capsys, src, f"'{src}':4: not JSON: Expecting ',' delimiter")


def test_kinds_that_do_not_fit(tmp_path, capsys):
    expect_bad(tmp_path, capsys, SOAK, "is a soak file: --kind heatmap cannot draw it", "--kind", "heatmap")
    expect_bad(tmp_path, capsys, LOADED_RUN, "the soak figure needs a soak file", "--kind", "soak")


def test_soak_through_the_module_entry_point(tmp_path):
    out = tmp_path / "m.png"
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(cli.__file__)))
    r = subprocess.run([sys.executable, "-m", "xferbench_plot", SOAK, "-o", str(out)], env=env, capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr
    bad = subprocess.run([sys.executable, "-m", "xferbench_plot", os.path.join(DATA, "soak_bad_middle_line.jsonl"),
                          "-o", str(tmp_path / "bad.png")], env=env, capture_output=True, text=True)
    assert bad.returncode == cli.EXIT_BAD_INPUT and bad.stderr.count("\n") == 1 and ".jsonl':4:" in bad.stderr
    assert not (tmp_path / "bad.png").exists()


# Loaded-latency cells in a run

def bar_panels(fig):
    """Loaded-latency bar panels by cell name; their titles are wrapped to the panel (after '_' or at spaces)."""
    titles = {ax.get_title().replace("_\n", "_").replace("\n", " "): ax for ax in fig.axes if ax.get_visible()}
    return {t.split(":")[0]: ax for t, ax in titles.items() if t.endswith(": idle vs under load")}


def test_loaded_cells_add_idle_and_loaded_bars_below_the_heatmaps():
    fig = figure(LOADED_RUN)
    bars = bar_panels(fig)
    assert sorted(bars) == ["device_local_latency_under_copy_load", "host_latency_under_htod_load"]
    heatmaps = [ax for ax in fig.axes if ax.get_visible() and ax.images]
    assert len(heatmaps) == 4  # every matrix still has its heatmap, the loaded ones with their loaded values
    host = bars["host_latency_under_htod_load"]
    heights = [p.get_height() for p in host.patches]
    assert heights == [1180.0, 1184.0, 3300.0, 1650.0]  # idle bars, then loaded bars
    assert [p.get_hatch() for p in host.patches] == [None, None, None, "//"]  # only the weak load's bar
    assert [t.get_text() for t in host.texts] == ["x2.80", "x1.39"]
    ticks = [t.get_text() for t in host.get_xticklabels()]
    assert ticks[0] == "host, gpu0\nhost->gpu0 copy engine\n52.1 GB/s, 83% of peak"
    assert ticks[1].endswith("21.4 GB/s, 34% of peak\nweak load")
    assert "under a weak load (<50% of peak)" in [t.get_text() for t in host.get_legend().get_texts()]
    local = bars["device_local_latency_under_copy_load"]
    assert [p.get_hatch() for p in local.patches] == [None, None]
    assert "weak load" not in local.get_xticklabels()[0].get_text()
    assert local.get_ylabel() == "latency (ns)"


def test_runs_without_loaded_cells_get_no_bars():
    fig = figure(os.path.join(DATA, "run_h200x2.json"))
    assert bar_panels(fig) == {} and len(fig.subfigs) == 0


def test_weak_and_ratio_are_derived_when_left_out(tmp_path):
    doc = json.load(open(LOADED_RUN))
    cell = doc["cases"][2]["matrices"][0]["cells"][1]["loaded"]
    del cell["ratio"], cell["load"]["weak"]
    src = tmp_path / "r.json"
    src.write_text(json.dumps(doc))
    host = bar_panels(figure(str(src)))["host_latency_under_htod_load"]
    assert [t.get_text() for t in host.texts] == ["x2.80", "x1.39"]
    assert host.patches[3].get_hatch() == "//"


@pytest.mark.parametrize("change, needle", [
    (lambda lo: lo.update(idle_ns="fast"), 'field "loaded.idle_ns" is "fast", not a number'),
    (lambda lo: lo.pop("idle_ns"), 'field "loaded.idle_ns" is missing, not a number'),
    (lambda lo: lo["load"].update(gbps=-1), 'field "loaded.load.gbps" is -1, not a number of at least 0'),
    (lambda lo: lo["load"].update(weak="no"), 'field "loaded.load.weak" is "no", not true or false'),
    (lambda lo: lo.update(load=5), 'field "load" is 5, not an object'),
])
def test_bad_loaded_fields_name_the_case_and_cell(tmp_path, capsys, change, needle):
    doc = json.load(open(LOADED_RUN))
    change(doc["cases"][2]["matrices"][0]["cells"][0]["loaded"])
    src = tmp_path / "r.json"
    src.write_text(json.dumps(doc))
    expect_bad(tmp_path, capsys, src, f"'{src}': case 'host_latency_under_htod_load' cell (0, 0): {needle}")


def test_loaded_run_png(tmp_path):
    out = tmp_path / "loaded.png"
    assert cli.main([LOADED_RUN, "-o", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out.stat().st_size > 50_000


def rising_counter_soak(tmp_path, samples):
    """A soak of one cell whose corrected ECC count rises in every sample, with a throttle that comes and goes."""
    lines = soak_lines()
    header, first = lines[0], json.loads(lines[1])
    out = [header]
    for i in range(samples):
        doc = dict(first, t_s=1.5 + 10 * i, round=i + 1)
        tele = dict(first["telemetry"][0], ecc_corrected=i, clock_reasons=0x20 if i % 2 else 0)
        doc["telemetry"] = [tele]
        out.append(json.dumps(doc))
    return write(tmp_path, out)


def test_thousands_of_counter_increases_are_one_collection_and_a_few_labels(tmp_path):
    # Every increase was a line and a label on every panel (25 ms and 0.3 MB each: an 8-hour soak with
    # one rising ECC counter took 40 minutes). Every event is still drawn, as one collection per kind and panel.
    samples = 3000
    fig = figure(rising_counter_soak(tmp_path, samples))
    for ax in panels(fig).values():
        assert len(event_xs(ax)) == samples - 1, ax.get_title()
        assert len(ax.lines) <= 3 and len(ax.patches) == 0 and len(ax.collections) <= 4, ax.get_title()
        assert len(shaded_spans(ax)) == samples // 2
    labels = texts(panels(fig)["SM clock (MHz)"])
    assert f"ECC corrected +{samples - 1} (gpu0) in {samples - 1} increases" in labels
    assert "gpu0 sw_thermal (1500 spans)" in labels
    assert len(labels) == 2
    out = tmp_path / "many.png"
    assert cli.main([str(tmp_path / "s.jsonl"), "-o", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_event_labels_are_capped_and_the_rest_counted(tmp_path):
    lines = soak_lines()
    header, first = lines[0], json.loads(lines[1])
    out = [header]
    for i in range(40):  # 40 different XIDs: 40 series, more than MAX_LABELS
        doc = dict(first, t_s=1.5 + 10 * i, round=i + 1)
        doc["telemetry"] = [dict(first["telemetry"][0], xids=[100 + i])]
        out.append(json.dumps(doc))
    fig = figure(write(tmp_path, out))
    labels = texts(panels(fig)["SM clock (MHz)"])
    assert len(labels) == 24 and labels[0] == "XID 100 (gpu0)"
    assert "16 more kinds of event drawn but not named" in fig._suptitle.get_text()
    assert len(event_xs(panels(fig)["SM clock (MHz)"])) == 40
