"""Graph codec between the grader and a candidate process (grading protocol 2).

The first part of the sandbox worker program (stdlib only); the engine's tests import it too.

A *conversation* is one top-level call and every callback it makes, in either direction. Both
ends number each container the first time it crosses (pre-order, the same on both sides) and send
a back-reference after, so aliasing, cycles and `is` survive; numbers and strings cross as values
(CPython's own caching and interning make their identity an implementation detail). A reply carries the state of every
mutable object its request delivered that the call changed, and the caller writes it into its own
object in place. Only exact builtin value types and pure namedtuples are data; anything else
crosses as a handle that its owner serves. Encoding and decoding are iterative (no recursion
limit), capped in elements, and call `tick()` so the time they take can be charged.

Wire values (JSON): null, true, false, numbers, strings and arrays (lists) as themselves;
{"@": n} back-reference; {"H": hex} big int; {"T": [...]} tuple; {"D": [k, v, ...]} dict
({"OD"} OrderedDict, {"CT"} Counter, {"DD", "f": factory} defaultdict); {"S"/"F": [...], "z": size}
set / frozenset in iteration order (with the table's layout when adding them in that order would
not rebuild it); {"B"/"BA": base64} bytes /
bytearray; {"C": [re, im]}; {"G": [start, stop, step]} range; {"Q": [...], "m": maxlen} deque;
{"NT": [...], "n": name, "f": fields} namedtuple; {"X": [kind, text]} Fraction / Decimal;
{"E": 0} Ellipsis; {"Y": name} builtin type; {"R": k} the sender's handle k; {"L": k} the
receiver's own handle k, coming back.
"""

import base64 as _b64
import builtins as _builtins_module
import collections as _collections
import decimal as _decimal
import fractions as _fractions
import itertools as _itertools
import keyword as _keyword
import operator as _operator
import sys as _sys

PROTOCOL = 2
MAX_NODES = 8_000_000           # elements in one frame
MAX_JSON_DEPTH = 64             # deeper containers go out of line ({"^": i}), so JSON never recurses far
TICK_EVERY = 2048               # elements between budget checks
_BIG_INT_BITS = 4096
_BIG = 1 << _BIG_INT_BITS
_DICTS = {dict: "D", _collections.OrderedDict: "OD", _collections.Counter: "CT", _collections.defaultdict: "DD"}
_TAG_DICTS = {tag: t for t, tag in _DICTS.items()}
_MUTABLE = {list: "list", bytearray: "bytearray", set: "set", _collections.deque: "deque",
            **{t: "dict" for t in _DICTS}}
_NT_KEYS = {"__module__", "__doc__", "__slots__", "_fields", "_field_defaults", "__new__", "_make", "_replace",
            "__repr__", "_asdict", "__getnewargs__", "__match_args__", "__annotations__", "__orig_bases__",
            "__qualname__", "__firstlineno__", "__static_attributes__"}
BUILTIN_TYPES = {t.__name__: t for t in (int, float, str, bytes, bool, complex, list, tuple, dict, set, frozenset,
                                         bytearray, type(None), object, range)}
_SET_BASE = _sys.getsizeof(set())
_FROZEN_BASE = _sys.getsizeof(frozenset())
_PENDING = object()


class NotData(BaseException):
    """A value that cannot cross, or a frame that is not valid (BaseException: test code never catches it)."""


def is_namedtuple_type(t):
    """A class made by collections.namedtuple or typing.NamedTuple, with nothing of its own added."""
    fields = t.__dict__.get("_fields")
    return (t.__bases__ == (tuple,) and type(fields) is tuple and all(type(f) is str for f in fields)
            and set(t.__dict__) - set(fields) <= _NT_KEYS)


def shallow(obj):
    """What a change is measured against: the items an object holds (references, so ids never recycle)."""
    t = type(obj)
    if t is bytearray:
        return bytes(obj)
    if t in _DICTS:
        return tuple(_itertools.chain.from_iterable(obj.items()))
    return tuple(obj)


def unchanged(snapshot, obj):
    now = shallow(obj)
    if type(now) is bytes:
        return now == snapshot
    return len(now) == len(snapshot) and all(map(_operator.is_, now, snapshot))


def same_order(s, order):
    return len(s) == len(order) and all(map(_operator.is_, s, order))


class Frame:
    """A container being decoded: its kind, number, the children decoded so far, the rest."""

    __slots__ = ("kind", "n", "out", "items", "wire")

    def __init__(self, kind, n, out, items, wire):
        self.kind, self.n, self.out, self.items, self.wire = kind, n, out, items, wire


