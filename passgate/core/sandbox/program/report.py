"""In the candidate's process: what the split test calls at its assertion sites (grading protocol 3).

`holes(site, *values)` reports the values of a hidden site's holes; the grader holds the expected
values and decides. `truth(site, value)` reports only a value's truth. `held(site, value)` is an
assertion decided here, as written: its truth is returned to the `assert`, and a held one is
reported (so the grader can tell the sites that ran). `compare(site, op, a, b)` is such an
assertion's comparison, with one check CPython does not make: an object whose comparison is code
that is not the test's, compared with plain data, is not believed (the grader is told, and fails
the candidate as `not_plain_data`). Nothing is ever sent back: the process learns nothing of what
the grader decided. Everything here was bound when the module was imported, before any program ran.
Standard library only.
"""

import decimal
import operator
import os
import threading
from builtins import (BaseException as _BaseException, bool as _bool, frozenset as _frozenset,
                      getattr as _getattr, id as _id, len as _len, list as _list, str as _str, type as _type)

from .audit import TAMPER
from .frames import FrameTooLarge, frame_bytes, write_all
from .values import TooLarge, digest, encode

_OPS = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt,
        ">=": operator.ge, "in": lambda a, b: a in b, "not in": lambda a, b: a not in b}
# the method a non-plain operand decides a comparison with: (as the left operand, as the right one)
_DECIDERS = {"==": ("__eq__", "__eq__"), "!=": ("__ne__", "__ne__"), "<": ("__lt__", "__gt__"),
             "<=": ("__le__", "__ge__"), ">": ("__gt__", "__lt__"), ">=": ("__ge__", "__le__"),
             "in": ("__eq__", "__contains__"), "not in": ("__eq__", "__contains__")}
_getpid = os.getpid
_getcontext = decimal.getcontext
_Decimal = decimal.Decimal
_SCALAR = _frozenset((int, float, str, bool, type(None)))
_HELD_BATCH = 64


class Reporter:
    """One suite's reports, written to the grader's descriptor frame by frame."""

    def __init__(self, fd, test_code):
        self.fd = fd
        self.pid = _getpid()
        self.lock = threading.Lock()
        self.held_sites = []                        # in-process sites that held, sent with the next frame
        self.test_codes = _code_ids(test_code)      # the test's own functions decide comparisons they define
        self.tamper_sent = _len(TAMPER)

    # ---- the names the split test calls ----------------------------------------------
    def holes(self, site, *values):
        frame = self._with_tamper({"k": "h", "i": site, "v": [self._tape(v) for v in values]})
        context = self._decimal_context(values)
        if context is not None:
            frame["ctx"] = context
        try:
            data = frame_bytes(frame)
        except FrameTooLarge as why:
            frame["v"] = [self._by_digest(v, why) for v in values]
            data = frame_bytes(frame)
        self.send_bytes(data)

    def truth(self, site, value):
        self.send({"k": "h", "i": site, "v": [[_bool(value)]]})

    def held(self, site, value):
        truth = _bool(value)
        if truth:
            self.held_sites.append(site)
            if _len(self.held_sites) >= _HELD_BATCH:
                self.send(None)
        return truth

    def compare(self, site, op, a, b):
        untrusted = self._untrusted(op, a, b)
        if untrusted is not None:
            self.send({"k": "x", "i": site, "t": untrusted})
        return _OPS[op](a, b)

    # ---- frames ------------------------------------------------------------------------
    def send(self, frame):
        self.send_bytes(frame_bytes(self._with_tamper(frame)) if frame is not None else b"")

    def _with_tamper(self, frame):
        """Tripwires seen since the last report ride along: a failing site may be the last report the
        grader reads before it ends the candidate."""
        if _len(TAMPER) > self.tamper_sent:
            frame["tw"] = _list(TAMPER)
            self.tamper_sent = _len(TAMPER)
        return frame

    def send_bytes(self, data):
        """Write a frame (after any held sites), whole, from this process only: a child the candidate
        forked runs on without reporting (its assertions cannot change the test's outcome in CPython)."""
        if _getpid() != self.pid:
            return
        with self.lock:
            if self.held_sites:
                data = frame_bytes({"k": "t", "i": self.held_sites}) + data
                self.held_sites = []
            if data:
                write_all(self.fd, data)

    def finish(self, frame):
        self.send(frame)

    # ---- values ------------------------------------------------------------------------
    def _tape(self, value):
        try:
            return encode(value)
        except TooLarge as why:
            return self._by_digest(value, why)

    @staticmethod
    def _by_digest(value, why):
        try:
            return [["Z", digest(value), _type(value).__name__, _str(why)[:200]]]
        except TooLarge as reason:
            return [["O", "%s too large to send (%s)" % (_type(value).__name__, _str(reason)[:100])]]

    @staticmethod
    def _decimal_context(values):
        if not any(_type(v) is _Decimal or _type(v) in (list, tuple) and any(_type(x) is _Decimal for x in v)
                   for v in values):
            return None
        c = _getcontext()
        return [c.prec, c.rounding, c.Emin, c.Emax, c.capitals, c.clamp]

    # ---- the trust check ------------------------------------------------------------------
    def _untrusted(self, op, a, b):
        """The type name of an operand whose comparison with plain data is code that is not the test's."""
        plain_a, plain_b = _plain(a), _plain(b)
        if plain_a == plain_b:
            return None
        left = not plain_a
        other = a if left else b
        method = _DECIDERS[op][0 if left else 1]
        decider = _resolve(_type(other), method)
        code = _getattr(decider, "__code__", None)
        if code is None or _id(code) in self.test_codes:
            return None                             # C code of a type, or the test's own method
        return _type(other).__qualname__


def _plain(value):
    if _type(value) in _SCALAR:
        return True
    try:
        tape = encode(value, 200_000)
    except TooLarge:
        return True
    except _BaseException:
        return False
    for item in tape:
        if _type(item) is _list and item[0] == "O":
            return False
    return True


def _resolve(t, name):
    for klass in t.__mro__:
        if name in klass.__dict__:
            return klass.__dict__[name]
    return None


def _code_ids(code):
    out, stack = set(), [code]
    while stack:
        c = stack.pop()
        out.add(_id(c))
        stack.extend(k for k in c.co_consts if _type(k) is _type(code))
    return _frozenset(out)
