"""Plain data: what may cross from the candidate's process to the grader, and how.

Plain data is what CPython compares with its own code: the builtin value types, the standard
library's value types (Decimal, Fraction, date and time, namedtuple, Counter, OrderedDict,
defaultdict, deque), and subclasses of builtin types that change none of their value semantics
(an IntEnum compares as its int). Anything else is an object whose equality is somebody's code, so
it crosses as an opaque marker, and the grader never compares it with an expected value.

A value crosses as a flat *tape* (so no JSON nesting depth): ints, floats, strings, None and bools
as themselves, everything else as a list `[tag, ...]`, a container's header followed by its items;
a container met again is `["@", n]` (the n-th container), so aliasing and cycles survive.
Encoding runs in the candidate's process with builtins taken when this module was imported (the
program may patch its own); decoding runs in the grader. Standard library only.
"""

import array
import base64
import builtins
import collections
import datetime
import decimal
import fractions
import hashlib
import itertools
import math
from builtins import (bool as _bool, bytearray as _bytearray, bytes as _bytes, complex as _complex,
                      dict as _dict, float as _float, frozenset as _frozenset, id as _id, int as _int,
                      issubclass as _issubclass, len as _len, list as _list, map as _map, range as _range,
                      repr as _repr, set as _set, str as _str, sum as _sum, tuple as _tuple, type as _type)

MAX_NODES = 8_000_000
_BIG_INT = 1 << 4096
_NONE, _ELLIPSIS = _type(None), _type(...)
# dunders that give a value its meaning: a subclass defining none of them behaves as its base
_VALUE_DUNDERS = _frozenset((
    "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__hash__", "__bool__", "__len__",
    "__contains__", "__iter__", "__reversed__", "__getitem__", "__missing__", "__add__", "__radd__", "__sub__",
    "__rsub__", "__mul__", "__rmul__", "__truediv__", "__rtruediv__", "__floordiv__", "__rfloordiv__",
    "__mod__", "__rmod__", "__pow__", "__rpow__", "__neg__", "__pos__", "__abs__", "__round__", "__int__",
    "__float__", "__index__", "__complex__", "__and__", "__rand__", "__or__", "__ror__", "__xor__", "__rxor__",
    "__invert__", "__lshift__", "__rshift__", "__divmod__", "__rdivmod__", "keys", "items", "values", "get",
    "__setitem__", "__delitem__", "__iadd__", "__imul__", "__ior__", "__iand__", "__isub__", "__ixor__"))
_BASES = (_int, _float, _complex, _str, _bytes, _tuple, _list, _dict, _set, _frozenset)
_SCALARS = _frozenset((_int, _float, _str))
_TIME_TYPES = {datetime.date: "date", datetime.datetime: "datetime", datetime.time: "time",
               datetime.timedelta: "timedelta", datetime.timezone: "timezone"}
_DICT_TAGS = {_dict: "D", collections.OrderedDict: "OD", collections.Counter: "CT",
              collections.defaultdict: "DD"}
_NAMED_TYPES = {**{t.__name__: t for t in (_int, _float, _complex, _str, _bytes, _bytearray, _list, _tuple,
                                           _dict, _set, _frozenset, _bool, _range, _NONE, _type, object)},
                **{t.__name__: t for t in vars(builtins).values()
                   if _type(t) is _type and _issubclass(t, BaseException)},
                "Decimal": decimal.Decimal, "Fraction": fractions.Fraction, "OrderedDict": collections.OrderedDict,
                "Counter": collections.Counter, "defaultdict": collections.defaultdict, "deque": collections.deque,
                **{name: t for t, name in _TIME_TYPES.items()}}
_TYPE_NAMES = {t: n for n, t in _NAMED_TYPES.items()}
_NT_KEYS = _frozenset({"__module__", "__doc__", "__slots__", "_fields", "_field_defaults", "__new__", "_make",
                       "_replace", "__repr__", "_asdict", "__getnewargs__", "__match_args__", "__annotations__",
                       "__orig_bases__", "__qualname__", "__firstlineno__", "__static_attributes__"})


