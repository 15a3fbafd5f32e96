"""The grader's side of a split test: it follows the plan while the candidate's process runs the
test, and decides every assertion site from the process's reports (grading protocol 3).

The grader computes the expected values itself, runs the static statements in order, and requires
every site the plan says must run, in order; a report for a site that cannot run there, a test
that ends early, or a wrong value fails the suite at that point, as the failing assertion would
have ended the test in CPython. Nothing is ever sent back to the process. Standard library only.
"""

import builtins
import collections
import decimal

from . import sites as S
from .oracles import GRADER_FUNCTIONS
from .values import NotPlain, decode


class SuiteFailed(Exception):
    """The suite's verdict is a failure: `cls` is the failure class, `fields` the result's extra fields."""

    def __init__(self, cls, detail, **fields):
        Exception.__init__(self, cls, detail)
        self.cls, self.detail, self.fields = cls, detail, fields


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


class TestRaised(Exception):
    """A static statement of the test raised in the grader (it would have in the process too)."""


class Shadow:
    """One run of a split test's plan against one process's reports.

    `reports()` returns the process's next frame (it raises when the process is gone or out of
    budget); `charged(fn)` runs fn under the candidate's remaining wall budget (deciding a value the
    candidate chose costs its time); `lines` are the test's source lines, for details."""

    def __init__(self, split, reports, charged, lines, functions=None):
        self.split, self.reports, self.charged, self.lines = split, reports, charged, lines
        self.functions = {**GRADER_FUNCTIONS, **(functions or {})}
        self.events = collections.deque()
        self.counts = {"outside": 0, "visible": 0, "in_process": 0}
        self.floating = 0
        self.last_value = None
        self.notes = []             # what the attempt should say about how values were compared

    # ---- the run --------------------------------------------------------------------
    def run(self):
        env = {"__builtins__": builtins, "__name__": "__candidate__", **self.functions}
        try:
            self.steps(self.split.plan, env)
        except TestRaised as exc:
            raise SuiteFailed("wrong_answer", str(exc), exc_type=type(exc.__cause__).__name__)
        event = self.next_event()
        if event.get("k") != "end":
            self.unexpected(event, "the end of the test")
        return self.integrity()

    def integrity(self):
        """How this verdict was reached: decisions made outside the process and in it, and whether the
        grader knew every site that had to run."""
        control = "grader" if self.split.regions == 0 and self.floating == 0 and self.counts["in_process"] == 0 \
            else "process"
        return {**self.counts, "control": control}

    # ---- the plan -------------------------------------------------------------------
    def steps(self, plan, env):
        for step in plan:
            getattr(self, "_" + step[0])(step, env)

    def _site(self, step, env):
        event = self.next_event()
        if event.get("i") != step[1] or event.get("k") not in ("h", "t", "x"):
            self.unexpected(event, self.where(step[1]))
        self.decide(event, env)

    def _check(self, step, env):
        site = self.split.sites[step[1]]
        if not self.static(lambda: eval(site.code, env), site.line):
            self.fail_site(site, None, env)
        self.counts["outside"] += 1

    def _exec(self, step, env):
        self.static(lambda: exec(step[1], env), None)

    def _for(self, step, env):
        _tag, target, iterable, body, orelse = step
        for item in self.static(lambda: eval(iterable, env), None):
            env["__pg_item__"] = item
            self.static(lambda: exec(target, env), None)
            try:
                self.steps(body, env)
            except _Break:
                break
            except _Continue:
                continue
        else:
            self.steps(orelse, env)

    def _while(self, step, env):
        _tag, test, body, orelse = step
        while self.static(lambda: eval(test, env), None):
            try:
                self.steps(body, env)
            except _Break:
                break
            except _Continue:
                continue
        else:
            self.steps(orelse, env)

    def _if(self, step, env):
        _tag, test, body, orelse = step
        self.steps(body if self.static(lambda: eval(test, env), None) else orelse, env)

    def _region(self, step, env):
        ids = step[1]
        while True:
            event = self.peek_event()
            if event.get("k") not in ("h", "t", "x") or event.get("i") not in ids:
                return
            self.decide(self.next_event(), env)

    def _call(self, step, env):
        self.steps(step[1], dict(env))

    def _break(self, step, env):
        raise _Break()

    def _continue(self, step, env):
        raise _Continue()

    def static(self, fn, line):
        """The test's own computation, in the grader; what it raises, the test would have raised."""
        try:
            return fn()
        except (_Break, _Continue, SuiteFailed):
            raise
        except Exception as exc:
            raise TestRaised("the test raised %s: %s" % (type(exc).__name__, str(exc)[:200])) from exc

    # ---- reports -------------------------------------------------------------------
    def next_event(self):
        """The next report that is not a floating site's (those are decided as they come)."""
        while True:
            event = self._take()
            site = self.split.sites.get(event.get("i")) if event.get("k") in ("h", "t", "x") else None
            if site is not None and site.place == "floating":
                self.floating += 1
                self.decide(event, None)
                continue
            return event

    def peek_event(self):
        event = self.next_event()
        self.events.appendleft(event)
        return event

    def _take(self):
        while not self.events:
            frame = self.reports()
            if type(frame) is not dict:
                raise SuiteFailed("tampering", "a report that is not an object")
            if frame.get("k") == "t" and type(frame.get("i")) is list:
                if len(frame["i"]) > HELD_BATCH_MAX:      # the reporter sends at most 64 at a time
                    raise SuiteFailed("tampering", "a batch of %d held assertions in one report" % len(frame["i"]))
                self.events.extend({"k": "t", "i": i} for i in frame["i"])
            else:
                self.events.append(frame)
        return self.events.popleft()

    # ---- deciding one site -----------------------------------------------------------------
    def decide(self, event, env):
        site = self.split.sites.get(event.get("i"))
        if site is None:
            self.unexpected(event, "a report of a site the test has")
        kind = event["k"]
        if kind == "x":
            raise SuiteFailed("not_plain_data", "line %d: a %s object was compared with plain data, and its "
                              "comparison is code that is not the test's, so it is not believed"
                              % (site.line, str(event.get("t"))[:80]), **self.place_of(site))
        if site.kind == S.IN_PROCESS:
            if kind != "t":
                self.unexpected(event, "an assertion decided in the process")
            self.counts["in_process"] += 1
            return
        if kind != "h" or type(event.get("v")) is not list or len(event["v"]) != len(site.modes):
            self.unexpected(event, "the values of the assertion at line %d" % site.line)
        values = self.charged(lambda: [self.value_of(t, site) for t in event["v"]])
        ok = self.charged(lambda: self.holds(site, values, env, event.get("ctx")))
        self.counts["outside" if site.kind == S.HIDDEN else "visible"] += 1
        if not ok:
            self.fail_site(site, values, env)

    def value_of(self, tape, site):
        if type(tape) is not list or not tape:
            self.unexpected({"k": "h", "i": site.id}, "a value")
        if type(tape[0]) is list and tape[0] and tape[0][0] == "Z":
            big = TooLargeValue(*tape[0][1:4])
            if len(self.notes) < 5:
                self.notes.append("line %d: %r" % (site.line, big))
            return big
        try:
            value = decode(tape)
        except Exception:
            raise SuiteFailed("not_plain_data", "line %d: a value that could not be decoded" % site.line,
                              **self.place_of(site)) from None
        self.last_value = value
        return value

    def holds(self, site, values, env, context):
        scope = dict(env) if env is not None else {"__builtins__": builtins, **self.functions}
        for i, value in enumerate(values):
            scope[S.HOLE_NAME % i] = value
        code = site.code
        try:
            if context is not None:
                with decimal.localcontext(_context(context)):
                    return bool(eval(code, scope))
            return bool(eval(code, scope))
        except NotPlain as exc:
            raise SuiteFailed("not_plain_data", "line %d: the candidate's answer is a %s object, not plain data; "
                              "the test compares it with a value the candidate never saw, so its own comparison "
                              "is not called" % (site.line, exc.args[0]), **self.place_of(site)) from None
        except Exception as exc:
            raise SuiteFailed("wrong_answer", "the test raised %s at line %d: %s" % (
                type(exc).__name__, site.line, str(exc)[:200]), exc_type=type(exc).__name__,
                **self.place_of(site)) from None

    def fail_site(self, site, values, env):
        detail = "assertion failed at line %d: %s" % (site.line, site.source[:200])
        if site.message:
            detail += " (%s)" % site.message[:200]
        fields = self.place_of(site)
        expected = self.expected_value(site, env)
        if expected is not None:
            fields["expected"] = expected
            detail += "; expected %s" % expected
        if values:
            fields["returned"] = short(values[0])
            detail += "; the candidate's value: %s" % fields["returned"]
        raise SuiteFailed("wrong_answer", detail, exc_type="AssertionError", **fields)

    def expected_value(self, site, env):
        if site.expected is None or env is None:
            return None
        try:
            return short(eval(compile(_expr(site.expected), "<test>", "eval"), dict(env)))
        except Exception:
            return None

    def place_of(self, site):
        return {"line": site.line, "source": site.source[:300]}

    def where(self, site_id):
        site = self.split.sites[site_id]
        return "the assertion at line %d" % site.line

    def unexpected(self, event, wanted):
        kind = event.get("k")
        if kind == "end":
            raise SuiteFailed("premature_exit", "the test ended before %s ran" % wanted)
        if kind == "exc":
            raise exception_failure(event)
        site = self.split.sites.get(event.get("i"))
        got = "a report for line %d" % site.line if site is not None else "a report of no site of the test"
        raise SuiteFailed("tampering", "%s came where %s was due" % (got, wanted))


