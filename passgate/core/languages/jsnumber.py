"""JavaScript's Number-to-string and JSON.stringify, in Python, so the grader can apply a test's
`JSON.stringify(a) === JSON.stringify(b)` to values that never shared a process."""

from __future__ import annotations

import json
import math

from .values import UNDEFINED, BigInt, Char, Opaque, Record, Tuple


def js_number_str(x: float) -> str:
    """Number.prototype.toString(): shortest round-trip digits, exponent past 1e21 or below 1e-6."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0:
        return "0"
    sign = "-" if x < 0 else ""
    digits, exp = _shortest_digits(abs(x))
    n = exp + 1                      # the decimal point sits after n digits
    k = len(digits)
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21:
        return sign + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * (-n) + digits
    mantissa = digits[0] + ("." + digits[1:] if k > 1 else "")
    return f"{sign}{mantissa}e{'+' if n - 1 >= 0 else '-'}{abs(n - 1)}"


def _shortest_digits(x: float) -> tuple[str, int]:
    """The shortest digits that round-trip and the decimal exponent of the first one."""
    mantissa, _, exponent = f"{float(x)!r}".partition("e")
    whole, _, frac = mantissa.partition(".")
    digits = (whole + frac).lstrip("0")
    lead_zeros = len(whole + frac) - len((whole + frac).lstrip("0"))
    exp = len(whole) - 1 - lead_zeros + (int(exponent) if exponent else 0)
    return digits.rstrip("0") or "0", exp


class JsTypeError(Exception):
    """Where JavaScript throws a TypeError: JSON.stringify of a bigint."""


def js_json_stringify(value, *, in_array: bool = False) -> str | None:
    """JSON.stringify of a value in the model (None where JavaScript returns undefined); raises
    JsTypeError where JavaScript throws."""
    if isinstance(value, BigInt):
        raise JsTypeError("Do not know how to serialize a BigInt")
    if value is UNDEFINED or isinstance(value, Opaque):
        return "null" if in_array else None
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        x = float(value)
        return "null" if math.isnan(x) or math.isinf(x) else js_number_str(x)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, Char):
        return json.dumps(value.ch, ensure_ascii=False)
    if isinstance(value, (list, Tuple)):
        items = value if isinstance(value, list) else value.items
        return "[" + ",".join(js_json_stringify(v, in_array=True) for v in items) + "]"
    if isinstance(value, Record):
        parts = [f"{json.dumps(k, ensure_ascii=False)}:{s}" for k, v in value.fields
                 if (s := js_json_stringify(v)) is not None]
        return "{" + ",".join(parts) + "}"
    return None