class Conversation:
    """One end of one conversation: numbered objects, their snapshots, and the handle hooks.

    `ends` supplies: `export(obj) -> k` (a handle for this end's non-data object, or NotData),
    `proxy(k)` (the cached proxy for the other end's handle k), `own(obj) -> k or None` (obj is a
    proxy of the other end's handle k), `local(k)` (this end's object behind its handle k) and
    `tick()` (may raise to stop the work).
    """

    def __init__(self, ends, max_nodes=MAX_NODES):
        self.ends = ends
        self.max_nodes = max_nodes
        self.objs = []          # number -> object on this end
        self.num = {}           # id(object) -> number
        self.snap = {}          # number -> shallow state at its last crossing (mutable objects)
        self.notes = []         # where this end could not reproduce the other's value exactly
        self.nodes = 0

    # ---------------------------------------------------------------- numbering
    def _number(self, obj, delivered):
        n = len(self.objs)
        self.objs.append(obj)
        if obj is not _PENDING:
            self.num[id(obj)] = n
        delivered.append(n)
        return n

    def _settle(self, n, obj):
        self.objs[n] = obj
        self.num[id(obj)] = n
        if type(obj) in _MUTABLE:
            self.snap[n] = shallow(obj)
        return obj

    def _check(self, nodes):
        if nodes > self.max_nodes:
            raise NotData("more than %d elements in one frame" % self.max_nodes)
        self.ends.tick()

    # ---------------------------------------------------------------- encoding
    def encode(self, value, delivered=None):
        """`value` as wire JSON; appends the numbers the frame delivers to `delivered`."""
        delivered = [] if delivered is None else delivered
        self.nodes = nodes = 0
        root = []
        outline = [None]
        stack = [(root, iter((value,)), 0)]
        while stack:
            out, items, depth = stack[-1]
            for v in items:
                nodes += 1
                if not nodes & (TICK_EVERY - 1):
                    self._check(nodes + self.nodes)
                node, body, children = self._enc(v, delivered)
                if children is not None and depth >= MAX_JSON_DEPTH:
                    out.append({"^": len(outline)})
                    outline.append(node)
                    stack.append((body, iter(children), 0))
                    break
                out.append(node)
                if children is not None:
                    stack.append((body, iter(children), depth + 1))
                    break
            else:
                stack.pop()
        self._check(nodes + self.nodes)
        if len(outline) == 1:
            return root[0]
        outline[0] = root[0]
        return {"~": outline}

    def _enc(self, v, delivered):
        t = type(v)
        if v is None or t is bool or t is float or t is str:
            return v, None, None
        if t is int:
            return ({"H": format(v, "x")} if v.bit_length() > _BIG_INT_BITS else v), None, None
        n = self.num.get(id(v))
        if n is not None:
            delivered.append(n)
            return {"@": n}, None, None
        enc = _ENCODERS.get(t)
        if enc is not None:
            return enc(self, v, delivered)
        if isinstance(v, tuple) and is_namedtuple_type(t):
            n = self._number(v, delivered)
            body = []
            return {"NT": body, "n": t.__name__, "f": list(t._fields)}, body, tuple.__iter__(v)
        return self._enc_scalar(t, v), None, None

    def _enc_scalar(self, t, v):
        if t is complex:
            return {"C": [v.real, v.imag]}
        if t is range:
            return {"G": [v.start, v.stop, v.step]}
        if t is _fractions.Fraction:
            return {"X": ["Fraction", str(v)]}
        if t is _decimal.Decimal:
            return {"X": ["Decimal", str(v)]}
        if v is Ellipsis:
            return {"E": 0}
        if t is type and BUILTIN_TYPES.get(v.__name__) is v:
            return {"Y": v.__name__}
        if getattr(self.ends, "name_builtins", False):
            name = builtin_name(v)
            if name is not None:
                return {"Y": name}
        return self.handle(v)

    def handle(self, v):
        node = self.ends.own(v)          # the receiver's own object coming back: {"L": k} or {"N": name}
        return node if node is not None else {"R": self.ends.export(v)}

    # ---------------------------------------------------------------- decoding
    def decode(self, wire, delivered=None):
        """Wire JSON as objects of this end; appends the numbers the frame delivers to `delivered`."""
        delivered = [] if delivered is None else delivered
        self.nodes = nodes = 0
        self.outline = None
        if type(wire) is dict and len(wire) == 1 and "~" in wire:
            self.outline = wire["~"]
            if type(self.outline) is not list or not self.outline:
                raise NotData("malformed value")
            self.outlined = set()
            wire = self.outline[0]
        root = Frame(None, None, [], iter((wire,)), None)
        stack = [root]
        while stack:
            frame = stack[-1]
            for w in frame.items:
                nodes += 1
                if not nodes & (TICK_EVERY - 1):
                    self._check(nodes + self.nodes)
                child = self._dec(w, delivered)
                if type(child) is Frame:
                    stack.append(child)
                    break
                frame.out.append(child)
            else:
                stack.pop()
                if stack:
                    stack[-1].out.append(_FINISH[frame.kind](self, frame))
        self._check(nodes + self.nodes)
        return root.out[0]

    def _dec(self, w, delivered):
        t = type(w)
        if w is None or t is bool or t is int or t is float:
            return w
        if t is str:
            return w
        if t is list:
            if w and _plain(w):
                self.nodes += len(w)
                n = self._number(w, delivered)        # JSON's own list is the list
                self.snap[n] = tuple(w)
                return w
            obj = []
            return Frame("list", self._number(obj, delivered), obj, iter(w), None)
        if t is not dict or not w:
            raise NotData("malformed value")
        tag = next(iter(w))
        if tag == "^":
            return self._dec(self._out_of_line(w["^"]), delivered)
        dec = _DECODERS.get(tag)
        if dec is None:
            raise NotData("unknown tag %r" % tag[:20])
        return dec(self, w[tag], w, delivered)

    def _out_of_line(self, i):
        if (self.outline is None or type(i) is not int or not 0 < i < len(self.outline) or i in self.outlined):
            raise NotData("malformed out-of-line reference")
        self.outlined.add(i)
        w = self.outline[i]
        if type(w) is dict and "^" in w:
            raise NotData("malformed out-of-line reference")
        return w

    def namedtuple_class(self, name, fields):
        if (type(name) is not str or not name.isidentifier() or _keyword.iskeyword(name) or type(fields) is not list
                or len(fields) > 255 or not all(type(f) is str for f in fields)):
            raise NotData("malformed namedtuple")
        cache = self.__dict__.setdefault("_nt", {})
        key = (name, tuple(fields))
        if key not in cache:
            try:
                cache[key] = _collections.namedtuple(name, fields)
            except (ValueError, TypeError):
                raise NotData("malformed namedtuple fields") from None
        return cache[key]

    def mark(self):
        return len(self.objs)

    def rollback(self, mark):
        """Forget the objects numbered since `mark` (a frame that was built and then not sent)."""
        for n in range(mark, len(self.objs)):
            obj = self.objs[n]
            if self.num.get(id(obj)) == n:
                del self.num[id(obj)]
            self.snap.pop(n, None)
        del self.objs[mark:]

    # ---------------------------------------------------------------- copy-back
    def changed(self, numbers):
        """[[n, kind, state]] for each mutable object among `numbers` that changed since it crossed."""
        states = []
        seen = set()
        for n in numbers:
            if n in seen or n not in self.snap:
                continue
            seen.add(n)
            obj = self.objs[n]
            if not unchanged(self.snap[n], obj):
                states.append(n)
        out = []
        for n in states:
            obj = self.objs[n]
            wire = self.encode(_state_of(obj))
            self.snap[n] = shallow(obj)
            out.append([n, _MUTABLE[type(obj)], wire])
        return out

    def apply(self, states):
        """Write each state into this end's object of the same number, in place, when its kind matches."""
        if type(states) is not list:
            raise NotData("malformed state")
        decoded = []
        for entry in states:
            if type(entry) is not list or len(entry) != 3 or type(entry[0]) is not int:
                raise NotData("malformed state")
            n, kind, wire = entry
            if not 0 <= n < len(self.objs) or n not in self.snap:
                raise NotData("state for an object that did not cross")
            obj = self.objs[n]
            if _MUTABLE.get(type(obj)) != kind:
                raise NotData("state of another kind of object")
            decoded.append((n, obj, self.decode(wire)))
        for n, obj, state in decoded:
            _write_state(obj, state, self)
            self.snap[n] = shallow(obj)


