"""Where `python3 -m xferbench_plot -o FILE` writes: a name of one of the process's own descriptors
(/dev/stdout, /dev/fd/N, or a link to one) is written through that descriptor, as xferbench's C++ commands do
(src/report/output_file.hpp): `-o /dev/stdout >> log` appends to the log, a pipe gets the image. Before, the
link was resolved to the file behind standard output and the image renamed over it (the log's lines lost), and
into a pipe the write failed with "No such file or directory"."""

import os
import subprocess
import sys

import pytest

pytest.importorskip("matplotlib")

DATA = os.path.join(os.path.dirname(__file__), "data")
SOAK = os.path.join(DATA, "soak_synthetic_3cells.jsonl")
PNG = b"\x89PNG\r\n\x1a\n"
PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def plot(output, stdout, cwd):
    env = dict(os.environ, PYTHONPATH=PACKAGE)
    return subprocess.run([sys.executable, "-m", "xferbench_plot", SOAK, "-o", output], stdout=stdout,
                          stderr=subprocess.PIPE, cwd=cwd, env=env, check=False)


def test_a_link_to_stdout_appends_to_the_log_it_is_redirected_to(tmp_path):
    log = tmp_path / "log.txt"
    log.write_bytes(b"line one\nline two\n")
    os.symlink("/dev/stdout", tmp_path / "out.png")
    with open(log, "ab") as out:
        r = plot("out.png", out, tmp_path)
    assert r.returncode == 0, r.stderr
    data = log.read_bytes()
    assert data.startswith(b"line one\nline two\n" + PNG)
    assert os.path.islink(tmp_path / "out.png") and os.readlink(tmp_path / "out.png") == "/dev/stdout"


def test_dev_stdout_and_dev_fd_append_too(tmp_path):
    for name in ("/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"):
        log = tmp_path / "log.txt"
        log.write_bytes(b"kept\n")
        with open(log, "ab") as out:
            r = plot(name, out, tmp_path)
        # The format comes from the name's extension; these names have none, so the plotter refuses them.
        assert r.returncode == 2 and b"must end in .png or .svg" in r.stderr
        assert log.read_bytes() == b"kept\n"
    os.symlink("/dev/fd/1", tmp_path / "fd.svg")
    log = tmp_path / "log.txt"
    with open(log, "ab") as out:
        r = plot("fd.svg", out, tmp_path)
    assert r.returncode == 0, r.stderr
    assert log.read_bytes().startswith(b"kept\n<?xml")


def test_a_pipe_gets_the_image(tmp_path):
    os.symlink("/dev/stdout", tmp_path / "out.png")
    r = plot("out.png", subprocess.PIPE, tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith(PNG) and len(r.stdout) > 50_000


def test_a_closed_stdout_is_a_write_error(tmp_path):
    os.symlink("/dev/stdout", tmp_path / "out.png")
    env = dict(os.environ, PYTHONPATH=PACKAGE)
    r = subprocess.run([sys.executable, "-m", "xferbench_plot", SOAK, "-o", "out.png"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, cwd=tmp_path, env=env, check=False,
                       preexec_fn=lambda: os.close(1))
    assert r.returncode == 4, r.stderr
    assert b"cannot write output file 'out.png' (descriptor 1)" in r.stderr
