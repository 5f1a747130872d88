"""Renders real PNG and SVG files from the recorded (synthetic) JSON fixtures
in tests/data and checks them; checks that bad input writes nothing."""

import json
import os
import select
import stat
import struct
import subprocess
import sys
import threading

import pytest

pytest.importorskip("matplotlib")

from xferbench_plot import __main__ as cli  # noqa: E402

DATA = os.path.join(os.path.dirname(__file__), "data")
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def fixture(name):
    return os.path.join(DATA, name)


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    assert head[:8] == PNG_SIGNATURE
    assert head[12:16] == b"IHDR"
    return struct.unpack(">II", head[16:24])


def plot(*args):
    return cli.main([str(a) for a in args])


def leftovers(directory):
    return [n for n in os.listdir(directory) if n.startswith(".xferbench-plot-")]


def test_sweep_curves_png_has_figure_size_and_content(tmp_path):
    out = tmp_path / "sweep.png"
    assert plot(fixture("sweep_htod_2gpu.json"), "-o", out) == 0
    assert png_size(out) == (900, 550)  # 9 x 5.5 in at 100 dpi
    assert out.stat().st_size > 20_000  # two curves, fits, legend: not an empty canvas
    assert leftovers(tmp_path) == []


def test_sweep_curves_svg_names_series_fit_and_peak(tmp_path):
    out = tmp_path / "sweep.svg"
    assert plot(fixture("sweep_htod_2gpu.json"), "-o", out) == 0
    svg = out.read_text()
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg
    for label in ("host-&gt;gpu0 (PCIe Gen5 x16)", "host-&gt;gpu1", "fit: startup", "peak 63.0 GB/s",
                  "bandwidth (GB/s = 1e9 B/s)", "256M"):
        assert label in svg, label


def test_several_files_share_one_figure(tmp_path):
    out = tmp_path / "both.svg"
    assert plot(fixture("sweep_htod_2gpu.json"), fixture("pingpong_host_2ranks.json"), "-o", out) == 0
    svg = out.read_text()
    assert "sweep_htod_2gpu: host-&gt;gpu0" in svg
    assert "pingpong_host_2ranks: r0-r1 host-&gt;host mpi (pingpong)" in svg


def test_pingpong_curves(tmp_path):
    out = tmp_path / "pp.svg"
    assert plot(fixture("pingpong_host_2ranks.json"), "-o", out) == 0
    svg = out.read_text()
    assert "xferbench pingpong (pingpong, auto)" in svg
    assert "1M" in svg


def test_pingpong_before_schema_version_still_reads(tmp_path):
    # The recorded result predates schema_version: its schema is "xferbench-pingpong/1".
    with open(fixture("recorded_h200x2_pingpong_host.json"), encoding="utf-8") as f:
        assert json.load(f)["schema"] == "xferbench-pingpong/1"
    out = tmp_path / "old.svg"
    assert plot(fixture("recorded_h200x2_pingpong_host.json"), "-o", out) == 0
    assert "r0-r1 host-&gt;host mpi (pingpong)" in out.read_text()


def test_run_heatmap_one_panel_per_matrix_with_values(tmp_path):
    svg_out, png_out = tmp_path / "run.svg", tmp_path / "run.png"
    assert plot(fixture("run_h200x2.json"), "-o", svg_out) == 0
    assert plot(fixture("run_h200x2.json"), "-o", png_out) == 0
    svg = svg_out.read_text()
    doc = json.load(open(fixture("run_h200x2.json")))
    panels = [m for c in doc["cases"] for m in c["matrices"] if m["cells"]]
    assert len(panels) == 8
    for c in doc["cases"]:
        if c["matrices"]:
            assert c["name"] in svg
    assert "device_to_device_bidirectional_memcpy_write_ce [total]" in svg
    cell = doc["cases"][0]["matrices"][0]["cells"][0]
    assert f"{cell['value_gbps']:.1f}" in svg and f"{cell['efficiency'] * 100:.0f}%" in svg
    assert "1174" in svg or "1178" in svg  # a latency cell, in ns
    assert png_size(png_out) == (1380, 1080)  # 3 x 3 panels: 13.8 x 10.8 in