def _state_of(obj):
    t = type(obj)
    if t is bytearray:
        return bytes(obj)
    if t is set:
        return [list(obj), set_layout(obj)]
    if t in _DICTS:
        return list(_itertools.chain.from_iterable(obj.items()))
    return list(obj)


def _write_state(obj, state, conv):
    t = type(obj)
    if t is list or t is bytearray:
        if type(state) is not (list if t is list else bytes):
            raise NotData("malformed state")
        obj[:] = state
    elif t is _collections.deque:
        obj.clear()
        obj.extend(state)
    elif t in _DICTS:
        _write_dict(obj, state)
    else:
        _write_set(obj, state, conv)


def _write_dict(obj, state):
    if type(state) is not list or len(state) % 2:
        raise NotData("malformed state")
    keys, values = state[0::2], state[1::2]
    try:
        if len(keys) == len(obj) and all(map(_operator.eq, obj.keys(), keys)):
            for k, v in zip(keys, values):
                if obj[k] is not v:
                    obj[k] = v
            return
        obj.clear()
        for k, v in zip(keys, values):
            obj[k] = v
    except TypeError:
        raise NotData("unhashable dict key") from None


def _write_set(obj, state, conv):
    """New members in place; then the order is checked against the other end's."""
    if type(state) is not list or len(state) != 2 or type(state[0]) is not list or type(state[1]) is not dict:
        raise NotData("malformed state")
    order, layout = state
    try:
        keep = set(order)
        for x in [x for x in obj if x not in keep]:
            obj.discard(x)
        for x in order:
            if x not in obj:
                obj.add(x)
    except TypeError:
        raise NotData("unhashable set member") from None
    if not same_order(obj, order):
        if layout and _LAYOUT and len(layout.get("p") or ()) == len(order):
            _relay(obj, order, layout)
        if not same_order(obj, order):
            conv.notes.append("a set the call changed iterates in another order in the test than in the candidate")