class TooLargeValue:
    """An answer too large to send: compared with == and != by digest, nothing else."""

    def __init__(self, value_digest, type_name, why):
        self.digest, self.type_name, self.why = str(value_digest), str(type_name)[:50], str(why)[:200]

    def __eq__(self, other):
        from .values import TooLarge, digest
        try:
            return digest(other) == self.digest
        except TooLarge:
            return False

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = None

    def __repr__(self):
        return "<a %s too large to send (%s), compared by digest>" % (self.type_name, self.why)

    def __getattr__(self, name):
        raise NotPlain("%s too large to send, used beyond == and !=" % self.type_name)


HELD_BATCH_MAX = 256
PROCESS_CLASSES = frozenset({"runtime_error", "memory_exceeded", "premature_exit", "wrong_answer"})


def exception_failure(event):
    """The test raised in the process: the failure it stands for."""
    cls = str(event.get("c") or "")
    if cls not in PROCESS_CLASSES:       # the process names the failure; it can never name the evaluator's
        cls = "runtime_error"
    detail = "%s: %s" % (str(event.get("t"))[:100], str(event.get("m"))[:300])
    line = event.get("line")
    fields = {"exc_type": str(event.get("t"))[:100]}
    if type(line) is int:
        fields["line"] = line
        fields["source"] = str(event.get("src") or "")[:300]
        detail += " (line %d of the test)" % line
    return SuiteFailed(cls, detail, **fields)


def short(value):
    from .describe import short_repr
    return short_repr(value)


def _expr(node):
    import ast
    return ast.fix_missing_locations(ast.Expression(body=node))


def _context(fields):
    prec, rounding, emin, emax, capitals, clamp = fields
    return decimal.Context(prec=int(prec), rounding=str(rounding), Emin=int(emin), Emax=int(emax),
                           capitals=int(capitals), clamp=int(clamp))

