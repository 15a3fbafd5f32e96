"""Plain-data codec between the grader and a candidate process (runs inside the sandbox).

Values cross as tagged JSON. Only exact builtin value types are data; anything else the
candidate returns stays in its process and crosses as a handle ({"R": id}), so a candidate cannot
ship an object whose comparison methods lie. Decoding on the grader side only ever builds
genuine builtin values.

The first part of the sandbox worker program; stdlib-only. The engine's tests import it too.
"""

import base64 as _b64
import collections as _collections
import decimal as _decimal
import fractions as _fractions

MAX_DEPTH = 200
BIG_INT_BITS = 4096
_SCALARS = (str, int, float)
_DICT_LIKE = (dict, _collections.OrderedDict, _collections.Counter, _collections.defaultdict)
# builtin types cross by name (some tests pass `int` or `str` as an argument)
_TYPES = {t.__name__: t for t in (int, float, str, bytes, bool, complex, list, tuple, dict, set, frozenset,
                                   type(None), object)}


class NotData(Exception):
    """A value that cannot cross as plain data."""


def encode(value, handle_for=None, depth=0):
    """Encode `value`; non-data objects go through `handle_for(obj) -> int` or raise NotData."""
    if depth > MAX_DEPTH:
        raise NotData("nested deeper than %d levels" % MAX_DEPTH)
    t = type(value)
    if t is int and value.bit_length() > BIG_INT_BITS:
        # decimal text of huge ints is capped (int max str digits) and quadratic; hex is neither
        return {"H": format(value, "x")}
    if value is None or t is bool or t in _SCALARS:
        return value
    d = depth + 1
    if t is list:
        return [encode(v, handle_for, d) for v in value]
    if t is tuple:
        return {"T": [encode(v, handle_for, d) for v in value]}
    if t in _DICT_LIKE:
        return {"D": [[encode(k, handle_for, d), encode(v, handle_for, d)] for k, v in value.items()]}
    if t is set:
        return {"S": [encode(v, handle_for, d) for v in value]}
    if t is frozenset:
        return {"F": [encode(v, handle_for, d) for v in value]}
    if t is bytes or t is bytearray:
        return {"B": _b64.b64encode(bytes(value)).decode("ascii")}
    if t is complex:
        return {"C": [value.real, value.imag]}
    if t is range:
        return {"G": [value.start, value.stop, value.step]}
    if t is _collections.deque:
        return {"Q": [encode(v, handle_for, d) for v in value]}
    if t is _fractions.Fraction:
        return {"X": ["Fraction", str(value)]}
    if t is _decimal.Decimal:
        return {"X": ["Decimal", str(value)]}
    if value is Ellipsis:
        return {"E": 0}
    if t is type and _TYPES.get(getattr(value, "__name__", None)) is value:
        return {"Y": value.__name__}
    if isinstance(value, tuple) and hasattr(t, "_fields"):  # namedtuple: compares equal to its tuple
        return {"T": [encode(v, handle_for, d) for v in tuple.__iter__(value)]}
    if handle_for is None:
        raise NotData("a %s is not plain data" % t.__name__)
    return {"R": handle_for(value)}


def decode(obj, resolve=None, depth=0):
    """Decode tagged JSON into genuine builtin values; {"R": id} goes through `resolve(id)`."""
    if depth > MAX_DEPTH:
        raise NotData("nested deeper than %d levels" % MAX_DEPTH)
    t = type(obj)
    if obj is None or t is bool or t in _SCALARS:
        return obj
    d = depth + 1
    if t is list:
        return [decode(v, resolve, d) for v in obj]
    if t is not dict or len(obj) != 1:
        raise NotData("malformed value")
    (tag, body), = obj.items()
    if tag == "T":
        return tuple(decode(v, resolve, d) for v in body)
    if tag == "D":
        return {decode(k, resolve, d): decode(v, resolve, d) for k, v in body}
    if tag == "S":
        return {decode(v, resolve, d) for v in body}
    if tag == "F":
        return frozenset(decode(v, resolve, d) for v in body)
    if tag == "B":
        return _b64.b64decode(body)
    if tag == "C":
        return complex(float(body[0]), float(body[1]))
    if tag == "G":
        return range(int(body[0]), int(body[1]), int(body[2]))
    if tag == "Q":
        return _collections.deque(decode(v, resolve, d) for v in body)
    if tag == "X":
        kind, text = body
        return _fractions.Fraction(str(text)) if kind == "Fraction" else _decimal.Decimal(str(text))
    if tag == "E":
        return Ellipsis
    if tag == "H":
        return int(str(body), 16)
    if tag == "Y":
        if body not in _TYPES:
            raise NotData("unknown type %r" % (body,))
        return _TYPES[body]
    if tag == "R":
        if resolve is None:
            raise NotData("unexpected handle")
        return resolve(int(body))
    raise NotData("unknown tag %r" % (tag,))
