"""python3 -m xferbench_plot RESULT.json|SOAK.jsonl... -o FILE.png|FILE.svg [--kind ...]

Exit codes (read by `xferbench plot`): 0 written; 2 bad input, nothing
written; 3 matplotlib missing; 4 the image could not be written; 5 a bug in
this package; 6 out of memory. Never 1: `python3 -m` exits 1 when the package is missing, and
xferbench plot says so. SIGINT, SIGTERM and SIGHUP end it by that signal,
after a half-written image is removed, so xferbench plot can tell them from
a crash.
"""

import argparse
import errno
import io
import os
import signal
import stat
import sys
import tempfile

from . import load as L
from .fields import printable

EXIT_BAD_INPUT, EXIT_NO_MATPLOTLIB, EXIT_WRITE, EXIT_INTERNAL, EXIT_NO_MEMORY = 2, 3, 4, 5, 6


class WriteError(Exception):
    pass


def error(message, code):
    print(f"xferbench: error: {printable(message)}", file=sys.stderr)
    return code


def auto_kind(result):
    if result.schema == "xferbench-sweep":
        return "curves"
    if result.schema == "xferbench-pingpong":
        return "pingpong"
    if result.schema == "xferbench-run":
        return "run"  # bars for one GPU, heatmaps for more (build_figure)
    if result.schema == "xferbench-fleet":
        return "fleet"
    if result.schema == "xferbench-sms":
        return "sms"
    if result.schema == L.soak.SCHEMA:
        return "soak"
    if result.schema == L.fabric.SCHEMA:
        return "fabric"
    return "timeline"


def default_title(result):
    d, place = result.doc, L.Place(result.path)
    env = place.object(d, "environment", optional=True) or {}
    host = place.at("environment").text(env, "hostname", optional=True)
    where = f" on {host}" if host else ""
    if result.schema == "xferbench-sweep":
        src = place.object(d, "source", optional=True) or {}
        at = place.at("source")
        if at.text(src, "kind", optional=True) == "case":
            what = f"case {at.text(src, 'case')}"
        else:
            what = f"--do '{at.text(src, 'spec', optional=True, default='?')}'"
        return f"xferbench sweep: {what}{where}"
    if result.schema == "xferbench-sms":
        return f"xferbench sweep --sms: case {place.text(d, 'case', optional=True, default='?')}{where}"
    if result.schema == L.fabric.SCHEMA:
        nodes = len(d.get("nodes") or [])
        return f"xferbench fabric: {nodes} nodes"
    if result.schema == "xferbench-pingpong":
        mode = place.text(d, "mode", optional=True, default="?")
        return f"xferbench pingpong ({mode}, {place.text(d, 'requested_transport', optional=True, default='?')})"
    if result.schema == "xferbench-fleet":
        nodes = place.object(d, "nodes", optional=True) or {}
        return f"xferbench fleet: {place.text(d, 'command', optional=True, default='run')} on {len(nodes)} nodes"
    return f"xferbench {result.schema.split('-', 1)[1]}{where}"


def build_figure(results, kind, title):
    from . import draw  # imports matplotlib

    if kind == "curves":
        prefixed = len(results) > 1
        data = [(f"{r.name}: " if prefixed else "", L.curve_series(r)) for r in results]
        return draw.curves(data, title or default_title(results[0]))
    if len(results) != 1:
        raise L.InputError(f"--kind {kind} draws one result file, got {len(results)}")
    r = results[0]
    if kind == "soak":
        if r.schema != L.soak.SCHEMA:
            raise L.InputError(f"'{r.path}' is an {r.schema} result: the soak figure needs a soak file "
                               "(xferbench soak)")
        from . import draw_soak
        return draw_soak.soak(r.doc, title)
    if r.schema == L.soak.SCHEMA:
        raise L.InputError(f"'{r.path}' is a soak file: --kind {kind} cannot draw it (auto or soak can)")
    if kind == "fabric" or r.schema == L.fabric.SCHEMA:
        if kind != "fabric":
            raise L.InputError(f"'{r.path}' is a fabric result: --kind {kind} cannot draw it (auto or fabric can)")
        data = L.fabric.fabric_matrices(r)
        from . import draw_fabric
        return draw_fabric.fabric(data, title or default_title(r))
    if kind == "sms":
        return draw.sm_budget(L.sm_budget_series(r), title or default_title(r))
    if kind in ("run", "heatmap", "bars"):
        from . import draw_bars
        panels = L.heatmap_panels(r)
        if kind == "bars" or (kind == "run" and draw_bars.one_cell_each(panels)):
            if not draw_bars.one_cell_each(panels):
                raise L.InputError(f"'{r.path}' has matrices of several cells: --kind bars draws one-GPU runs "
                                   "(--kind heatmap draws this one)")
            return draw_bars.run_bars(panels, title or default_title(r))
        return draw.heatmap(panels, title or default_title(r))
    if kind == "pingpong":
        from . import pingpong
        return pingpong.figure(pingpong.pingpong_series(r), title or default_title(r))
    if kind == "fleet":
        from . import fleet
        return fleet.figure(fleet.fleet_grid(r), title or default_title(r))
    return draw.timeline(L.timeline_transfers(r), (title or default_title(r)) + ": per-transfer timeline")