def test_timeline_from_per_transfer_start_end(tmp_path):
    out = tmp_path / "tl.svg"
    assert plot(fixture("sweep_htod_2gpu.json"), "-o", out, "--kind", "timeline") == 0
    svg = out.read_text()
    assert "per-transfer timeline" in svg and "host-&gt;gpu1" in svg
    assert "time since the gate release (us)" in svg


def test_timeline_of_a_scenario_document(tmp_path):
    # The shape src/report/scenario_report.cpp writes: one start/end per
    # transfer (the median-span sample), next to its other fields.
    doc = {"schema": "xferbench-scenario", "schema_version": 1, "synthetic": "test",
           "transfers": [{"id": 0, "label": "host->gpu0", "bandwidth_gbps": 27.1, "start_s": 0.0, "end_s": 0.0198},
                         {"id": 1, "label": "gpu1->host", "bandwidth_gbps": 26.4, "start_s": 2e-6, "end_s": 0.0203}],
           "scenario": {"span_s": 0.0203, "overlap_fraction": 0.97}}
    src = tmp_path / "scenario.json"
    src.write_text(json.dumps(doc))
    out = tmp_path / "scenario.png"
    assert plot(src, "-o", out) == 0
    w, h = png_size(out)
    assert w == 900 and h >= 250
    svg = tmp_path / "scenario.svg"
    assert plot(src, "-o", svg) == 0
    text = svg.read_text()
    assert "host-&gt;gpu0" in text and "gpu1-&gt;host" in text and "xferbench scenario" in text


@pytest.mark.parametrize("doc, needle", [
    ({"schema": "nvbandwidth", "x": 1}, "schema 'nvbandwidth'"),
    ({"schema": "xferbench-run", "schema_version": 2, "cases": []}, "schema_version 2"),
    ({"schema": "xferbench-pingpong/9", "pairs": []}, "xferbench-pingpong/9"),
    ({"schema": "xferbench-pingpong", "schema_version": 2, "pairs": []}, "schema_version 2"),
    ({"no": "schema"}, "no \"schema\" field"),
])
def test_unknown_schema_or_version_writes_nothing(tmp_path, capsys, doc, needle):
    src = tmp_path / "bad.json"
    src.write_text(json.dumps(doc))
    out = tmp_path / "bad.png"
    assert plot(src, "-o", out) == cli.EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert needle in err and err.count("\n") == 1
    assert not out.exists() and leftovers(tmp_path) == []


def test_wrong_kind_for_the_document_is_bad_input(tmp_path, capsys):
    out = tmp_path / "x.png"
    assert plot(fixture("run_h200x2.json"), "-o", out, "--kind", "curves") == cli.EXIT_BAD_INPUT
    assert "curves need a sweep or pingpong result" in capsys.readouterr().err
    assert not out.exists()


def test_failed_render_keeps_the_old_file(tmp_path, monkeypatch):
    out = tmp_path / "keep.png"
    out.write_bytes(b"old image")

    def broken(*_a, **_k):
        raise OSError(28, "No space left on device")

    from matplotlib.figure import Figure
    monkeypatch.setattr(Figure, "savefig", broken)
    assert plot(fixture("sweep_htod_2gpu.json"), "-o", out) == cli.EXIT_WRITE
    assert out.read_bytes() == b"old image" and leftovers(tmp_path) == []


def test_unwritable_directory(tmp_path, capsys):
    out = tmp_path / "missing-dir" / "x.png"
    assert plot(fixture("sweep_htod_2gpu.json"), "-o", out) == cli.EXIT_WRITE
    assert "cannot write" in capsys.readouterr().err


def test_a_string_where_a_number_belongs_names_the_file_and_field(tmp_path, capsys):
    doc = json.loads(open(fixture("run_h200x2.json")).read())
    doc["cases"][0]["matrices"][0]["cells"][0]["value_gbps"] = "fast"
    src = tmp_path / "string_value.json"
    src.write_text(json.dumps(doc))
    out = tmp_path / "x.png"
    assert plot(src, "-o", out) == cli.EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert f"'{src}'" in err and "host_to_device_memcpy_ce" in err and '"value_gbps" is "fast", not a number' in err
    assert err.count("\n") == 1 and not out.exists()


