"""Malformed result files: each one is bad input (exit 2) with one line naming
the file and the field, never an internal error (5, which xferbench plot
reports as 70) or a traceback, and nothing is written."""

import copy
import fcntl
import json
import os
import select
import signal
import subprocess
import sys

import pytest

pytest.importorskip("matplotlib")

from xferbench_plot import __main__ as cli  # noqa: E402

DATA = os.path.join(os.path.dirname(__file__), "data")


def fixture_doc(name):
    with open(os.path.join(DATA, name), encoding="utf-8") as f:
        return json.load(f)


RUN, SWEEP = fixture_doc("run_h200x2.json"), fixture_doc("sweep_htod_2gpu.json")
PINGPONG, SMS = fixture_doc("pingpong_host_2ranks.json"), fixture_doc("sms_synthetic_2gpu.json")
SCENARIO = {"schema": "xferbench-scenario", "schema_version": 1, "synthetic": "test",
            "transfers": [{"label": "host->gpu0", "start_s": 0.0, "end_s": 0.02},
                          {"label": "gpu1->host", "start_s": [0.0, 1e-6], "end_s": [0.02, 0.021]}]}


def edit(base, change):
    doc = copy.deepcopy(base)
    change(doc)
    return doc


def setter(*path_and_value):
    *path, key, value = path_and_value

    def change(doc):
        node = doc
        for k in path:
            node = node[k]
        node[key] = value
    return change


def write(tmp_path, content, name="r.json"):
    src = tmp_path / name
    src.write_text(content if isinstance(content, str) else json.dumps(content))
    return src


def expect_bad_input(tmp_path, capsys, src, needle, *extra):
    out = tmp_path / "out.png"
    code = cli.main([str(src), "-o", str(out), *extra])
    err = capsys.readouterr().err
    assert code == cli.EXIT_BAD_INPUT, err
    assert f"'{src}'" in err and needle in err, err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert not out.exists() and [n for n in os.listdir(tmp_path) if n.startswith(".xferbench-plot-")] == []


CASE0 = RUN["cases"][0]["name"]
LATENCY = next(i for i, c in enumerate(RUN["cases"]) if c["matrices"] and c["matrices"][0]["metric"] == "latency_ns")
SERIES0 = SWEEP["series"][0]["label"]