def _render(fig, f, fmt):
    fig.savefig(f, format=fmt, metadata={"Date": None} if fmt == "svg" else None)


def _own_descriptor(path):
    """N when `path` names this process's own descriptor N (/dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N,
    /proc/<own pid>/fd/N), else None. Following such a name to the file behind it would reopen or replace what the
    descriptor was redirected to (a log opened with >>, a pipe), so the search for the target stops here."""
    named = {"/dev/stdin": 0, "/dev/stdout": 1, "/dev/stderr": 2}
    if path in named:
        return named[path]
    folder, base = os.path.split(path)
    if not base.isdigit() or len(base) > 9:
        return None
    own = {"/dev/fd", "/proc/self/fd", "/proc/thread-self/fd", f"/proc/{os.getpid()}/fd"}
    if folder in own or os.path.realpath(folder) == f"/proc/{os.getpid()}/fd":
        return int(base)
    return None


def _resolve(path):
    """(target, fd): symbolic links in the last component followed as open() would (a link to a file that does not
    exist yet names that file), stopping at a name of this process's own descriptor (then fd is set)."""
    target = path
    for _ in range(40):  # the kernel's own limit
        fd = _own_descriptor(target)
        if fd is not None:
            return target, fd
        if not os.path.islink(target):
            return target, None
        link = os.readlink(target)
        target = link if link.startswith("/") else os.path.join(os.path.dirname(target) or ".", link)
    raise WriteError(f"cannot write output file '{path}': {os.strerror(errno.ELOOP)}")


def _write_descriptor(fd, data, path):
    try:
        view = memoryview(data)
        while view:
            n = os.write(fd, view)
            view = view[n:]
    except OSError as e:
        raise WriteError(f"cannot write output file '{path}' (descriptor {fd}): {e.strerror}") from None


def image_bytes(fig, fmt):
    buf = io.BytesIO()
    _render(fig, buf, fmt)
    return buf.getvalue()


def save(fig, path):
    """Writes the image as xferbench writes every output file (src/report/output_file.hpp): a name of one of this
    process's descriptors (/dev/stdout, /dev/fd/N, or a link to one) is written through that descriptor, never
    reopened or replaced (`-o /dev/stdout >> log` appends, a pipe gets the image); another symbolic link is followed;
    a device node or FIFO is written in place; a regular file or a new path is rendered next to it, synced and renamed
    over it, so it is whole or untouched. `xferbench plot` writes the image itself, through that same code."""
    fmt = os.path.splitext(path)[1].lower().lstrip(".")
    target, fd = _resolve(path)
    if fd is not None:
        if sys.stdout is not None:  # what was printed comes first; a closed stdout is None
            sys.stdout.flush()
        _write_descriptor(fd, image_bytes(fig, fmt), path)
        return
    try:
        st = os.stat(target)
    except FileNotFoundError:
        st = None
    except OSError as e:
        raise WriteError(f"cannot write output file '{path}': {e.strerror}") from None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise WriteError(f"cannot write output file '{path}': it is a directory")
    if st is not None and not stat.S_ISREG(st.st_mode):
        try:
            with open(target, "wb") as f:
                _render(fig, f, fmt)
        except OSError as e:
            raise WriteError(f"cannot write output file '{path}': {e.strerror}") from None
        return
    try:
        fd, tmp = tempfile.mkstemp(prefix=".xferbench-plot-", suffix="." + fmt, dir=os.path.dirname(target) or ".")
    except OSError as e:
        raise WriteError(f"cannot write output file '{path}': {e.strerror}") from None
    try:
        with os.fdopen(fd, "wb") as f:
            _render(fig, f, fmt)
            f.flush()
            os.fsync(f.fileno())
        if st is not None:
            os.chmod(tmp, stat.S_IMODE(st.st_mode))  # a replaced image keeps its permissions
        else:
            # mkstemp makes the file 0600; give a new image the usual umask mode.
            mask = os.umask(0)
            os.umask(mask)
            os.chmod(tmp, 0o666 & ~mask)
        os.replace(tmp, target)
    except OSError as e:
        os.unlink(tmp)
        raise WriteError(f"cannot write output file '{path}': {e.strerror}") from None
    except BaseException:
        os.unlink(tmp)
        raise


