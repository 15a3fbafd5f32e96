"""How a reported value is compared with an expected one: each rule is what a test's own
comparison does in its language (JavaScript's `===`, `==`, `assert.deepEqual` and
`JSON.stringify(a) === JSON.stringify(b)`; a typed language's `==`; a tolerance)."""

from __future__ import annotations

import math
import re
import struct
from dataclasses import dataclass

from .gofmt import go_v
from .jsnumber import JsTypeError, js_json_stringify
from .values import UNDEFINED, BigInt, Char, Float32, Map, Opaque, Opt, Record, SetOf, Tuple


@dataclass(frozen=True)
class Compare:
    """A comparison rule and its tolerance, when the original test used one."""

    rule: str                   # one of RULES
    tol: float | None = None    # approx: |actual - expected| < tol (<= when inclusive)
    inclusive: bool = False

    def describe(self) -> str:
        return self.rule if self.tol is None else f"{self.rule}({self.tol:g})"


def _is_num(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def typed_eq(a, e) -> bool:
    """A typed language's `==` on values of the declared types: numbers numerically, NaN unequal,
    sequences and structures element by element, maps regardless of entry order."""
    if _is_num(a) and _is_num(e):
        if isinstance(a, Float32) and not isinstance(e, Float32):
            return a == _f32(e)
        return a == e
    if isinstance(a, bool) or isinstance(e, bool):
        return isinstance(a, bool) and isinstance(e, bool) and a == e
    if isinstance(a, Char) and isinstance(e, str) and len(e) == 1:
        return a.ch == e
    if isinstance(a, (list, Tuple)) and type(a) is type(e):
        xs, ys = (a, e) if isinstance(a, list) else (a.items, e.items)
        return len(xs) == len(ys) and all(typed_eq(x, y) for x, y in zip(xs, ys))
    if isinstance(a, (Map, Record)) and type(a) is type(e):
        return _entries_eq(_pairs(a), _pairs(e), typed_eq)
    if isinstance(a, Opt) and isinstance(e, Opt):
        return a.present == e.present and (not a.present or typed_eq(a.value, e.value))
    if isinstance(a, SetOf) and isinstance(e, SetOf):
        return _entries_eq(tuple((x, True) for x in a.items), tuple((y, True) for y in e.items), typed_eq)
    if isinstance(a, Opaque) or isinstance(e, Opaque):
        return False
    return type(a) is type(e) and a == e


def _f32(x) -> float:
    try:
        return struct.unpack("f", struct.pack("f", float(x)))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


def _pairs(x) -> tuple:
    return x.entries if isinstance(x, Map) else x.fields


def _entries_eq(xs: tuple, ys: tuple, eq) -> bool:
    if len(xs) != len(ys):
        return False
    unmatched = list(ys)
    for k, v in xs:
        hit = next((i for i, (k2, v2) in enumerate(unmatched) if eq(k, k2) and eq(v, v2)), None)
        if hit is None:
            return False
        unmatched.pop(hit)
    return True


def approx_eq(a, e, tol: float, inclusive: bool) -> bool:
    """Numbers within `tol` (element by element for sequences), as the tests' `abs(a - b) < tol`."""
    if _is_num(a) and _is_num(e):
        gap = abs(a - e)
        return gap <= tol if inclusive else gap < tol
    if isinstance(a, list) and isinstance(e, list):
        return len(a) == len(e) and all(approx_eq(x, y, tol, inclusive) for x, y in zip(a, e))
    if isinstance(a, Tuple) and isinstance(e, Tuple):
        return approx_eq(list(a.items), list(e.items), tol, inclusive)
    return typed_eq(a, e)


def js_truthy(x) -> bool:
    if x is None or x is UNDEFINED or x is False:
        return False
    if isinstance(x, int):
        return x != 0
    if _is_num(x):
        return x != 0 and not math.isnan(x)
    if isinstance(x, str):
        return x != ""
    return True


def js_strict_eq(a, e) -> bool:
    """`===`: primitives by type and value (NaN unequal, 0 === -0); an expected array or object
    literal is a fresh object, which `===` never matches; the test meant its contents."""
    if _is_num(a) and _is_num(e):
        return isinstance(a, BigInt) == isinstance(e, BigInt) and a == e     # 10n === 10 is false
    if isinstance(a, (list, Record)) or isinstance(e, (list, Record)):
        return js_deep_eq(a, e, strict=True)
    return type(a) is type(e) and a == e


def _both_nan(a, e) -> bool:
    return isinstance(a, float) and isinstance(e, float) and math.isnan(a) and math.isnan(e)


def js_same_value(a, e) -> bool:
    """Object.is (assert.strictEqual, and deepStrictEqual on primitives): `===`, except that NaN is
    NaN and 0 is not -0."""
    numbers = _is_num(a) and _is_num(e) and not isinstance(a, BigInt) and not isinstance(e, BigInt)
    if numbers and (isinstance(a, float) or isinstance(e, float)):
        a, e = float(a), float(e)
        if math.isnan(a) or math.isnan(e):
            return math.isnan(a) and math.isnan(e)
        return a == e and math.copysign(1, a) == math.copysign(1, e)
    return js_strict_eq(a, e)


def js_loose_eq(a, e) -> bool:
    """`==` between primitives (the abstract equality comparison)."""
    if (a is None or a is UNDEFINED) and (e is None or e is UNDEFINED):
        return True
    if a is None or a is UNDEFINED or e is None or e is UNDEFINED:
        return False
    if isinstance(a, bool):
        return js_loose_eq(int(a), e)
    if isinstance(e, bool):
        return js_loose_eq(a, int(e))
    if _is_num(a) and _is_num(e):
        return a == e                   # 10n == 10 compares the mathematical values
    if isinstance(a, BigInt) and isinstance(e, str):
        return a == _js_to_bigint(e)
    if isinstance(a, str) and isinstance(e, BigInt):
        return _js_to_bigint(a) == e
    if _is_num(a) and isinstance(e, str):
        return a == _js_to_number(e)
    if isinstance(a, str) and _is_num(e):
        return _js_to_number(a) == e
    return js_strict_eq(a, e)


def _js_to_bigint(s: str) -> int | None:
    """JavaScript's StringToBigInt: None (no value, so `==` is false) outside its grammar."""
    s = s.strip(_JS_SPACE)
    if s == "":
        return 0
    if re.fullmatch(r"[+-]?[0-9]+", s, re.ASCII):
        return int(s)
    if m := _JS_RADIX.fullmatch(s):
        return int(s[2:], 16 if m.group(1) else 8 if m.group(2) else 2)
    return None


# ECMAScript StringToNumber (ECMA-262, 7.1.4.1.1): StrWhiteSpaceChar is WhiteSpace (TAB, VT, FF,
# ZWNBSP, any Zs) or LineTerminator (LF, CR, LS, PS); nothing else Python's str.strip() or float()
# would take ("inf", "nan", "1_0", non-ASCII digits, a signed "-0x1") is a number there.
_JS_SPACE = "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a" \
            "\u2028\u2029\u202f\u205f\u3000\ufeff"
_JS_DECIMAL = re.compile(r"[+-]?(?:Infinity|(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)", re.ASCII)
_JS_RADIX = re.compile(r"0(?:([xX])[0-9a-fA-F]+|([oO])[0-7]+|([bB])[01]+)", re.ASCII)


def _js_to_number(s: str) -> float:
    """JavaScript's ToNumber on a string: NaN for anything outside the StringNumericLiteral grammar."""
    s = s.strip(_JS_SPACE)
    if s == "":
        return 0.0
    if _JS_DECIMAL.fullmatch(s):
        return float(s.replace("Infinity", "inf"))     # correctly rounded, as JavaScript's is
    if m := _JS_RADIX.fullmatch(s):
        value = int(s[2:], 16 if m.group(1) else 8 if m.group(2) else 2)
        try:
            return float(value)
        except OverflowError:
            return math.inf
    return math.nan


def js_deep_eq(a, e, *, strict: bool) -> bool:
    """Node's assert.deepEqual (strict=False: primitives by `==`, NaN equal to NaN since Node 18)
    and assert.deepStrictEqual (strict=True: by Object.is, but 0 and -0 apart only there)."""
    if isinstance(a, list) and isinstance(e, list):
        return len(a) == len(e) and all(js_deep_eq(x, y, strict=strict) for x, y in zip(a, e))
    if isinstance(a, Record) and isinstance(e, Record):
        return _entries_eq(a.fields, e.fields, lambda x, y: x == y if isinstance(x, str)
                           else js_deep_eq(x, y, strict=strict))
    if isinstance(a, (list, Record, Opaque)) or isinstance(e, (list, Record, Opaque)):
        return False
    if _both_nan(a, e):
        return True
    return js_same_value(a, e) if strict else js_loose_eq(a, e)


def _holds_bigint(x) -> bool:
    if isinstance(x, BigInt):
        return True
    if isinstance(x, (list, Tuple)):
        return any(_holds_bigint(v) for v in (x if isinstance(x, list) else x.items))
    return isinstance(x, Record) and any(_holds_bigint(v) for _, v in x.fields)


def adapt_braces(expected, actual):
    """A brace list takes the type it initialises, as in C++ (`{1, 2}` is a vector, a pair or a
    tuple; `{{'a', 1}}` a map), and a bool compares as 0 or 1 with a number."""
    if isinstance(expected, list):
        if isinstance(actual, Map) and all(isinstance(e, list) and len(e) == 2 for e in expected):
            return Map(tuple((adapt_braces(k, None), adapt_braces(v, None)) for k, v in expected))
        if isinstance(actual, Tuple):
            return Tuple(tuple(adapt_braces(e, a) for e, a in zip(expected, actual.items)))
        if isinstance(actual, list):
            return [adapt_braces(e, a) for e, a in zip(expected, actual)] + expected[len(actual):]
    if isinstance(expected, Tuple) and isinstance(actual, Tuple):
        return Tuple(tuple(adapt_braces(e, a) for e, a in zip(expected.items, actual.items)))
    if isinstance(expected, Opt) and isinstance(actual, Opt) and expected.present and actual.present:
        return Opt(True, adapt_braces(expected.value, actual.value))
    if isinstance(actual, Opt) and actual.present and not isinstance(expected, Opt) and expected is not None:
        return Opt(True, adapt_braces(expected, actual.value))     # std::optional<T> == T
    return expected


def cpp_eq(actual, expected) -> bool:
    expected = adapt_braces(expected, actual)
    if isinstance(actual, bool) and _is_num(expected):
        return int(actual) == expected
    if isinstance(actual, Char) and _is_num(expected):
        return ord(actual.ch) == expected
    return typed_eq(actual, expected)


def java_equals(a, e) -> bool:
    """Java's `equals` on boxed values: an Integer never equals a Double, Double.equals holds for
    NaN and tells 0.0 from -0.0; collections element by element, sets and maps in any order."""
    if _is_num(a) and _is_num(e):
        if isinstance(a, float) != isinstance(e, float):
            return False
        if isinstance(a, float):
            return (math.isnan(a) and math.isnan(e)) or (a == e and math.copysign(1, a) == math.copysign(1, e))
        return a == e
    if isinstance(a, list) and isinstance(e, list):
        return len(a) == len(e) and all(java_equals(x, y) for x, y in zip(a, e))
    if isinstance(a, Map) and isinstance(e, Map):
        return _entries_eq(a.entries, e.entries, java_equals)
    if isinstance(a, SetOf) and isinstance(e, SetOf):
        return _entries_eq(tuple((x, True) for x in a.items), tuple((y, True) for y in e.items), java_equals)
    if isinstance(a, SetOf) or isinstance(e, SetOf):
        return False
    if isinstance(a, Opt) and isinstance(e, Opt):
        return a.present == e.present and (not a.present or java_equals(a.value, e.value))
    return typed_eq(a, e)


def _pairs_or_items(x) -> tuple:
    return x.entries if isinstance(x, Map) else x.items


def java_primitive_eq(a, e) -> bool:
    """Java's `==` where the test compares a returned primitive (or its unboxed value) with a literal."""
    if isinstance(a, Char) and _is_num(e):
        return ord(a.ch) == e
    return typed_eq(a, e)


def matches(actual, expected, how: Compare) -> bool:
    """Whether the reported value passes the site's comparison."""
    rule = how.rule
    if rule == "eq":
        return typed_eq(actual, expected)
    if rule == "ne":
        return not typed_eq(actual, expected)
    if rule == "cpp_eq":
        return cpp_eq(actual, expected)
    if rule == "go_sprint_v":
        return isinstance(actual, str) and actual == go_v(expected)
    if rule == "java_equals":
        return java_equals(actual, expected)
    if rule in ("java_is_empty", "java_not_empty"):
        empty = actual == Opt(False) or actual in ([], "") or (isinstance(actual, (Map, SetOf)) and not _pairs_or_items(actual))
        return empty == (rule == "java_is_empty") and not isinstance(actual, Opaque)
    if rule == "java_eq":
        return java_primitive_eq(actual, expected)
    if rule == "approx":
        if _holds_bigint(actual):       # JavaScript's Number arithmetic on a bigint throws
            return False
        return approx_eq(actual, adapt_braces(expected, actual), how.tol, how.inclusive)
    if rule == "truthy":
        return js_truthy(actual) == bool(expected)
    if rule == "js_strict":
        return js_strict_eq(actual, expected)
    if rule == "js_loose":
        return js_loose_eq(actual, expected)
    if rule == "js_same":
        return js_same_value(actual, expected)
    if rule == "js_assert_equal":
        return _both_nan(actual, expected) or js_loose_eq(actual, expected)
    if rule == "js_not_strict":
        return not js_strict_eq(actual, expected)
    if rule == "js_deep":
        return js_deep_eq(actual, expected, strict=False)
    if rule == "js_deep_strict":
        return js_deep_eq(actual, expected, strict=True)
    if rule == "js_json":
        try:
            return js_json_stringify(actual) == js_json_stringify(expected)
        except JsTypeError:             # the original test's JSON.stringify throws: the test fails
            return False
    raise ValueError(f"unknown comparison rule {rule!r}")


RULES = ("eq", "ne", "cpp_eq", "go_sprint_v", "java_equals", "java_eq", "java_is_empty", "java_not_empty", "approx", "truthy", "js_strict", "js_loose", "js_not_strict", "js_deep", "js_deep_strict", "js_same",
         "js_assert_equal",
         "js_json")
