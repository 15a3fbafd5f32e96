"""Go's `fmt.Sprintf("%v", x)` in Python, for MultiPL-E's Go tests, which compare the `%v` text of
the answer with that of the expected value: the grader formats the expected value itself."""

from __future__ import annotations

import math

from .values import Char, Map, Opaque, Tuple


def go_float(x: float) -> str:
    """%v of a float64: strconv 'g' with the shortest digits, exponent form below 1e-4 or from 1e6."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "+Inf" if x > 0 else "-Inf"
    if x == 0:
        return "-0" if math.copysign(1, x) < 0 else "0"
    digits, exp = _shortest(abs(x))
    sign = "-" if x < 0 else ""
    if exp < -4 or exp >= 6:
        mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{sign}{mantissa}e{'-' if exp < 0 else '+'}{abs(exp):02d}"
    if exp < 0:
        return f"{sign}0.{'0' * (-exp - 1)}{digits}"
    whole = digits[:exp + 1].ljust(exp + 1, "0")
    frac = digits[exp + 1:]
    return sign + whole + ("." + frac if frac else "")


def _shortest(x: float) -> tuple[str, int]:
    mantissa, _, exponent = f"{x!r}".partition("e")
    whole, _, frac = mantissa.partition(".")
    raw = (whole + frac)
    stripped = raw.lstrip("0")
    exp = len(whole) - 1 - (len(raw) - len(stripped)) + (int(exponent) if exponent else 0)
    return stripped.rstrip("0") or "0", exp


def go_v(value) -> str:
    """The `%v` text of a value in the model, as Go prints the value of the type it came from."""
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return go_float(value)
    if isinstance(value, str):
        return value
    if isinstance(value, Char):
        return str(ord(value.ch))
    if isinstance(value, (list, Tuple)):
        items = value if isinstance(value, list) else value.items
        return "[" + " ".join(go_v(v) for v in items) + "]"
    if isinstance(value, Map):
        entries = sorted(value.entries, key=lambda kv: _key_order(kv[0]))
        return "map[" + " ".join(f"{go_v(k)}:{go_v(v)}" for k, v in entries) + "]"
    if isinstance(value, Opaque):
        return f"<{value.what}>"
    return repr(value)


def _key_order(key):
    """fmt prints a map's entries sorted by key: numbers by value, strings by bytes."""
    if isinstance(key, (int, float)) and not isinstance(key, bool):
        return (0, key, "")
    return (1, 0, str(key))