# ------------------------------------------------------------------- encoders per type
def _e_list(conv, v, delivered):
    conv.snap[conv._number(v, delivered)] = shallow(v)
    if v and _plain(v):
        conv.nodes += len(v)
        return list(v), None, None
    body = []
    return body, body, v


def _e_tuple(conv, v, delivered):
    conv._number(v, delivered)
    if v and _plain(v):
        conv.nodes += len(v)
        return {"T": list(v)}, None, None
    body = []
    return {"T": body}, body, v


def _e_seq(tag, extra=None):
    def enc(conv, v, delivered):
        n = conv._number(v, delivered)
        if type(v) in _MUTABLE:
            conv.snap[n] = shallow(v)
        if tag == "T" and v and _plain(v):
            conv.nodes += len(v)
            return {"T": list(v)}, None, None
        body = []
        node = {tag: body}
        if extra is not None:
            node.update(extra(v))
        return node, body, v
    return enc


def _e_dict(conv, v, delivered):
    n = conv._number(v, delivered)
    conv.snap[n] = shallow(v)
    body = []
    node = {_DICTS[type(v)]: body}
    if type(v) is _collections.defaultdict:
        f = v.default_factory
        if f is None:
            node["f"] = None
        elif type(f) is type and BUILTIN_TYPES.get(f.__name__) is f:
            node["f"] = {"Y": f.__name__}
        else:
            node["f"] = conv.handle(f)
    return node, body, _itertools.chain.from_iterable(v.items())


def _e_bytes(conv, v, delivered):
    n = conv._number(v, delivered)
    if type(v) is bytearray:
        conv.snap[n] = bytes(v)
    return {"B" if type(v) is bytes else "BA": _b64.b64encode(v).decode("ascii")}, None, None


_ENCODERS = {
    list: _e_list, bytes: _e_bytes, bytearray: _e_bytes,
    tuple: _e_tuple, set: _e_seq("S", lambda v: set_layout(v)), frozenset: _e_seq("F", lambda v: set_layout(v)),
    _collections.deque: _e_seq("Q", lambda v: {"m": v.maxlen}),
    dict: _e_dict, _collections.OrderedDict: _e_dict, _collections.Counter: _e_dict, _collections.defaultdict: _e_dict,
}


# ------------------------------------------------------------------- decoders per tag
def _d_ref(conv, body, w, delivered):
    if type(body) is not int or not 0 <= body < len(conv.objs):
        raise NotData("back-reference to an object that did not cross")
    obj = conv.objs[body]
    if obj is _PENDING:
        raise NotData("a cycle through an immutable container cannot be rebuilt")
    delivered.append(body)
    return obj


def _d_later(kind):
    """Containers built when their items are complete (immutable, or needing all items at once)."""
    def dec(conv, body, w, delivered):
        if type(body) is not list:
            raise NotData("malformed %s" % kind)
        if kind == "tuple" and body and _plain(body):
            conv.nodes += len(body)
            obj = tuple(body)
            conv._number(obj, delivered)
            return obj
        return Frame(kind, conv._number(_PENDING, delivered), [], iter(body), w)
    return dec


_PLAIN_JSON = {int, float, bool, str}