class TooLarge(Exception):
    """More than MAX_NODES elements: the value crosses by digest, if at all."""


def plain_base(t, _cache={}):
    """The builtin type a value of type `t` compares as, or None when `t` is not plain."""
    try:
        return _cache[t]
    except KeyError:
        pass
    base = None
    for b in _BASES:
        if _issubclass(t, b):
            mro = t.__mro__
            between = mro[:mro.index(b)]
            if not any(k is not t and _VALUE_DUNDERS.intersection(k.__dict__) for k in between) \
                    and not (t is not b and _VALUE_DUNDERS.intersection(t.__dict__)):
                base = b
            break
    _cache[t] = base
    return base


def is_namedtuple_type(t):
    fields = t.__dict__.get("_fields")
    return (t.__bases__ == (_tuple,) and _type(fields) is _tuple and all(_type(f) is _str for f in fields)
            and _frozenset(t.__dict__) - _frozenset(fields) <= _NT_KEYS)


# ---- encoding (in the candidate's process) ------------------------------------------------------
def encode(value, max_nodes=MAX_NODES):
    """The tape of `value`; raises TooLarge past `max_nodes` elements. Opaque parts become markers."""
    t = _type(value)
    if t in _SCALARS and (t is not _int or -_BIG_INT < value < _BIG_INT):
        return [value]
    if _nodes_at_least(value) > max_nodes:
        raise TooLarge("more than %d elements" % max_nodes)
    tape, seen, stack, nodes = [], {}, [value], 0
    while stack:
        v = stack.pop()
        nodes += 1
        if nodes > max_nodes:
            raise TooLarge("more than %d elements" % max_nodes)
        item, children = _encode_one(v, seen)
        tape.append(item)
        if children:
            stack.extend(reversed(children))
    return tape


_SIZED = _frozenset((_list, _tuple, _set, _frozenset, _dict))


def _nodes_at_least(value):
    """A lower bound on the tape's length, from the top two levels: a value far too large is refused
    at once, not after millions of elements were walked."""
    if _type(value) not in _SIZED or _len(value) < 1024:
        return 0
    inner = {_id(x): _len(x) for x in value if _type(x) in _SIZED}
    return _len(value) + _sum(inner.values())


def _encode_one(v, seen):
    """(tape item, children to encode after it)."""
    t = _type(v)
    if t is _str or t is _float or v is None or t is _bool:
        return v, None
    if t is _int:
        return (v if -_BIG_INT < v < _BIG_INT else ["H", format(v, "x")]), None
    key = _id(v)
    if key in seen:
        return ["@", seen[key]], None
    if t is _list or t is _tuple or t is _set or t is _frozenset:
        seen[key] = _len(seen)
        items = _list(v)
        return [{_list: "L", _tuple: "T", _set: "S", _frozenset: "F"}[t], _len(items)], items
    if t in _DICT_TAGS:
        return _encode_dict(v, t, key, seen)
    return _encode_other(v, t, key, seen)


