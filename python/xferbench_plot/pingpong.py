"""A ping-pong result (xferbench-pingpong) as its own figure: one-way latency and bandwidth against the message
size, both on log axes (a sweep from 1 byte to 256 MiB spans eight decades of bandwidth), one line per rank pair.
Reading is pure Python; drawing imports matplotlib."""

from .fields import InputError, Place


def pingpong_series(result):
    """Per pair: label, bytes, one-way time (s, the median when recorded, else the mean) and GB/s."""
    if result.schema != "xferbench-pingpong":
        raise InputError(f"'{result.path}' is an {result.schema} result: this figure needs a pingpong result")
    place, out = Place(result.path), []
    mode = place.text(result.doc, "mode", optional=True, default="pingpong")
    for i, p in enumerate(place.objects(result.doc, "pairs")):
        ranks = [place.at(f"pairs[{i}]").number(p, k, integer=True, minimum=0) for k in ("rank_a", "rank_b")]
        where = f"pair r{ranks[0]}-r{ranks[1]}"
        at = place.at(where)
        transport = at.text(p, "transport", optional=True) or "?"
        buffers = [at.text(p, k, optional=True) for k in ("buffer_a", "buffer_b")]
        sizes, seconds, gbps = [], [], []
        for j, s in enumerate(at.objects(p, "sizes", optional=True)):
            q = place.at(f"{where} size {j}")
            t = q.object(s, "one_way_time_s")
            one_way = q.number(t, "median", optional=True, minimum=0, name="one_way_time_s.median")
            if one_way is None:
                one_way = q.number(t, "mean", minimum=0, name="one_way_time_s.mean")
            sizes.append(q.number(s, "bytes", positive=True))
            seconds.append(one_way)
            gbps.append(q.number(s, "bandwidth_gbps", minimum=0))
        if sizes:
            out.append({"label": f"r{ranks[0]}-r{ranks[1]} {buffers[0]}->{buffers[1]} {transport} ({mode})",
                        "bytes": sizes, "seconds": seconds, "gbps": gbps})
    if not out:
        raise InputError(f"'{result.path}' holds no measured sizes to draw")
    return out


def figure(series, title):
    from matplotlib.figure import Figure
    from matplotlib.ticker import FuncFormatter, LogLocator

    from . import draw

    fig = Figure(figsize=(12, 5), dpi=draw.DPI, layout="constrained")
    lat_ax, bw_ax = fig.subplots(1, 2)
    for s in series:
        # Zero times or bandwidths (a clock too coarse) cannot sit on a log axis: left out of the line.
        lat = [(b, t * 1e6) for b, t in zip(s["bytes"], s["seconds"]) if t > 0]
        bw = [(b, g) for b, g in zip(s["bytes"], s["gbps"]) if g > 0]
        (line,) = lat_ax.plot([p[0] for p in lat], [p[1] for p in lat], marker="o", markersize=3.5, linewidth=1.4,
                              label=s["label"])
        bw_ax.plot([p[0] for p in bw], [p[1] for p in bw], marker="o", markersize=3.5, linewidth=1.4,
                   label=s["label"], color=line.get_color())
    for ax, ylabel, what, corner in ((lat_ax, "one-way time (us)", "latency", "upper left"),
                                     (bw_ax, "bandwidth (GB/s = 1e9 B/s)", "bandwidth", "lower right")):
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.xaxis.set_major_locator(LogLocator(base=16, numticks=32))
        ax.xaxis.set_major_formatter(FuncFormatter(draw.size_label))
        # Plain numbers: the figure draws text without TeX math (__main__), so 10^k labels would show as markup.
        ax.yaxis.set_major_formatter(FuncFormatter(lambda y, _pos: f"{y:g}"))
        ax.yaxis.set_minor_formatter(FuncFormatter(lambda _y, _pos: ""))
        ax.set_xlabel("message size (bytes, K/M/G = 2^10/2^20/2^30)")
        ax.set_ylabel(ylabel)
        ax.grid(True, which="major", alpha=0.3)
        ax.set_title(what, fontsize=10)
        ax.legend(fontsize=8, loc=corner)
    fig.suptitle(title)
    return fig