def _plain(items):
    """Only scalars (ints of ordinary size, floats, bools, strings): a container that needs no walk item by item."""
    if len(items) <= 8:
        for x in items:
            t = type(x)
            if t is int:
                if not -_BIG < x < _BIG:
                    return False
            elif t is not float and t is not bool and t is not str:
                return False
        return True
    types = set(map(type, items))
    if not types <= _PLAIN_JSON:
        return False
    return _small_ints(items, types)


def _small_ints(items, types):
    if int not in types:
        return True
    try:
        return -_BIG < min(items) and max(items) < _BIG
    except (TypeError, ValueError):
        return False


def _d_dict(conv, body, w, delivered):
    if type(body) is not list or len(body) % 2:
        raise NotData("malformed dict")
    t = _TAG_DICTS[next(iter(w))]
    obj = t()
    n = conv._number(obj, delivered)
    conv.snap[n] = ()
    if t is _collections.defaultdict and w.get("f") is not None:
        factory = conv.decode(w["f"], delivered)
        if not callable(factory):
            raise NotData("malformed defaultdict factory")
        obj.default_factory = factory
    return Frame("dict", n, [], iter(body), obj)


def _d_bytes(conv, body, w, delivered):
    if type(body) is not str:
        raise NotData("malformed bytes")
    try:
        data = _b64.b64decode(body, validate=True)
    except ValueError:
        raise NotData("malformed bytes") from None
    obj = data if "B" in w else bytearray(data)
    n = conv._number(obj, delivered)
    if type(obj) is bytearray:
        conv.snap[n] = bytes(obj)
    return obj


def _d_value(fn):
    def dec(conv, body, w, delivered):
        try:
            return fn(conv, body)
        except (TypeError, ValueError, IndexError, ArithmeticError, _decimal.InvalidOperation):
            raise NotData("malformed value") from None
    return dec


def _v_int(conv, body):
    if type(body) is not str or len(body) > 1 << 22:
        raise ValueError
    return int(body, 16)


def _v_complex(conv, body):
    return complex(float(body[0]), float(body[1]))


def _v_range(conv, body):
    if type(body) is not list or len(body) != 3 or not all(type(x) is int for x in body):
        raise ValueError
    return range(*body)


def _v_number(conv, body):
    kind, text = body
    if type(text) is not str or len(text) > 100_000:
        raise ValueError
    if kind == "Fraction":
        return _fractions.Fraction(text)
    if kind == "Decimal":
        return _decimal.Decimal(text)
    raise ValueError


def _v_type(conv, body):
    found = BUILTIN_TYPES.get(body) if type(body) is str else None
    if found is None and getattr(conv.ends, "accept_builtins", False):
        found = builtin_named(body)
    if found is None:
        raise ValueError
    return found


_BUILTIN_FUNCTION = type(len)
_METHOD_DESCRIPTOR = type(str.lower)


def builtin_name(obj):
    """The name a builtin function or a builtin type's method goes by ("len", "str.lower"), or None."""
    t = type(obj)
    if t is _BUILTIN_FUNCTION:
        name = getattr(obj, "__name__", None)
        if type(name) is str and getattr(_builtins_module, name, None) is obj:
            return name
    elif t is _METHOD_DESCRIPTOR:
        owner = getattr(obj, "__objclass__", None)
        oname, mname = getattr(owner, "__name__", None), getattr(obj, "__name__", None)
        if type(oname) is str and type(mname) is str and BUILTIN_TYPES.get(oname) is owner \
                and getattr(owner, mname, None) is obj:
            return "%s.%s" % (oname, mname)
    return None


def builtin_named(name):
    """The builtin function or method that `builtin_name` gave `name`, or None."""
    if type(name) is not str or len(name) > 100:
        return None
    owner, _, method = name.partition(".")
    if method:
        t = BUILTIN_TYPES.get(owner)
        found = getattr(t, method, None) if t is not None else None
        return found if type(found) is _METHOD_DESCRIPTOR else None
    found = getattr(_builtins_module, name, None)
    return found if type(found) is _BUILTIN_FUNCTION else None


def _v_handle(conv, body):
    if type(body) is not int:
        raise ValueError
    return conv.ends.proxy(body)


def _v_own(conv, body):
    if type(body) is not int:
        raise ValueError
    return conv.ends.local(body)