def test_sweep_string_value_is_bad_input(tmp_path, capsys):
    doc = json.loads(open(fixture("sweep_htod_2gpu.json")).read())
    doc["series"][0]["rows"][1]["bytes"] = "64K"
    src = tmp_path / "s.json"
    src.write_text(json.dumps(doc))
    assert plot(src, "-o", tmp_path / "s.png") == cli.EXIT_BAD_INPUT
    assert '"bytes" is "64K", not a number' in capsys.readouterr().err


def test_a_symlink_is_followed_and_stays_a_link(tmp_path):
    target = tmp_path / "target.png"
    target.write_bytes(b"old image")
    link = tmp_path / "link.png"
    link.symlink_to("target.png")
    assert plot(fixture("sweep_htod_2gpu.json"), "-o", link) == 0
    assert link.is_symlink() and png_size(target) == (900, 550)
    assert leftovers(tmp_path) == []


def test_a_fifo_is_written_through(tmp_path):
    fifo = tmp_path / "pipe.svg"
    os.mkfifo(fifo)
    # Held open read-write (Linux), so opening it for writing does not wait,
    # and a FIFO wrongly replaced by a file fails the test instead of hanging;
    # a thread drains it, as the image is larger than a pipe's buffer.
    reader = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)
    received = []

    def drain():
        data = b""
        while not data.rstrip().endswith(b"</svg>") and select.select([reader], [], [], 10)[0]:
            data += os.read(reader, 1 << 16)
        received.append(data)

    thread = threading.Thread(target=drain, daemon=True)
    thread.start()
    try:
        assert plot(fixture("sweep_htod_2gpu.json"), "-o", fifo) == 0
        thread.join(20)
    finally:
        os.close(reader)
    assert received and b"<svg" in received[0] and stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_a_directory_is_refused(tmp_path, capsys):
    out = tmp_path / "d.png"
    out.mkdir()
    assert plot(fixture("sweep_htod_2gpu.json"), "-o", out) == cli.EXIT_WRITE
    assert "it is a directory" in capsys.readouterr().err and out.is_dir()


def test_module_entry_point_runs(tmp_path):
    out = tmp_path / "m.png"
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(cli.__file__)))
    r = subprocess.run([sys.executable, "-m", "xferbench_plot", fixture("sweep_htod_2gpu.json"), "-o", str(out)],
                       env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert png_size(out) == (900, 550)


# Recorded on nvidia-h200-x2 (2026-11-21) by this xferbench: real output of
# sweep --do 0:HtoD --do 1:HtoD, run --do (four host transfers) and a host
# pingpong, so the plotter is checked against what the reporters really write.
@pytest.mark.parametrize("name, kind, labels", [
    ("recorded_h200x2_sweep_htod.json", "curves", ["host-&gt;gpu0 (PCIe Gen5 x16)", "host-&gt;gpu1", "fit: startup"]),
    ("recorded_h200x2_sweep_htod.json", "timeline", ["host-&gt;gpu0", "host-&gt;gpu1"]),
    ("recorded_h200x2_scenario.json", "auto", ["host-&gt;gpu1", "gpu0-&gt;host", "gpu1-&gt;host"]),
    ("recorded_h200x2_pingpong_host.json", "curves", ["r0-r1 host-&gt;host mpi (pingpong)"]),
])
def test_recorded_results_render(tmp_path, name, kind, labels):
    svg, png = tmp_path / "r.svg", tmp_path / "r.png"
    assert plot(fixture(name), "-o", svg, "--kind", kind) == 0
    assert plot(fixture(name), "-o", png, "--kind", kind) == 0
    text = svg.read_text()
    for label in labels:
        assert label in text, label
    w, h = png_size(png)
    assert w == 900 and h >= 250 and png.stat().st_size > 10_000


def test_sm_budget_curve_marks_90_and_95_percent(tmp_path):
    out = tmp_path / "sms.svg"
    assert plot(fixture("sms_synthetic_2gpu.json"), "-o", out) == 0  # auto kind for xferbench-sms
    svg = out.read_text()
    for label in ("[gpu0,gpu1] (NVLink x18)", "90% of 373.4 GB/s from", "95% of 373.4 GB/s from",
                  "SMs the copy kernel runs on", "peak 478.1 GB/s"):
        assert label in svg, label


def test_sm_budget_kind_refuses_other_results(tmp_path):
    out = tmp_path / "bad.png"
    assert plot(fixture("sweep_htod_2gpu.json"), "--kind", "sms", "-o", out) == 2
    assert not out.exists()