def parse_args(argv):
    p = argparse.ArgumentParser(prog="xferbench plot", description="Draw xferbench result JSON or a soak file with matplotlib.")
    p.add_argument("results", nargs="+", metavar="RESULT.json|SOAK.jsonl")
    p.add_argument("-o", "--output", required=True, help="FILE.png or FILE.svg")
    p.add_argument("--kind", choices=["auto", "curves", "heatmap", "bars", "pingpong", "fleet", "timeline", "sms",
                                      "soak", "fabric"], default="auto")
    p.add_argument("--title", default="")
    # Used by `xferbench plot`: the image's bytes go to this descriptor (a pipe) and xferbench writes -o itself,
    # as it writes every output file; -o then only names the format.
    p.add_argument("--image-fd", type=int, default=None, help=argparse.SUPPRESS)
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if os.path.splitext(args.output)[1].lower() not in (".png", ".svg"):
        return error(f"invalid -o '{args.output}': the image must end in .png or .svg", EXIT_BAD_INPUT)
    try:
        results = [L.load(p) for p in args.results]
        kind = auto_kind(results[0]) if args.kind == "auto" else args.kind
        try:
            import matplotlib

            matplotlib.use("Agg")
            # Text stays text in SVG (searchable, smaller) and output is reproducible.
            matplotlib.rcParams["svg.fonttype"] = "none"
            matplotlib.rcParams["svg.hashsalt"] = "xferbench"
            # Labels and titles come from result files and --title: a '$' in them is text, not TeX math
            # (an unbalanced one would make drawing fail).
            if "text.parse_math" in matplotlib.rcParams:
                matplotlib.rcParams["text.parse_math"] = False
        except ImportError:
            return error(f"matplotlib is not installed for {sys.executable}: pip install ./python "
                         "(or pip install matplotlib)", EXIT_NO_MATPLOTLIB)
        fig = build_figure(results, kind, args.title)
        if args.image_fd is None:
            save(fig, args.output)
        else:
            fmt = os.path.splitext(args.output)[1].lower().lstrip(".")
            _write_descriptor(args.image_fd, image_bytes(fig, fmt), f"/dev/fd/{args.image_fd}")
    except L.InputError as e:
        return error(str(e), EXIT_BAD_INPUT)
    except WriteError as e:
        return error(str(e), EXIT_WRITE)
    except MemoryError:
        return error("out of memory while drawing", EXIT_NO_MEMORY)
    except Exception as e:  # keep exit status 1 free to mean "package missing"
        detail = (str(e).strip().splitlines() or [""])[0]  # one line, as every xferbench error
        print(f"xferbench: internal error in xferbench_plot: {type(e).__name__}: {printable(detail)}", file=sys.stderr)
        return EXIT_INTERNAL
    return 0


class _Signalled(BaseException):
    def __init__(self, signum):
        super().__init__(signum)
        self.signum = signum


def _raise_signalled(signum, _frame):
    raise _Signalled(signum)


def run_as_program():
    """main() as `python3 -m xferbench_plot`: SIGINT, SIGTERM and SIGHUP end it without a traceback, after a
    half-written image is removed, by that same signal, so xferbench plot sees which one (docs/plots.md)."""
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, _raise_signalled)
    try:
        code = main()
    except _Signalled as e:
        signal.signal(e.signum, signal.SIG_DFL)
        os.kill(os.getpid(), e.signum)
        raise  # not reached: the signal ends the process
    sys.exit(code)


if __name__ == "__main__":
    run_as_program()