@pytest.mark.parametrize("base, change, needle", [
    # Containers of the wrong type (these were exit 70).
    (RUN, setter("cases", "abc"), 'field "cases" is "abc", not a list'),
    (RUN, setter("cases", 0, "matrices", "abc"), f"case '{CASE0}': field \"matrices\" is \"abc\", not a list"),
    (RUN, setter("cases", 0, "matrices", 0, "cells", 0, "x"), 'field "cells[0]" is "x", not an object'),
    (RUN, setter("cases", 0, "matrices", 0, "row_labels", 5), 'field "row_labels" is 5, not a list'),
    (RUN, setter("cases", 0, "matrices", 0, "col_labels", 0, 7), 'field "col_labels[0]" is 7, not a string'),
    (RUN, setter("cases", 0, "name", 7), 'cases[0]: field "name" is 7, not a string'),
    (RUN, setter("cases", 3, {}), 'cases[3]: field "name" is missing, not a string'),
    (PINGPONG, setter("pairs", "abc"), 'field "pairs" is "abc", not a list'),
    (PINGPONG, setter("pairs", 0, "sizes", "abc"), 'pair r0-r1: field "sizes" is "abc", not a list'),
    (PINGPONG, setter("pairs", 0, "rank_a", "zero"), 'pairs[0]: field "rank_a" is "zero", not an integer'),
    (SWEEP, setter("series", {"a": 1}), 'field "series" is an object, not a list'),
    (SWEEP, setter("series", 0, "rows", "abc"), f"series '{SERIES0}': field \"rows\" is \"abc\", not a list"),
    (SWEEP, setter("series", 0, "fit", "good"), 'field "fit" is "good", not an object'),
    (SWEEP, setter("series", 0, "peak", 63), 'field "peak" is 63, not an object'),
    (SWEEP, setter("series", 0, "peak", "gbps", "fast"), 'field "peak.gbps" is "fast", not a number'),
    (SWEEP, setter("series", 0, "label", ["a"]), 'series[0]: field "label" is a list, not a string'),
    (SWEEP, setter("source", "abc"), 'field "source" is "abc", not an object'),
    (SMS, setter("series", 0, "points", "abc"), 'field "points" is "abc", not a list'),
    (SMS, setter("series", 0, "points", 0, "sms", "8"), 'field "sms" is "8", not an integer above 0'),
    (SMS, setter("series", 0, "all_sm_gbps", "fast"), 'field "all_sm_gbps" is "fast", not a number'),
    # Sizes and counts that must be positive (sweep sizes of 0 or -1 were exit 70).
    (SWEEP, setter("series", 0, "rows", 0, "bytes", 0), f"series '{SERIES0}' row 0: field \"bytes\" is 0, not a number above 0"),
    (SWEEP, setter("series", 0, "rows", 1, "bytes", -1), 'field "bytes" is -1, not a number above 0'),
    (PINGPONG, setter("pairs", 0, "sizes", 0, "bytes", 0), 'pair r0-r1 size 0: field "bytes" is 0, not a number above 0'),
    (SMS, setter("series", 0, "points", 0, "sms", 0), 'field "sms" is 0, not an integer above 0'),
    (SMS, setter("series", 0, "gpu_sms", -1), 'field "gpu_sms" is -1, not an integer above 0'),
    (SMS, setter("series", 0, "sms_for_90pct", 2.5), 'field "sms_for_90pct" is 2.5, not an integer above 0'),
    # Measured values are not negative; cell indexes stay inside the matrix (-1 picked the last cell).
    (SWEEP, setter("series", 0, "rows", 0, "value_gbps", -3), 'field "value_gbps" is -3, not a number of at least 0'),
    (RUN, setter("cases", 0, "matrices", 0, "cells", 0, "row", -1), 'field "row" is -1, not an integer of at least 0'),
    (RUN, setter("cases", 0, "matrices", 0, "cells", 0, "col", 9), 'field "col" is 9, not an index below'),
    (RUN, setter("cases", 0, "matrices", 0, "cells", 0, "efficiency", "high"), 'field "efficiency" is "high", not a number'),
    (RUN, setter("cases", LATENCY, "matrices", 0, "cells", 0, "value_ns", -5), 'field "value_ns" is -5, not a number'),
    (PINGPONG, setter("pairs", 0, "sizes", 0, "bandwidth_gbps", True), 'field "bandwidth_gbps" is true, not a number'),
    # A number too large for a double (Python reads it as an int, matplotlib cannot).
    (SWEEP, setter("series", 0, "rows", 0, "bytes", 10 ** 400), 'field "bytes" is an integer too large for a double'),
    # schema_version of the wrong type: a list was a TypeError (exit 70), true was read as 1.
    (RUN, setter("schema_version", [1]), "schema_version a list"),
    (RUN, setter("schema_version", True), "schema_version true"),
])
def test_malformed_field_is_bad_input_naming_file_and_field(tmp_path, capsys, base, change, needle):
    expect_bad_input(tmp_path, capsys, write(tmp_path, edit(base, change)), needle)


@pytest.mark.parametrize("literal, needle", [("1e400", "the number 1e400 is out of range"),
                                             ("NaN", "NaN is not a JSON number"),
                                             ("-Infinity", "-Infinity is not a JSON number")])
@pytest.mark.parametrize("where", [("cells", 0, "value_gbps"), ("cells", 0, "stats", "median_gbps")])
def test_non_finite_numbers_are_bad_input(tmp_path, capsys, literal, needle, where):
    # Anywhere in the file, also in a field the plotter does not draw: the
    # C++ readers refuse the same file, so plot does too.
    path = ("cases", 0, "matrices", 0) + where
    text = json.dumps(edit(RUN, setter(*path, "@@"))).replace('"@@"', literal)
    expect_bad_input(tmp_path, capsys, write(tmp_path, text), needle)


def test_deeply_nested_json_is_bad_input(tmp_path, capsys):
    depth = 100_000
    text = '{"schema": "xferbench-run", "schema_version": 1, "cases": ' + "[" * depth + "]" * depth + "}"
    expect_bad_input(tmp_path, capsys, write(tmp_path, text), "nested too deeply")