def _encode_dict(v, t, key, seen):
    seen[key] = _len(seen)
    items = []
    for k, x in v.items():
        items.append(k)
        items.append(x)
    if t is collections.defaultdict:
        factory = v.default_factory
        name = _TYPE_NAMES.get(factory) if factory is not None else None
        return ["DD", name, _len(items) // 2], items
    return [_DICT_TAGS[t], _len(items) // 2], items


def _encode_other(v, t, key, seen):
    if t is _bytes or t is _bytearray:
        return ["B" if t is _bytes else "BA", base64.b64encode(v).decode()], None
    if t is _complex:
        return ["C", _repr(v.real), _repr(v.imag)], None
    if t is decimal.Decimal:
        return ["X", _str(v)], None
    if t is fractions.Fraction:
        return ["Q", _str(v.numerator), _str(v.denominator)], None
    if t in _TIME_TYPES:
        fields = _time_fields(v, t)
        return (["DT", _TIME_TYPES[t], fields] if fields is not None else ["O", _qualname(t)]), None
    if t is _range:
        return ["R", v.start, v.stop, v.step], None
    if t is collections.deque:
        seen[key] = _len(seen)
        items = _list(v)
        return ["DQ", v.maxlen, _len(items)], items
    if t is _ELLIPSIS:
        return ["E"], None
    if t is _type or _issubclass(t, _type):
        name = _TYPE_NAMES.get(v)
        return (["Y", name] if name is not None else ["O", "type " + _qualname(v)]), None
    if _issubclass(t, _tuple) and is_namedtuple_type(t):
        seen[key] = _len(seen)
        items = _list(v)
        return ["NT", t.__name__, _list(t._fields), _len(items)], items
    base = plain_base(t)
    if base is not None and base is not _bool:
        return _encode_one(base(v) if base in (_int, _float, _complex, _str, _bytes) else base(v), seen)
    return ["O", _qualname(t)], None


def _tz_fields(tz):
    if tz is None:
        return None
    if _type(tz) is not datetime.timezone:
        raise TypeError("not a fixed offset")
    offset = tz.utcoffset(None)
    return [offset.days, offset.seconds, offset.microseconds, tz.tzname(None)]


def _time_fields(v, t):
    """A date or time value as numbers (a zone other than a fixed offset makes it opaque)."""
    try:
        if t is datetime.timedelta:
            return [v.days, v.seconds, v.microseconds]
        if t is datetime.timezone:
            return _tz_fields(v)
        if t is datetime.date:
            return [v.year, v.month, v.day]
        if t is datetime.time:
            return [v.hour, v.minute, v.second, v.microsecond, _tz_fields(v.tzinfo), v.fold]
        return [v.year, v.month, v.day, v.hour, v.minute, v.second, v.microsecond, _tz_fields(v.tzinfo), v.fold]
    except TypeError:
        return None


def _qualname(t):
    try:
        return _str(t.__qualname__)[:100]
    except BaseException:
        return "object"


def is_plain(value, max_nodes=100_000):
    """Plain data all the way down (an opaque part anywhere makes it not plain)."""
    try:
        tape = encode(value, max_nodes)
    except TooLarge:
        return True          # too many elements to look at all of them: judged by what it is made of
    for item in tape:
        if _type(item) is _list and item[0] == "O":
            return False
    return True


# ---- decoding (in the grader) ---------------------------------------------------------------
class Opaque:
    """A value of the candidate's that is not plain data: usable only for identity and `is None`."""

    __slots__ = ("type_name",)

    def __init__(self, type_name):
        self.type_name = type_name

    def __repr__(self):
        return "<a %s object>" % self.type_name

    def _refuse(self, *args, **kwargs):
        raise NotPlain(self.type_name)

    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = __bool__ = __len__ = __iter__ = __contains__ = _refuse
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = _refuse
    __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = __pow__ = __rpow__ = __neg__ = __pos__ = _refuse
    __abs__ = __round__ = __int__ = __float__ = __index__ = __getitem__ = __hash__ = _refuse


class NotPlain(Exception):
    """The grader was asked to compare a value that is not plain data."""


def decode(tape):
    """The value a tape stands for; ValueError (or another exception) on a tape no encoder makes."""
    if _len(tape) == 1 and _type(tape[0]) is not _list:
        return tape[0]
    containers, stack, result = [], [], []

    def place(value):
        while stack:
            frame = stack[-1]
            frame[1].append(value)
            if _len(frame[1]) < frame[2]:
                return
            stack.pop()
            value = frame[0](frame[1])
        result.append(value)

    for item in tape:
        if _type(item) is not _list:
            place(item)
            continue
        tag = item[0]
        if tag == "@":
            value = containers[item[1]]
            if value is _PENDING:
                raise ValueError("a value that contains itself through a tuple")
            place(value)
        elif tag in _CONTAINERS:
            finish, count = _CONTAINERS[tag](item, containers)
            if count:
                stack.append([finish, [], count])
            else:
                place(finish([]))
        else:
            place(_SCALAR_TAGS[tag](item))
    if stack or _len(result) != 1:
        raise ValueError("an incomplete value")
    return result[0]


_PENDING = object()


def _mutable(make, fill, per_item=1):
    def start(item, containers):
        obj = make(item)
        containers.append(obj)
        return (lambda items: fill(obj, items)), _int(item[-1]) * per_item
    return start


def _immutable(make):
    def start(item, containers):
        index = _len(containers)
        containers.append(_PENDING)

        def finish(items):
            value = make(item, items)
            containers[index] = value
            return value
        return finish, _int(item[-1])
    return start


def _fill_list(obj, items):
    obj.extend(items)
    return obj


def _fill_set(obj, items):
    obj.update(items)
    return obj


def _fill_dict(obj, items):
    for i in _range(0, _len(items), 2):
        obj[items[i]] = items[i + 1]
    return obj


_NT_CACHE = {}


def _namedtuple(item, items):
    _tag, name, fields, _n = item
    key = (name, _tuple(fields))
    cls = _NT_CACHE.get(key)
    if cls is None:
        try:
            cls = _NT_CACHE[key] = collections.namedtuple(name, fields)
        except (ValueError, TypeError):
            return _tuple(items)
    return cls(*items)


def _defaultdict(item):
    factory = _NAMED_TYPES.get(item[1]) if item[1] is not None else None
    return collections.defaultdict(factory)


_CONTAINERS = {
    "L": _mutable(lambda item: [], _fill_list),
    "S": _mutable(lambda item: _set(), _fill_set),
    "D": _mutable(lambda item: {}, _fill_dict, 2),
    "OD": _mutable(lambda item: collections.OrderedDict(), _fill_dict, 2),
    "CT": _mutable(lambda item: collections.Counter(), _fill_dict, 2),
    "DD": _mutable(_defaultdict, _fill_dict, 2),
    "DQ": _mutable(lambda item: collections.deque(maxlen=item[1]), _fill_list),
    "T": _immutable(lambda item, items: _tuple(items)),
    "F": _immutable(lambda item, items: _frozenset(items)),
    "NT": _immutable(_namedtuple),
}


def _zone(fields):
    if fields is None:
        return None
    days, seconds, micros, name = fields
    return datetime.timezone(datetime.timedelta(days=days, seconds=seconds, microseconds=micros), _str(name))


def _time_value(item):
    kind, f = item[1], item[2]
    if kind == "timedelta":
        return datetime.timedelta(days=f[0], seconds=f[1], microseconds=f[2])
    if kind == "timezone":
        return _zone(f)
    if kind == "date":
        return datetime.date(*f)
    if kind == "time":
        return datetime.time(f[0], f[1], f[2], f[3], _zone(f[4]), fold=f[5])
    if kind == "datetime":
        return datetime.datetime(*f[:7], _zone(f[7]), fold=f[8])
    raise ValueError("not a time value")


_SCALAR_TAGS = {
    "H": lambda item: _int(item[1], 16),
    "B": lambda item: base64.b64decode(item[1]),
    "BA": lambda item: _bytearray(base64.b64decode(item[1])),
    "C": lambda item: _complex(_float(item[1]), _float(item[2])),
    "X": lambda item: decimal.Decimal(item[1]),
    "Q": lambda item: fractions.Fraction(_int(item[1]), _int(item[2])),
    "DT": _time_value,
    "R": lambda item: _range(item[1], item[2], item[3]),
    "E": lambda item: ...,
    "Y": lambda item: _NAMED_TYPES[item[1]],
    "O": lambda item: Opaque(_str(item[1])[:100]),
}


def has_opaque(tape):
    return any(_type(i) is _list and i[0] == "O" for i in tape)


# ---- digests of values too large to cross ----------------------------------------------------
def digest(value):
    """sha256 of a form in which values Python calls equal are equal (1 == 1.0 == True), for answers
    too large to send: the grader compares it with the digest of the expected value it computes.
    Runs of strings, ints and rows of strings are taken a block at a time (seconds, not minutes,
    for a hundred million strings); the block a sequence takes depends only on its equality class."""
    h = hashlib.sha256()
    stack = [value]
    while stack:
        v = stack.pop()
        t = _type(v)
        if v is None or t is _str or t is _bytes or t is _bytearray:
            h.update(b"N" if v is None else (b"s" if t is _str else b"b") + _repr(_len(v)).encode() + b":")
            if v is not None:
                h.update(v.encode("utf-8", "surrogatepass") if t is _str else _bytes(v))
        elif t in (_bool, _int, _float, _complex, fractions.Fraction, decimal.Decimal):
            h.update(_number_form(v) + b";")
        elif t in _SEQ_TAGS:
            h.update(_SEQ_TAGS[t] + b"%d[" % _len(v))
            if not _digest_block(h, v):
                stack.extend(reversed(_list(v)))
        else:
            raise TooLarge("a %s has no digest" % t.__name__)
    return h.hexdigest()


_SEQ_TAGS = {_list: b"L", _tuple: b"T", collections.deque: b"D"}
_INTS = _frozenset((_int, _bool))
_BLOCK = 65536


def _digest_block(h, seq):
    """Feed `seq`'s items to `h` in one block when they are all str, all int, or all rows of str;
    False when they are not. Ints give the same bytes as one at a time; strings get their own tags
    (S, R), which no item form starts with, so no block reads as another value. A list, a tuple and a
    deque are tagged apart, as Python never calls them equal."""
    kinds = _set(_map(_type, seq))
    if kinds == {_str}:
        _digest_strs(h, b"S", seq)
    elif kinds and kinds <= _INTS:
        for start in _range(0, _len(seq), _BLOCK):
            h.update("".join(_map("i%x;".__mod__, itertools.islice(seq, start, start + _BLOCK))).encode())
    elif _len(kinds) == 1 and kinds <= _SEQ_TAGS.keys() \
            and _set(_map(_type, itertools.chain.from_iterable(seq))) == {_str}:
        h.update(b"R" + _SEQ_TAGS[kinds.pop()] + array.array("q", _map(_len, seq)).tobytes())
        for start in _range(0, _len(seq), _BLOCK):
            _digest_strs(h, b"", _list(itertools.chain.from_iterable(itertools.islice(seq, start, start + _BLOCK))))
    else:
        return False
    return True


def _digest_strs(h, tag, strs):
    """Strings joined by NUL when none holds one (one pass in C), else with their lengths."""
    joined = "\0".join(strs)
    if joined.count("\0") == _len(strs) - 1:
        h.update(tag + b"%d\0" % _len(strs))
    else:
        h.update(tag + b"%d:" % _len(strs) + array.array("q", _map(_len, strs)).tobytes())
        joined = "".join(strs)
    h.update(joined.encode("utf-8", "surrogatepass"))


def _number_form(v):
    t = _type(v)
    if t is _complex and v.imag:
        return b"c" + _number_form(v.real) + b"," + _number_form(v.imag)
    if t is _complex:
        v = v.real
    if _type(v) is _float and (v != v or v in (math.inf, -math.inf)):
        return b"nan" if v != v else (b"inf" if v > 0 else b"-inf")
    if _type(v) is decimal.Decimal and not v.is_finite():
        return b"nan" if v.is_nan() else (b"inf" if v > 0 else b"-inf")
    q = fractions.Fraction(v)
    return b"i%x" % q.numerator if q.denominator == 1 else b"q%x/%x" % (q.numerator, q.denominator)
