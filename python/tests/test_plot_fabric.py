"""The fabric figure (xferbench fabric): a node x node matrix per rail, culprits marked, and the
one-line errors for a malformed fabric file.

Fixture: fabric_node_fault.json was recorded by `xferbench fabric` under mpirun on one CPU machine with 4
simulated nodes (XFERBENCH_NODE_NAME n1..n4) x 2 rails, host buffers over MPI, and XFERBENCH_FAULT=node:n2:slow
(node n2's repetitions reported 10 times as long), so its findings name node n2."""

import copy
import json
import os

import pytest

pytest.importorskip("matplotlib")

from matplotlib.patches import Rectangle  # noqa: E402

from xferbench_plot import __main__ as cli  # noqa: E402
from xferbench_plot import load as L  # noqa: E402

DATA = os.path.join(os.path.dirname(__file__), "data")
FABRIC = os.path.join(DATA, "fabric_node_fault.json")


def doc():
    with open(FABRIC, encoding="utf-8") as f:
        return json.load(f)


def write(tmp_path, d):
    path = tmp_path / "f.json"
    path.write_text(json.dumps(d))
    return str(path)


def rail_axes(fig):
    return {ax.get_title(): ax for ax in fig.axes if ax.get_title().startswith("rail ")}


def test_the_fixture_is_a_fabric_with_its_culprit():
    d = doc()
    assert d["schema"] == "xferbench-fabric" and d["schema_version"] == 1
    assert [c["what"] for c in d["findings"]["culprits"]][:1] == ["node n2"]


def test_auto_draws_a_matrix_per_rail_with_the_culprit_node_in_red():
    r = L.load(FABRIC)
    assert cli.auto_kind(r) == "fabric"
    fig = cli.build_figure([r], "fabric", "")
    axes = rail_axes(fig)
    assert sorted(axes) == ["rail 0", "rail 1"]
    for ax in axes.values():
        image = ax.get_images()[0].get_array()
        assert image.shape == (4, 4)
        red = [t.get_text() for t in ax.get_yticklabels() if t.get_color() == "tab:red"]
        assert red == ["n2"]
        # Every off-diagonal cell measured, printed in GB/s.
        assert len(ax.texts) == 12
    assert "culprits: node n2" in fig._suptitle.get_text()


def test_a_culprit_pair_is_boxed_and_a_culprit_rail_titled(tmp_path):
    d = doc()
    d["findings"]["culprits"] = [
        {"kind": "pair_rail", "what": "pair n1-n3 rail 1", "why": "", "node_a": 0, "node_b": 2, "rail": 1,
         "low_pairs": 1, "pairs": 1, "median_ratio": 0.1},
        {"kind": "rail", "what": "rail 0", "why": "", "node_a": -1, "node_b": -1, "rail": 0, "low_pairs": 6,
         "pairs": 6, "median_ratio": 0.1},
    ]
    fig = cli.build_figure([L.load(write(tmp_path, d))], "fabric", "")
    axes = rail_axes(fig)
    assert "rail 0: CULPRIT (the rail)" in axes
    boxes = [p for p in axes["rail 1"].patches if isinstance(p, Rectangle)]
    assert sorted((b.get_x() + 0.5, b.get_y() + 0.5) for b in boxes) == [(0.0, 2.0), (2.0, 0.0)]


def test_malformed_fabric_files_are_one_line_errors(tmp_path):
    bad_node = doc()
    bad_node["pairs"][0]["node_b"] = 9
    with pytest.raises(L.InputError, match=r"pairs\[0\]: field \"node_b\" is 9, not another of the 4 nodes"):
        cli.build_figure([L.load(write(tmp_path, bad_node))], "fabric", "")
    version = doc()
    version["schema_version"] = 2
    with pytest.raises(L.InputError, match="xferbench-fabric schema_version 2"):
        L.load(write(tmp_path, version))
    heatmap = L.load(FABRIC)
    with pytest.raises(L.InputError, match="is a fabric result: --kind heatmap cannot draw it"):
        cli.build_figure([heatmap], "heatmap", "")
    empty = copy.deepcopy(doc())
    empty["pairs"] = []
    with pytest.raises(L.InputError, match="holds no measured pair"):
        cli.build_figure([L.load(write(tmp_path, empty))], "fabric", "")