@pytest.mark.parametrize("change, needle", [
    (setter("transfers", 0, "start_s", "soon"), "transfer 'host->gpu0': field \"start_s\" is \"soon\", not a number"),
    (setter("transfers", 1, "end_s", [0.02]), "field \"start_s\" has 2 samples and \"end_s\" 1"),
    (setter("transfers", 1, "end_s", []), 'field "end_s" is a list, not a number or a non-empty list of numbers'),
    (setter("transfers", 0, "end_s", -1.0), "transfer 'host->gpu0': sample 0 ends (-1.0 s) before it starts (0.0 s)"),
    (setter("transfers", 0, "label", 3), 'field "label" is 3, not a string'),
    (setter("transfers", [{"label": f"t{i}", "start_s": 0.0, "end_s": 1.0} for i in range(1200)]),
     "holds 1200 transfers"),
])
def test_malformed_timeline_is_bad_input(tmp_path, capsys, change, needle):
    expect_bad_input(tmp_path, capsys, write(tmp_path, edit(SCENARIO, change)), needle)


def test_unpaired_surrogate_in_a_label_is_bad_input(tmp_path, capsys):
    src = write(tmp_path, edit(SWEEP, setter("series", 0, "label", "\ud800x")))
    expect_bad_input(tmp_path, capsys, src, 'series[0]: field "label" is "\\ud800x", not text')


def test_a_directory_or_fifo_as_input_is_bad_input(tmp_path, capsys):
    directory = tmp_path / "dir.json"
    directory.mkdir()
    expect_bad_input(tmp_path, capsys, directory, "not a regular file")
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    # Held open for writing, so the old open() would not wait; a read would wait for ever (no data, no EOF).
    writer = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)
    try:
        expect_bad_input(tmp_path, capsys, fifo, "not a regular file")
    finally:
        os.close(writer)


@pytest.mark.parametrize("doc, extra, needle", [
    # n_half_bytes is null when the report has none: drawn as n/a (a TypeError before).
    (edit(SWEEP, setter("series", 0, "fit", "n_half_bytes", None)), [], "n_half n/a"),
    (edit(SWEEP, setter("series", 0, "fit", "n_half_bytes", 0)), [], "n_half n/a"),
    # '$' is text, not TeX math: an unbalanced or unknown command failed to draw.
    (SWEEP, ["--title", "$\\frac$ and $x^$"], "$\\frac$ and $x^$"),
    (edit(SWEEP, setter("series", 0, "label", "$\\undefined$ cost")), [], "$\\undefined$ cost"),
    # A latency panel of zeros (divided by its largest value before).
    (edit(RUN, lambda d: [c.__setitem__("value_ns", 0) for c in d["cases"][LATENCY]["matrices"][0]["cells"]]),
     ["--kind", "heatmap"], "host_device_latency_sm"),
])
def test_odd_but_valid_values_draw(tmp_path, capsys, doc, extra, needle):
    src, out = write(tmp_path, doc), tmp_path / "ok.svg"
    code = cli.main([str(src), "-o", str(out), *extra])
    assert code == 0, capsys.readouterr().err
    assert needle in out.read_text().replace("&gt;", ">")


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_signal_ends_the_module_by_that_signal_without_a_traceback(tmp_path, signum):
    # The output is a FIFO whose reader takes one byte and then stops: the
    # plotter is blocked writing the image, inside main(), when the signal
    # arrives (evidence: the byte). It must end by that signal, so xferbench
    # plot can tell it from a bug, with no traceback (SIGINT printed a
    # KeyboardInterrupt traceback before).
    fifo = tmp_path / "out.png"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    if hasattr(fcntl, "F_SETPIPE_SZ"):
        fcntl.fcntl(reader, fcntl.F_SETPIPE_SZ, 4096)  # the image is larger still; it cannot all fit
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(cli.__file__)))
    proc = subprocess.Popen([sys.executable, "-m", "xferbench_plot", os.path.join(DATA, "run_h200x2.json"),
                             "-o", str(fifo)], env=env, stderr=subprocess.PIPE, text=True)
    try:
        while not select.select([reader], [], [], 0.2)[0]:
            assert proc.poll() is None, "the plotter ended before writing the image"
        assert os.read(reader, 1) == b"\x89"  # the PNG signature's first byte
        proc.send_signal(signum)
        err = proc.communicate(timeout=300)[1]
    finally:
        proc.kill()
        os.close(reader)
    assert proc.returncode == -signum, err
    assert err == ""
    assert os.listdir(tmp_path) == ["out.png"]