_DECODERS = {
    "@": _d_ref, "T": _d_later("tuple"), "S": _d_later("set"), "F": _d_later("frozenset"), "Q": _d_later("deque"),
    "NT": _d_later("namedtuple"), "D": _d_dict, "OD": _d_dict, "CT": _d_dict, "DD": _d_dict,
    "B": _d_bytes, "BA": _d_bytes, "H": _d_value(_v_int), "C": _d_value(_v_complex), "G": _d_value(_v_range),
    "X": _d_value(_v_number), "E": _d_value(lambda conv, body: Ellipsis), "Y": _d_value(_v_type),
    "R": _d_value(_v_handle), "L": _d_value(_v_own),
    "Z": _d_value(lambda conv, body: conv.ends.digested(body)),
    "N": _d_value(lambda conv, body: conv.ends.named(body)),
}


# ------------------------------------------------------------------- finishing containers
def _f_root(conv, frame):
    return frame.out[0]


def _f_list(conv, frame):
    conv.snap[frame.n] = tuple(frame.out)
    return frame.out


def _f_tuple(conv, frame):
    return conv._settle(frame.n, tuple(frame.out))


def _f_set(conv, frame):
    return conv._settle(frame.n, rebuild_set(frame.out, frame.wire, conv, frozen=frame.kind == "frozenset"))


def _f_deque(conv, frame):
    maxlen = frame.wire.get("m")
    if maxlen is not None and (type(maxlen) is not int or maxlen < 0):
        raise NotData("malformed deque")
    return conv._settle(frame.n, _collections.deque(frame.out, maxlen))


def _f_namedtuple(conv, frame):
    cls = conv.namedtuple_class(frame.wire.get("n"), frame.wire.get("f"))
    if len(frame.out) != len(cls._fields):
        raise NotData("malformed namedtuple")
    return conv._settle(frame.n, cls(*frame.out))


def _f_dict(conv, frame):
    obj, items = frame.wire, frame.out
    setitem = _collections.OrderedDict.__setitem__ if type(obj) is _collections.OrderedDict else dict.__setitem__
    try:
        for i in range(0, len(items), 2):
            if i & 255 == 0:
                conv.ends.tick()
            setitem(obj, items[i], items[i + 1])
    except TypeError:
        raise NotData("unhashable dict key") from None
    conv.snap[frame.n] = shallow(obj)
    return obj


_FINISH = {None: _f_root, "list": _f_list, "tuple": _f_tuple, "set": _f_set, "frozenset": _f_set,
           "deque": _f_deque, "namedtuple": _f_namedtuple, "dict": _f_dict}


# ------------------------------------------------------------------- digests of huge answers
def canonical_digest(value, tick=None):
    """sha256 of a form in which values Python calls equal are equal.

    Numbers by exact value (1 == 1.0 == True == Fraction(1)), dicts and sets by their members in any
    order, lists, tuples, deques and strings by kind and content. An OrderedDict is digested like a
    dict (order left out). Anything else raises NotData.
    """
    out = {}
    open_ = set()
    stack = [(value, False)]
    count = 0
    while stack:
        v, expanded = stack.pop()
        key = id(v)
        if key in out and not expanded:
            continue
        if not expanded and key in open_:
            raise NotData("a value that contains itself has no digest")
        count += 1
        if tick is not None and count & 4095 == 0:
            tick()
        form = _leaf_form(v)
        if form is not None:
            out[key] = _sha(form)
            continue
        rows = _rows_of_strings(v)
        if rows is not None:              # the common huge answer: many tuples of strings, digested in bulk
            out[key] = rows
            continue
        children = _children(v)
        if not expanded:
            open_.add(key)
            stack.append((v, True))
            stack.extend((c, False) for c in children if id(c) not in out)
            continue
        open_.discard(key)
        out[key] = _container_digest(v, children, out)
    return out[id(value)].hex()


import hashlib as _hashlib


def _sha(data):
    return _hashlib.sha256(data).digest()


def _leaf_form(v):
    t = type(v)
    if v is None:
        return b"N"
    if t is str:
        return b"s" + v.encode("utf-8", "surrogatepass")
    if t is bytes or t is bytearray:
        return b"b" + bytes(v)
    if t is bool or t is int or t is float or t is complex or t is _fractions.Fraction or t is _decimal.Decimal:
        return _number_form(v)
    if t is range:
        return b"r%d,%d,%d" % (len(v), v.start if len(v) else 0, v.step if len(v) > 1 else 1)
    if (t is list or t is tuple) and v and set(map(type, v)) <= {str}:
        return (b"Ls" if t is list else b"Ts") + repr(v).encode("utf-8", "surrogatepass")
    return None


