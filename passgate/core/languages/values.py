"""The values a harness reports and an expected literal parses to, in one model.

A harness writes one JSON line per assertion site. Plain JSON carries null, booleans, integers,
strings and lists; an object with one key carries the rest, so a float keeps NaN, infinities and
-0, a char stays apart from a string, and a tuple, a map, an optional or JavaScript's undefined
keep their kind: the grader compares them the way the language's own `==` would.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Char:
    """A character value (C++ char, Java char, Go rune, Rust char)."""

    ch: str


@dataclass(frozen=True)
class Tuple:
    """A tuple or pair."""

    items: tuple


@dataclass(frozen=True)
class Map:
    """A map, its entries in the order the language iterates them."""

    entries: tuple          # ((key, value), ...)


@dataclass(frozen=True)
class SetOf:
    """A set: equal to another with the same members, in any order."""

    items: tuple


@dataclass(frozen=True)
class Record:
    """A JavaScript object or a struct: named fields."""

    fields: tuple           # ((name, value), ...)


@dataclass(frozen=True)
class Opt:
    """An optional value: Some(x) / Optional.of(x) / std::optional holding x, or none."""

    present: bool
    value: object = None


@dataclass(frozen=True)
class Opaque:
    """A value the serialiser could not express as data (a function, a cycle): equal to nothing."""

    what: str


class Float32(float):
    """A Rust f32: compared with a literal at f32 precision, as the literal takes its type."""


class BigInt(int):
    """A JavaScript bigint: a number of its own type, never `===` a Number, and no operand of
    Number arithmetic or of JSON.stringify (both throw a TypeError in JavaScript)."""

    def __repr__(self) -> str:
        return f"{int(self)}n"


class _Undefined:
    __slots__ = ()

    def __repr__(self) -> str:
        return "undefined"


UNDEFINED = _Undefined()
_SPECIAL_FLOATS = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf, "-0": -0.0}


BIGINT_DIGITS = 4000      # longer bigints are compared as what they are: equal to no test's value


class WireError(ValueError):
    """A report line that is not a value in this model."""


def decode(node):
    """A reported JSON value → the model."""
    if node is None or isinstance(node, (bool, int, str)):
        return node
    if isinstance(node, float):
        return node
    if isinstance(node, list):
        return [decode(x) for x in node]
    if not isinstance(node, dict) or len(node) != 1:
        raise WireError(f"not a reported value: {str(node)[:80]}")
    (tag, body), = node.items()
    return _decode_tagged(tag, body)


def _decode_tagged(tag: str, body):
    if tag == "f":
        if isinstance(body, str):
            if body not in _SPECIAL_FLOATS:
                raise WireError(f"not a float: {body[:40]}")
            return _SPECIAL_FLOATS[body]
        return float(body)
    if tag == "f4":
        return Float32(_decode_tagged("f", body))
    if tag == "c":
        return Char(str(body))
    if tag == "t":
        return Tuple(tuple(decode(x) for x in body))
    if tag == "m":
        return Map(tuple((decode(k), decode(v)) for k, v in body))
    if tag == "set":
        return SetOf(tuple(decode(x) for x in body))
    if tag == "o":
        return Record(tuple((str(k), decode(v)) for k, v in body))
    if tag == "opt":
        return Opt(True, decode(body[0])) if body else Opt(False)
    if tag == "u":
        return UNDEFINED
    if tag == "x":
        return Opaque(str(body)[:80])
    if tag == "big":
        if not isinstance(body, str) or not re.fullmatch(r"-?[0-9]+", body):
            raise WireError(f"not a bigint: {str(body)[:40]}")
        if len(body) > BIGINT_DIGITS:     # past Python's int-from-text limit and past any expected value
            return Opaque(f"a bigint of {len(body.lstrip('-'))} digits")
        return BigInt(body)
    raise WireError(f"unknown value tag {tag!r}")


def parse_line(line: bytes) -> dict:
    """One report line → a dict; a line that is not JSON is a WireError. Bytes that are not UTF-8
    (a C++ string holds any) survive as lone surrogates, so they compare unequal, never crash."""
    try:
        return json.loads(line.decode("utf-8", errors="surrogateescape"))
    except (ValueError, RecursionError) as exc:
        raise WireError(f"report line is not JSON: {line[:80]!r}") from exc


def show(value) -> str:
    """A short, readable form of a value for a failure's detail, written as the tests write values
    (no Python reprs on a screen)."""
    text = _shown(value, 0)
    return text if len(text) <= 200 else text[:197] + "..."


def _shown(v, depth: int) -> str:
    if depth > 20:
        return "..."
    inner = lambda items: ", ".join(_shown(x, depth + 1) for x in items)  # noqa: E731
    if v is None:
        return "null"
    if v is UNDEFINED:
        return "undefined"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, BigInt):
        return f"{int(v)}n"
    if isinstance(v, float):
        return "NaN" if math.isnan(v) else ("Infinity" if v > 0 else "-Infinity") if math.isinf(v) else repr(v)
    if isinstance(v, int):
        return str(v) if abs(v) < 10 ** 60 else f"an integer of {len(str(abs(v)))} digits"
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, Char):
        return "'" + v.ch.replace("\\", "\\\\").replace("'", "\\'") + "'"
    if isinstance(v, list):
        return "[" + inner(v) + "]"
    if isinstance(v, Tuple):
        return "(" + inner(v.items) + ")"
    if isinstance(v, SetOf):
        return "{" + inner(v.items) + "}"
    if isinstance(v, Map):
        return "{" + ", ".join(f"{_shown(k, depth + 1)}: {_shown(x, depth + 1)}" for k, x in v.entries) + "}"
    if isinstance(v, Record):
        return "{" + ", ".join(f"{k}: {_shown(x, depth + 1)}" for k, x in v.fields) + "}"
    if isinstance(v, Opt):
        return _shown(v.value, depth + 1) if v.present else "none"
    if isinstance(v, Opaque):
        return f"<{v.what}>"
    return str(v)
