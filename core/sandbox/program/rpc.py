"""Calls across the call pipe, in both directions: requests, replies, exceptions and handles.

Part of the sandbox worker program (see worker.py): the parts in core/sandbox/program/ are sent into
the container as one source text, in the order docker_runner.PROGRAM_PARTS gives, and share one
namespace there. Standard library only.

A request is {"q": op, "t": target, ...}; the target is {"n": name} (a top-level name of the
candidate program) or {"h": k} (the receiver's handle k). A reply is {"v": value}, {"x":
exception} or {"stop": 1}, with "s": the states of the objects the request delivered that the call
changed. While an end waits for its reply it serves the other end's requests (callbacks), nested
up to MAX_DEPTH, within the same conversation.
"""

import operator as _op

OPS_WITH_VALUE = {"getitem", "contains", "delitem", "eq", "ne", "lt", "le", "gt", "ge"}
_COMPARE = {"eq": _op.eq, "ne": _op.ne, "lt": _op.lt, "le": _op.le, "gt": _op.gt, "ge": _op.ge}


class Handles:
    """This end's objects handed to the other end (by number), and proxies for the other end's."""

    def __init__(self, proxy_class):
        self.table = {}
        self.index = {}
        self.proxies = {}
        self.proxy_class = proxy_class

    def export(self, obj):
        k = self.index.get(id(obj))
        if k is None:
            if len(self.table) >= MAX_HANDLES:
                raise NotData("more than %d objects handed across" % MAX_HANDLES)
            k = len(self.table)
            self.table[k] = obj
            self.index[id(obj)] = k
        return k

    def local(self, k):
        obj = self.table.get(k, _MISSING)
        if obj is _MISSING:
            raise NotData("a handle this end never gave")
        return obj


_MISSING = object()


class Endpoint:
    """One end of the call pipe: its handles, its conversations, and the loop that waits for a reply.

    Subclasses give `send(frame)`, `recv() -> frame`, `serve_target(target)`, `allowed(op, name,
    value)` and `exported(obj)`; `tick()` may raise to stop work that is taking too long.
    """

    name_builtins = False           # send builtin functions and methods by name (the grader does)
    accept_builtins = False         # take them by name (the candidate does)

    def __init__(self, proxy_class):
        self.handles = Handles(proxy_class)
        self.depth = 0               # requests of this end waiting for their reply
        self.active = 0              # calls and serves in progress: the conversation lives while > 0
        self.callbacks = 0
        self.conv = None
        self.top = ()                # numbers the conversation's first request delivered
        self.notes = []

    # ---- hooks the codec calls
    def export(self, obj):
        return self.handles.export(self.exported(obj))

    def proxy(self, k):
        p = self.handles.proxies.get(k)
        if p is None:
            p = self.handles.proxies[k] = self.handles.proxy_class(self, k)
        return p

    def own(self, obj):
        """The wire node for a proxy of the other end's object going back to it ({"L": k}), else None."""
        if type(obj) is self.handles.proxy_class and object.__getattribute__(obj, "_pg_end") is self:
            return {"L": object.__getattribute__(obj, "_pg_key")}
        return None

    def named(self, name):
        raise NotData("a name where none is expected")

    def digested(self, body):
        raise NotData("a digest where none is expected")

    def local(self, k):
        return self.handles.local(k)

    def tick(self):
        pass

    # ---- conversations
    def conversation(self):
        """The conversation in progress, or a new one: a top-level call and its callbacks share one."""
        if not self.active:
            self.conv = Conversation(self)
            self.callbacks = 0
        return self.conv

    def request_frame(self, conv, target, op, args=None, kwargs=None, name=None, value=None):
        """The request as wire JSON, and the numbers it delivers."""
        delivered = []
        frame = {"q": op, "t": target}
        if op == "call":
            frame["a"] = conv.encode(list(args or ()), delivered)
            frame["k"] = conv.encode(kwargs, delivered) if kwargs else None
        elif op in ("getattr", "setattr", "delattr"):
            frame["n"] = name
            if op == "setattr":
                frame["a"] = conv.encode(value, delivered)
        elif op in OPS_WITH_VALUE or op == "setitem":
            frame["a"] = conv.encode(value, delivered)
        return frame, delivered

    def call(self, target, op, **kw):
        """Ask the other end; serve its requests meanwhile; return what it answered (or raise it)."""
        conv = self.conversation()
        self.active += 1
        try:
            frame, delivered = self.request_frame(conv, target, op, **kw)
            if self.active == 1:
                self.top = tuple(delivered)
            return self.answer(conv, self.exchange(frame))
        finally:
            self.active -= 1

    def exchange(self, frame):
        if self.depth >= MAX_DEPTH:
            raise NotData("calls nested more than %d deep across the boundary" % MAX_DEPTH)
        self.depth += 1
        try:
            self.send(frame)
            while True:
                got = self.recv()
                if type(got) is not dict:
                    raise NotData("a frame that is not an object")
                if "q" not in got:
                    return got
                self.callbacks += 1
                if self.callbacks > MAX_CALLBACKS:
                    raise NotData("more than %d calls back within one call" % MAX_CALLBACKS)
                self.send(self.serve(got))
        finally:
            self.depth -= 1

    def answer(self, conv, reply):
        """The value a reply carries, after writing the states it carries into this end's objects."""
        if "v" in reply:
            value = conv.decode(reply["v"])
            conv.apply(reply.get("s") or [])
            return value
        conv.apply(reply.get("s") or [])
        if "x" in reply:
            raise self.exception(conv, reply["x"])
        if reply.get("stop"):
            raise StopIteration
        raise NotData("a reply with no value")

    # ---- serving the other end
    def serve(self, frame):
        """One request from the other end, as a reply frame (its exceptions included, never raised)."""
        conv = self.conversation()
        self.active += 1
        try:
            return self._serve(conv, frame)
        finally:
            self.active -= 1

    def _serve(self, conv, frame):
        delivered = []
        try:
            value = self.perform(conv, frame, delivered)
        except StopIteration:
            reply = {"stop": 1}
        except NotData:
            raise
        except Exception as exc:
            reply = {"x": self.describe(conv, exc)}
        else:
            reply = {"v": self.encode_value(conv, value)}
        reply["s"] = conv.changed(delivered if self.active == 1 else delivered + list(self.top))
        return reply

    def encode_value(self, conv, value):
        return conv.encode(value)

    def perform(self, conv, frame, delivered):
        op = frame.get("q")
        target = self.serve_target(frame.get("t"))
        args = frame.get("a")
        if op == "call":
            a = conv.decode(args, delivered) if args is not None else []
            k = conv.decode(frame["k"], delivered) if frame.get("k") is not None else {}
            if type(a) is not list or type(k) is not dict or not all(type(x) is str for x in k):
                raise NotData("malformed call")
            self._first(delivered)
            self.allowed(op, None, target)
            return target(*a, **k)
        if op in ("getattr", "setattr", "delattr"):
            name = frame.get("n")
            if type(name) is not str:
                raise NotData("malformed attribute")
            self.allowed(op, name, target)
            if op == "getattr":
                return self.allowed("result", name, getattr(target, name))
            if op == "delattr":
                return delattr(target, name)
            value = conv.decode(args, delivered)
            self._first(delivered)
            return setattr(target, name, value)
        value = conv.decode(args, delivered) if args is not None else None
        self._first(delivered)
        self.allowed(op, None, target)
        return _perform_simple(op, target, value)

    def _first(self, delivered):
        """The first request of a conversation: its objects are synced on every reply within it."""
        if self.active == 1:
            self.top = tuple(delivered)

    # ---- exceptions
    def describe(self, conv, exc):
        t = type(exc)
        bases = [c.__name__ for c in t.__mro__ if issubclass(c, BaseException)
                 and getattr(_builtins, c.__name__, None) is c]
        try:
            text = str(exc)[:1000]
        except Exception:
            text = "<unprintable %s>" % t.__name__
        try:
            args = conv.encode(list(exc.args))
        except NotData:
            raise
        except Exception:
            args = None
        return {"t": t.__name__[:200], "b": bases, "a": args, "m": text, "c": classify_exception(exc)}

    def exception(self, conv, info):
        """The other end's exception as one this end can raise: its builtin bases, its args, its text."""
        if type(info) is not dict or type(info.get("b")) is not list:
            raise NotData("a malformed exception")
        bases = [getattr(_builtins, b, None) for b in info["b"] if type(b) is str]
        bases = [b for b in bases if type(b) is type and issubclass(b, BaseException)]
        name = str(info.get("t") or "Exception")[:200]
        text = str(info.get("m") or "")
        args = conv.decode(info["a"]) if info.get("a") is not None else [text]
        cls = bases[0] if bases and bases[0].__name__ == name else _synthesized(name, bases)
        try:
            exc = cls(*args) if type(args) is list else cls(text)
        except Exception:
            exc = cls(text)
        if cls not in bases:
            exc.__pg_text__ = text
        return exc