def _number_form(v):
    t = type(v)
    if t is complex:
        if v.imag:
            return b"c" + _number_form(v.real) + b"," + _number_form(v.imag)
        v = v.real
    if t is float or t is complex:
        if v != v:
            return b"nan"
        if v in (float("inf"), float("-inf")):
            return b"inf" if v > 0 else b"-inf"
    if t is _decimal.Decimal and not v.is_finite():
        return b"nan" if v.is_nan() else (b"inf" if v > 0 else b"-inf")
    q = _fractions.Fraction(v)
    if q.denominator == 1:
        return b"i" + format(q.numerator, "x").encode()
    return b"q%x/%x" % (q.numerator, q.denominator)


_SEQ_TAG = {list: b"L", tuple: b"T", _collections.deque: b"Q"}


def _all_strings(row):
    return bool(row) and set(map(type, row)) <= _STR_ONLY


_STR_ONLY = {str}


def _rows_of_strings(v):
    """The digest of a list, tuple or deque whose items are all non-empty tuples (or all lists) of
    strings: their text in chunks, so a million rows digest in C; None for anything else. Two such
    values are equal exactly when their texts are."""
    if type(v) not in _SEQ_TAG or not v:
        return None
    kinds = set(map(type, v))
    if kinds != {tuple} and kinds != {list}:
        return None
    if not all(map(_all_strings, v)):
        return None
    h = _hashlib.sha256(b"R" + _SEQ_TAG[type(v)] + (b"T" if kinds == {tuple} else b"L") + b"%d:" % len(v))
    items = list(v) if type(v) is not list else v
    for i in range(0, len(items), 4096):
        h.update(repr(items[i:i + 4096]).encode("utf-8", "surrogatepass"))
    return h.digest()


def _children(v):
    t = type(v)
    if t is list or t is tuple or t is _collections.deque or isinstance(v, tuple) and is_namedtuple_type(t):
        return list(v)
    if t in _DICTS:
        return list(_itertools.chain.from_iterable(v.items()))
    if t is set or t is frozenset:
        return list(v)
    raise NotData("a %s has no digest" % t.__name__)


def _container_digest(v, children, out):
    t = type(v)
    parts = [out[id(c)] for c in children]
    if t in _DICTS:
        pairs = sorted(parts[i] + parts[i + 1] for i in range(0, len(parts), 2))
        return _sha(b"D" + b"".join(pairs))
    if t is set or t is frozenset:
        return _sha(b"S" + b"".join(sorted(parts)))
    tag = b"L" if t is list else b"Q" if t is _collections.deque else b"T"
    return _sha(tag + b"%d:" % len(parts) + b"".join(parts))


# ------------------------------------------------------------------- set order
# CPython iterates a set in the order of its hash table, which depends on the table's size and on the
# history of insertions and removals, not only on the members. The sender sends the members in its
# order; when adding them in that order to a fresh set gives another order (or table), it also sends
# the table's size and where each member (and each removed-entry marker) sits, read from the table
# itself, and the receiver lays its own table out the same way. Both ends are the same CPython build
# in the same container, with the same hash seed, so each member hashes alike on both sides.
_SETOBJECT_SIZE = 200            # sizeof(PySetObject) on 64-bit CPython 3.11
_LAYOUT = _sys.version_info[:2] == (3, 11) and _sys.maxsize > 2 ** 32 and _SET_BASE - 16 == _SETOBJECT_SIZE
_OFF_FILL, _OFF_USED, _OFF_MASK, _OFF_TABLE, _OFF_FINGER = 16, 24, 32, 40, 56
_NATIVE = {}                     # ctypes and the removed-entry marker, loaded the first time a set needs them
                                 # (kept out of the zygote, whose size every fork pays for)
NATIVE_WORK = [0]                # > 0 while this codec reads or lays out a table: the candidate's audit
                                 # hook leaves the codec's own ctypes use out of what it records


def _native_work(fn):
    def run(*args):
        NATIVE_WORK[0] += 1
        try:
            return fn(*args)
        finally:
            NATIVE_WORK[0] -= 1
    run.__name__, run.__doc__ = fn.__name__, fn.__doc__
    return run


def _ctypes():
    if not _NATIVE:
        import ctypes
        _NATIVE["ctypes"] = ctypes
        probe = {1 << 70}
        probe.discard(1 << 70)
        _NATIVE["dummy"] = next(k for k in _entries(probe)[1][0::2] if k)
    return _NATIVE["ctypes"]


def _dummy():
    _ctypes()
    return _NATIVE["dummy"]


