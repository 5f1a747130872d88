"""Typed reads of result-file fields: every value the plotter uses passes
through here, so a malformed file ends as one InputError naming the file and
the field, never as an exception from deep inside matplotlib."""

import json
import math


MAX_SHOWN = 480
# The largest magnitude a plotted number may have: xferbench writes nothing near it (GB/s, ns, bytes and counters
# stay below 1e20), and scaling a value near the largest double (a 1% margin, a ratio) would overflow to infinity.
MAX_MAGNITUDE = 1e100


def printable(text):
    """`text` safe to print in a line, as xferbench's printable() (src/base/printable.hpp): control characters
    escaped (\\n, \\t, \\x1b, \\u0085), a byte of a file name that is not UTF-8 (a surrogate escape) as \\xNN;
    longer than MAX_SHOWN characters: its start and end with the middle left out."""
    if len(text) > MAX_SHOWN:
        head, tail = MAX_SHOWN * 2 // 3, MAX_SHOWN // 3
        text = f"{text[:head]}[... {len(text) - head - tail} characters left out ...]{text[-tail:]}"
    out = []
    for ch in text:
        code = ord(ch)
        if ch in "\n\r\t":
            out.append({"\n": "\\n", "\r": "\\r", "\t": "\\t"}[ch])
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\x{code:02x}")
        elif 0x80 <= code < 0xA0:
            out.append(f"\\u{code:04x}")
        elif 0xDC80 <= code <= 0xDCFF:  # os.fsdecode's escape of a byte that is not UTF-8
            out.append(f"\\x{code - 0xDC00:02x}")
        elif 0xD800 <= code <= 0xDFFF:
            out.append(f"\\u{code:04x}")
        else:
            out.append(ch)
    return "".join(out)


class InputError(Exception):
    """A result file this plotter cannot draw; the message is one line."""


_MISSING = object()


def describe(value):
    """A short, one-line account of a JSON value for messages (never the whole of a large list or object)."""
    if value is _MISSING:
        return "missing"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        text = value if len(value) <= 40 else value[:40] + "..."
        return json.dumps(text)
    if isinstance(value, (int, float)):
        try:
            number = float(value)
        except OverflowError:
            return "an integer too large for a double"
        if math.isnan(number):
            return "NaN"
        if math.isinf(number):
            return "out of range (read as infinity)"
        return json.dumps(value)
    if isinstance(value, list):
        return "a list"
    return "an object"


class Place:
    """Where in which file a value was read, for messages: 'FILE': WHERE: field "F" is ..., not ..."""

    def __init__(self, path, where="", line=None):
        self.path = path
        self.where = where
        self.line = line  # JSON Lines files: messages name 'FILE':LINE

    def at(self, where):
        return Place(self.path, where, self.line)

    def prefix(self):
        """'FILE': or 'FILE':LINE:, then WHERE: when set."""
        head = f"'{self.path}':" + (f"{self.line}:" if self.line is not None else "")
        return head + " " + (f"{self.where}: " if self.where else "")

    def bad(self, field, value, want):
        return InputError(f"{self.prefix()}field \"{field}\" is {describe(value)}, not {want}")

    def _get(self, obj, key, optional, default):
        value = obj[key] if isinstance(obj, list) else obj.get(key, _MISSING)
        if optional and (value is _MISSING or value is None):
            return default, True
        return value, False

    def object(self, obj, key, optional=False):
        value, absent = self._get(obj, key, optional, None)
        if not absent and not isinstance(value, dict):
            raise self.bad(key, value, "an object")
        return value

    def list(self, obj, key, optional=False):
        """The list at `key`; [] when optional and missing or null."""
        value, absent = self._get(obj, key, optional, [])
        if not absent and not isinstance(value, list):
            raise self.bad(key, value, "a list")
        return value

    def objects(self, obj, key, optional=False):
        """The list at `key`, each element an object."""
        items = self.list(obj, key, optional)
        for i, item in enumerate(items):
            if not isinstance(item, dict):
                raise self.bad(f"{key}[{i}]", item, "an object")
        return items

    def _check_text(self, field, value):
        if not isinstance(value, str):
            raise self.bad(field, value, "a string")
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise self.bad(field, value, "text (it holds an unpaired surrogate)") from None
        return value

    def text(self, obj, key, optional=False, default=""):
        value, absent = self._get(obj, key, optional, default)
        return value if absent else self._check_text(key, value)

    def texts(self, obj, key):
        """The list of strings at `key`."""
        items = self.list(obj, key)
        for i, item in enumerate(items):
            self._check_text(f"{key}[{i}]", item)
        return items

    def number(self, obj, key, optional=False, minimum=None, positive=False, integer=False, name=None):
        """A finite number (an int when `integer`), at least `minimum` or above 0 when `positive`; None when
        optional and missing or null. `name` is the field's name in messages (default: `key`)."""
        value, absent = self._get(obj, key, optional, None)
        if absent:
            return None
        key = name or key
        want = ("an integer" if integer else "a number") + (
            " above 0" if positive else f" of at least {minimum}" if minimum is not None else "")
        if isinstance(value, bool) or not isinstance(value, (int, float)) or (integer and not isinstance(value, int)):
            raise self.bad(key, value, want)
        try:
            finite = math.isfinite(float(value))
        except OverflowError:
            finite = False
        if not finite:
            raise self.bad(key, value, "a finite " + want[want.index(" ") + 1:])
        if abs(value) > MAX_MAGNITUDE:  # finite, but axis limits and medians derived from it would overflow
            raise self.bad(key, value, f"{want} within +-{MAX_MAGNITUDE:g} (this plotter's range)")
        if (positive and value <= 0) or (minimum is not None and value < minimum):
            raise self.bad(key, value, want)
        return value
