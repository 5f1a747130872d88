"""python3 -m xferbench_plot RESULT.json|SOAK.jsonl... -o FILE.png|FILE.svg [--kind ...]

Exit codes (read by `xferbench plot`): 0 written; 2 bad input, nothing
written; 3 matplotlib missing; 4 the image could not be written; 5 a bug in
this package. Never 1: `python3 -m` exits 1 when the package is missing, and
xferbench plot says so. SIGINT, SIGTERM and SIGHUP end it by that signal,
after a half-written image is removed, so xferbench plot can tell them from
a crash.
"""

import argparse
import os
import signal
import stat
import sys
import tempfile

from . import load as L

EXIT_BAD_INPUT, EXIT_NO_MATPLOTLIB, EXIT_WRITE, EXIT_INTERNAL = 2, 3, 4, 5


class WriteError(Exception):
    pass


def error(message, code):
    print(f"xferbench: error: {message}", file=sys.stderr)
    return code


def auto_kind(result):
    if result.schema in ("xferbench-sweep", "xferbench-pingpong"):
        return "curves"
    if result.schema == "xferbench-run":
        return "heatmap"
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
    if kind == "heatmap":
        return draw.heatmap(L.heatmap_panels(r), title or default_title(r))
    return draw.timeline(L.timeline_transfers(r), (title or default_title(r)) + ": per-transfer timeline")


def _render(fig, f, fmt):
    fig.savefig(f, format=fmt, metadata={"Date": None} if fmt == "svg" else None)


def save(fig, path):
    """Writes the image as xferbench writes every output file (src/report/output_file.hpp): a symbolic link is
    followed; a device node or FIFO is written in place; a regular file or a new path is rendered next to it,
    synced and renamed over it, so it is whole or untouched."""
    fmt = os.path.splitext(path)[1].lower().lstrip(".")
    target = os.path.realpath(path)  # follows links, also to a file that does not exist yet
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
        fd, tmp = tempfile.mkstemp(prefix=".xferbench-plot-", suffix="." + fmt, dir=os.path.dirname(target))
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
    p.add_argument("--kind", choices=["auto", "curves", "heatmap", "timeline", "sms", "soak", "fabric"], default="auto")
    p.add_argument("--title", default="")
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
        save(fig, args.output)
    except L.InputError as e:
        return error(str(e), EXIT_BAD_INPUT)
    except WriteError as e:
        return error(str(e), EXIT_WRITE)
    except Exception as e:  # keep exit status 1 free to mean "package missing"
        detail = (str(e).strip().splitlines() or [""])[0]  # one line, as every xferbench error
        print(f"xferbench: internal error in xferbench_plot: {type(e).__name__}: {detail}", file=sys.stderr)
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
