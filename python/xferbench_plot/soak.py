"""Reading a soak file (xferbench soak): JSON Lines, schema in
src/soak/soak_record.hpp. A "header" line first, then "sample", "resume" and
"end" lines. A last line cut short by a kill (no newline at its end, not
JSON) is ignored and counted; any other bad line is one InputError naming
'FILE':LINE. Pure Python without matplotlib, like load.py."""

from .fields import InputError, Place, describe

SCHEMA = "xferbench.soak"
VERSIONS = {1}
# nvml.hpp clock_reason bits that mean the clocks were held down; idle,
# application clocks, sync boost and display clocks are not slowdowns.
SLOWDOWN_BITS = {0x4: "sw_power_cap", 0x8: "hw_slowdown", 0x20: "sw_thermal", 0x40: "hw_thermal",
                 0x80: "hw_power_brake"}
SLOWDOWN_MASK = sum(SLOWDOWN_BITS)
MAX_CELLS = 300
UNITS = ("gbps", "ns")
_COUNT_FIELDS = ("clock_reasons", "ecc_corrected", "ecc_uncorrected", "rows_remapped_correctable",
                 "rows_remapped_uncorrectable", "pcie_replays")


def header_of(text, parse):
    """The first line as an object when it is a soak header (its "schema" is xferbench.soak), else None."""
    first = text.split("\n", 1)[0]
    if f'"{SCHEMA}"' not in first:  # a run JSON on one line is not parsed twice
        return None
    try:
        doc = parse(first)
    except (ValueError, RecursionError):
        return None
    return doc if isinstance(doc, dict) and doc.get("schema") == SCHEMA else None


def slowdown_names(mask):
    return [name for bit, name in SLOWDOWN_BITS.items() if mask & bit]


def _flag(place, obj, key):
    value = obj.get(key)
    if value is not None and not isinstance(value, bool):
        raise place.bad(key, value, "true or false")
    return value


def _telemetry(place, sample):
    out = []
    for i, t in enumerate(place.objects(sample, "telemetry", optional=True)):
        at = place.at(f"telemetry[{i}]")
        reading = {"gpu": at.number(t, "gpu", integer=True, minimum=0)}
        for key in ("temperature_c", "power_w"):
            reading[key] = at.number(t, key, optional=True)
        for key in ("sm_clock_mhz", "mem_clock_mhz"):
            reading[key] = at.number(t, key, optional=True, minimum=0)
        for key in _COUNT_FIELDS:
            reading[key] = at.number(t, key, optional=True, integer=True, minimum=0)
        xids = at.list(t, "xids", optional=True)
        reading["xids"] = [at.number(xids, k, integer=True, minimum=0, name=f"xids[{k}]") for k in range(len(xids))]
        out.append(reading)
    return out


def _sample(place, obj, units):
    cell = place.text(obj, "cell")
    if not cell:
        raise place.bad("cell", cell, "a cell name")
    unit = place.text(obj, "unit")
    if unit not in UNITS:
        raise place.bad("unit", unit, '"gbps" or "ns"')
    if units.setdefault(cell, unit) != unit:
        raise InputError(f"{place.prefix()}cell '{cell}' has unit \"{unit}\" here, \"{units[cell]}\" before")
    error = place.text(obj, "error", optional=True)
    s = {"t_s": place.number(obj, "t_s", minimum=0), "cell": cell, "unit": unit, "error": error,
         "round": place.number(obj, "round", optional=True, integer=True, minimum=0),
         # A failed cell's value is not meaningful (it may be 0): it is read only when there is no error.
         "value": None if error else place.number(obj, "value", minimum=0),
         "verified": _flag(place, obj, "verified") is not False, "telemetry": _telemetry(place, obj)}
    for key in ("peak_gbps", "idle_ns", "load_gbps", "load_pct"):
        s[key] = place.number(obj, key, optional=True, minimum=0)
    return s


def _header(path, doc):
    place = Place(path, line=1)
    version = doc.get("schema_version")
    if isinstance(version, bool) or not isinstance(version, int) or version not in VERSIONS:
        raise InputError(f"'{path}' has {SCHEMA} schema_version {describe(version)}: "
                         f"this plotter reads version {', '.join(map(str, sorted(VERSIONS)))}")
    if doc.get("type") != "header":
        raise place.bad("type", doc.get("type", None), '"header" (the first line)')
    return {"host": place.text(doc, "host", optional=True), "gpus": place.texts(doc, "gpus") if "gpus" in doc else [],
            "start_time_utc": place.text(doc, "start_time_utc", optional=True),
            "duration_s": place.number(doc, "duration_s", optional=True, minimum=0)}


def _line_error(path, number, e):
    if isinstance(e, RecursionError):
        return InputError(f"'{path}':{number}: not JSON this plotter reads: nested too deeply")
    return InputError(f"'{path}':{number}: not JSON: {getattr(e, 'msg', str(e))}"
                      + (f" (column {e.colno})" if hasattr(e, "colno") else ""))


def parse(path, text, parse_json):
    """The soak file's lines: {"header", "samples", "resumes" (t_s), "end" (or None), "torn" (0 or 1)}."""
    lines = text.split("\n")
    complete = text.endswith("\n")
    if complete:
        lines.pop()
    out = {"header": None, "samples": [], "resumes": [], "end": None, "torn": 0}
    units = {}
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            obj = parse_json(line)
        except (ValueError, RecursionError) as e:
            if number == len(lines) and not complete and number > 1:
                out["torn"] = 1  # the write a kill interrupted: the soak loses this line only
                break
            raise _line_error(path, number, e) from None
        place = Place(path, line=number)
        if not isinstance(obj, dict):
            raise InputError(f"{place.prefix()}the line is {describe(obj)}, not a JSON object")
        if number == 1:
            out["header"] = _header(path, obj)
            continue
        kind = place.text(obj, "type")
        if kind == "sample":
            out["samples"].append(_sample(place, obj, units))
            if len(units) > MAX_CELLS:
                raise InputError(f"{place.prefix()}more than {MAX_CELLS} cells: a soak figure draws at most {MAX_CELLS}")
        elif kind == "resume":
            out["resumes"].append(place.number(obj, "t_s", minimum=0))
        elif kind == "end":
            out["end"] = {"t_s": place.number(obj, "t_s", optional=True, minimum=0),
                          "status": place.text(obj, "status"), "reason": place.text(obj, "reason", optional=True)}
        else:
            raise place.bad("type", kind, '"sample", "resume" or "end" (the header is the first line only)')
    if not out["samples"]:
        raise InputError(f"'{path}' holds no samples to draw")
    return out
