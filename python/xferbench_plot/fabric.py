"""Reading a fabric result (xferbench fabric, docs/fabric.md) for its figure: a node x node bandwidth matrix per
rail and the culprits to mark. Pure Python without matplotlib."""

import math

from .fields import InputError, Place

SCHEMA = "xferbench-fabric"
MAX_NODES = 256  # one labelled row and column per node: beyond this the matrix is unreadable


def fabric_matrices(result):
    """{"names", "median_gbps", "min_ratio", "rails": [{"rail", "gbps": N x N (row: from, column: to; NaN: not
    measured)}], "culprits": {"nodes", "node_rails", "rails", "pairs"}}."""
    if result.schema != SCHEMA:
        raise InputError(f"'{result.path}' is an {result.schema} result: the fabric figure needs a fabric result")
    d, place = result.doc, Place(result.path)
    names = [place.at(f"nodes[{i}]").text(n, "name") for i, n in enumerate(place.objects(d, "nodes"))]
    n = len(names)
    if n < 2:
        raise InputError(f"'{result.path}' has {n} node(s): a fabric figure needs 2 or more")
    if n > MAX_NODES:
        raise InputError(f"'{result.path}' has {n} nodes: the fabric figure draws at most {MAX_NODES} "
                         "(every pair is in the file; xferbench compare and check read it)")
    findings = place.object(d, "findings")
    at_f = place.at("findings")
    out = {"names": names,
           "median_gbps": at_f.number(findings, "median_gbps", minimum=0),
           "min_ratio": at_f.number(findings, "min_ratio", positive=True),
           "rails": [], "culprits": _culprits(at_f, findings, n)}
    rails = {}
    for i, p in enumerate(place.objects(d, "pairs")):
        at = place.at(f"pairs[{i}]")
        a, b = (at.number(p, k, minimum=0, integer=True) for k in ("node_a", "node_b"))
        rail = at.number(p, "rail", minimum=0, integer=True)
        if a >= n or b >= n or a == b:
            raise at.bad("node_b", b, f"another of the {n} nodes than node_a {a}")
        m = rails.setdefault(rail, [[math.nan] * n for _ in range(n)])
        for leg, (src, dst) in (("bandwidth_ab", (a, b)), ("bandwidth_ba", (b, a))):
            obj = at.object(p, leg, optional=True)
            if obj:
                m[src][dst] = at.at(f"pairs[{i}].{leg}").number(obj, "gbps_p50", minimum=0)
    if not rails:
        raise InputError(f"'{result.path}' holds no measured pair: nothing to draw")
    out["rails"] = [{"rail": r, "gbps": rails[r]} for r in sorted(rails)]
    return out


def _culprits(place, findings, n):
    c = {"nodes": set(), "node_rails": set(), "rails": set(), "pairs": set()}
    for i, x in enumerate(place.objects(findings, "culprits")):
        at = place.at(f"culprits[{i}]")
        kind = at.text(x, "kind")
        a, b, rail = (at.number(x, k, minimum=-1, integer=True) for k in ("node_a", "node_b", "rail"))
        if a >= n or b >= n:
            raise at.bad("node_a", a, f"one of the {n} nodes")
        if kind == "node":
            c["nodes"].add(a)
        elif kind == "node_rail":
            c["node_rails"].add((a, rail))
        elif kind == "rail":
            c["rails"].add(rail)
        elif kind in ("pair", "pair_rail"):
            c["pairs"].add((min(a, b), max(a, b), rail))  # rail -1: every rail
        else:
            raise at.bad("kind", kind, "node, node_rail, rail, pair or pair_rail")
    return c