_SYNTHESIZED = {}


def _synthesized(name, bases):
    """A class named like the other end's, under its nearest builtin exception classes."""
    direct = []
    for b in bases:
        if not any(issubclass(d, b) for d in direct):
            direct.append(b)
    if not direct:
        direct = [Exception]
    if not name.isidentifier():
        name = "RaisedException"
    key = (name, tuple(direct))
    cls = _SYNTHESIZED.get(key)
    if cls is None:
        body = {"__module__": "candidate", "__str__": _exception_text}
        try:
            cls = type(name, tuple(direct), body)
        except TypeError:        # builtin bases whose layouts conflict: the nearest one only
            cls = type(name, (direct[0],), body)
        _SYNTHESIZED[key] = cls
    return cls


def _exception_text(self):
    text = getattr(self, "__pg_text__", None)
    return text if text is not None else BaseException.__str__(self)


def classify_exception(exc):
    if isinstance(exc, SyntaxError):
        return "syntax_error"
    if isinstance(exc, MemoryError):
        return "memory_exceeded"
    if isinstance(exc, (SystemExit, KeyboardInterrupt, GeneratorExit)):
        return "premature_exit"
    return "runtime_error"


def _perform_simple(op, target, value):
    if op == "iter":
        return iter(target)
    if op == "next":
        return next(target)
    if op == "len":
        return len(target)
    if op == "bool":
        return bool(target)
    if op == "repr":
        return repr(target)[:10000]
    if op == "str":
        return str(target)[:100000]
    if op == "hash":
        return hash(target)
    if op == "getitem":
        return target[value]
    if op == "setitem":
        if type(value) is not list or len(value) != 2:
            raise NotData("malformed setitem")
        target[value[0]] = value[1]
        return None
    if op == "delitem":
        del target[value]
        return None
    if op == "contains":
        return value in target
    if op in _COMPARE:
        return _COMPARE[op](target, value)
    raise NotData("unknown operation %r" % (str(op)[:20],))