def _table(s):
    if type(s) is not set and type(s) is not frozenset:
        raise TypeError("not a set")
    c = _NATIVE.get("ctypes") or __import__("ctypes")
    mask = c.c_ssize_t.from_address(id(s) + _OFF_MASK).value
    return mask + 1, c.c_ssize_t.from_address(id(s) + _OFF_TABLE).value


def _entries(s):
    size, table = _table(s)
    c = _NATIVE.get("ctypes") or __import__("ctypes")
    return size, (c.c_ssize_t * (2 * size)).from_address(table)


@_native_work
def set_layout(s):
    """What the receiver needs beyond the members' order to iterate `s` the same way ({} when nothing)."""
    if type(s) is not set and type(s) is not frozenset:
        return {}
    items = list(s)
    rebuilt = (frozenset if type(s) is frozenset else set)(items)
    if not _LAYOUT or len(items) > 1 << 22 or (same_order(rebuilt, items)
                                              and _sys.getsizeof(rebuilt) == _sys.getsizeof(s)):
        return {}
    dummy = _dummy()
    size, entries = _entries(s)
    keys = entries[0::2]
    return {"z": size, "p": [i for i, k in enumerate(keys) if k and k != dummy],
            "d": [i for i, k in enumerate(keys) if k == dummy]}


def rebuild_set(items, layout, conv, frozen=False):
    """A set (or frozenset) of `items` that iterates in their order; noted on the conversation when it cannot."""
    try:
        s = (frozenset if frozen else set)(_ticking(items, conv))
        if layout and not same_order(s, items):
            s = _laid_out(items, layout, conv, frozen) or s
    except TypeError:
        raise NotData("unhashable set member") from None
    if len(s) != len(items):
        raise NotData("a set whose members are not distinct here")
    if not same_order(s, items):
        conv.notes.append("a set of %d members iterates in another order here than where it was built"
                          % len(items))
    return s


@_native_work
def _laid_out(items, layout, conv, frozen):
    size, slots, dummies = layout.get("z"), layout.get("p"), layout.get("d") or []
    if (not _LAYOUT or type(size) is not int or size < 8 or size & (size - 1) or size > 1 << 24
            or type(slots) is not list or len(slots) != len(items) or type(dummies) is not list
            or not all(type(i) is int and 0 <= i < size for i in slots + dummies)
            or len(set(slots + dummies)) != len(slots) + len(dummies)):
        return None
    s = frozenset(items) if frozen else _with_table(items, size, conv)
    if s is None or _table(s)[0] != size:
        return None
    _write_table(s, items, slots, dummies)
    if same_order(s, items) and all(x in s for x in items):
        return s
    return None


@_native_work
def _relay(obj, order, layout):
    """A set changed in place, laid out as the other end has it (when its table has that size)."""
    if _table(obj)[0] == layout.get("z"):
        _write_table(obj, order, layout["p"], layout.get("d") or [])


def _with_table(items, size, conv):
    """A set holding exactly `items` (and removed-entry markers) whose table has `size` slots."""
    s = set(_ticking(items, conv))
    if _table(s)[0] == size or size == 8:
        return s
    merged = items[: size // 2 - 1]
    placeholders = [(1 << 50) + i for i in range(max(0, max(5, size // 4 + 1) - len(merged)))]
    if len(merged) + len(placeholders) >= size // 2:
        return None
    s = set()
    s.update(set(merged) | set(placeholders))     # presized by the merge: a table of `size` slots
    for x in items[len(merged):]:
        s.add(x)
    for p in placeholders:
        s.discard(p)
    return s


def _write_table(s, items, slots, dummies):
    """Each member (the same objects, so no reference changes) at its slot; the markers at theirs."""
    size, entries = _entries(s)
    new = [0] * (2 * size)
    for x, i in zip(items, slots):
        new[2 * i] = id(x)
        new[2 * i + 1] = hash(x)
    dummy = _dummy()
    for i in dummies:
        new[2 * i] = dummy
        new[2 * i + 1] = -1
    entries[:] = new
    c = _ctypes()
    c.c_ssize_t.from_address(id(s) + _OFF_FILL).value = len(items) + len(dummies)
    c.c_ssize_t.from_address(id(s) + _OFF_USED).value = len(items)
    c.c_ssize_t.from_address(id(s) + _OFF_FINGER).value = 0


def _one_by_one(items, size, conv):
    s = set()
    add = s.add
    for i, x in enumerate(items):
        if i & 255 == 0 and conv is not None:
            conv.ends.tick()
        add(x)
    return s


def _ticking(items, conv):
    for i, x in enumerate(items):
        if i & 255 == 0:
            conv.ends.tick()
        yield x
