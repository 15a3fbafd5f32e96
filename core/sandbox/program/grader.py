"""The grader: runs a task's trusted test code against proxies into the candidate process, and,
when asked, the reference harness's single-process program beside it (the cross-check).

Part of the sandbox worker program (see worker.py): the parts in core/sandbox/program/ are sent into
the container as one source text, in the order docker_runner.PROGRAM_PARTS gives, and share one
namespace there. Standard library only.
"""

import reprlib as _reprlib

_BUILTIN_NAMES = frozenset(dir(_builtins))


def _alarm(_sig, _frame):
    raise GraderTimeout()


class _SafeRepr(_reprlib.Repr):
    """A short repr of what the candidate returned that never calls into the candidate."""

    def __init__(self):
        _reprlib.Repr.__init__(self)
        self.maxstring, self.maxother, self.maxlist, self.maxtuple, self.maxdict, self.maxset = 120, 80, 12, 12, 8, 12
        self.maxlevel = 4

    def repr_instance(self, x, level):
        if type(x) is RemoteObject:
            return "<an object of the candidate's>"
        try:
            return _reprlib.Repr.repr_instance(self, x, level)
        except BaseException:
            return "<%s>" % type(x).__name__


_SHORT = _SafeRepr()


def short_repr(value):
    try:
        return _SHORT.repr(value)[:300]
    except BaseException:
        return "<%s>" % type(value).__name__


class Grader:
    def __init__(self):
        self.tasks = {}
        self.caches = {}
        self.zsock = None
        self.zpid = None

    def start_zygote(self):
        # one message per send: spawn requests, candidates handed over with their pipes, exit records
        parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        pid = os.fork()
        if pid == 0:
            parent.close()
            os.closerange(3, child.fileno())
            os.closerange(child.fileno() + 1, 65536)
            zygote_main(child)
            os._exit(0)
        child.close()
        self.zsock, self.zpid = parent, pid

    def add_task(self, req):
        compiled, sources = {}, {}
        for key in ("test_setup", "public_tests", "protected_tests"):
            src = req.get(key) or ""
            sources[key] = src
            compiled[key] = compile(src, "<%s %s>" % (req["task_id"], key), "exec") if src.strip() else None
        names = set()
        for key in ("public_tests", "protected_tests"):
            if compiled[key] is not None:
                names |= _code_names(compiled[key])
        self.tasks[req["key"]] = {"entry_point": req["entry_point"], "code": compiled, "source": sources,
                                  "names": names, "task_id": req["task_id"]}
        self.caches.setdefault(req["key"], {})

    def evaluate(self, req, say=None):
        """Grade one program: the protected suite first (the headline), then the public one.

        Each suite has its own CPU and wall budget; the public suite reuses the candidate process
        when it is still alive, so a failure there never changes the protected verdict. When the
        protected suite times out and a run alone will re-check it (the request's
        `public_after_protected_timeout` false), that run replaces this attempt, so the public suite
        is left to it rather than spending a second budget here. A `classic` program runs whole in a
        process of its own afterwards. `say(note)` sends a line ahead of the result: after a protected
        timeout, so the controller can read how much real CPU the host gave that suite.
        """
        task = self.tasks[req["task"]]
        limits = req["limits"]
        t0 = time.monotonic()
        acc = _Accumulated()
        ch = None
        for name in ("protected", "public"):
            verdict, ch = self._suite_in_turn(name, task, req, limits, ch, acc)
            acc.suites[name] = verdict
            if name == "protected" and verdict.get("class") == "timeout" and say is not None:
                say({"suite": "protected", "class": "timeout"})     # the host's CPU so far is this suite's
        acc.t_suites = time.monotonic() - t0
        if ch is not None:
            acc.finish(ch)
        if req.get("classic"):
            acc.classic = self._classic(req["classic"], limits, acc)
        return acc.result(time.monotonic() - t0)

    def _suite_in_turn(self, name, task, req, limits, ch, acc):
        code = task["code"][name + "_tests"]
        if code is None:
            return {"status": "not_run", "class": None, "detail": "no tests"}, ch
        if ch is not None and ch.load_failure is not None:
            return dict(ch.load_failure), ch
        if name == "public" and not req.get("public_after_protected_timeout", True) \
                and acc.suites["protected"].get("class") == "timeout":
            return {"status": "not_run", "class": None,
                    "detail": "left to the re-check of the timeout, run alone"}, ch
        if ch is None or ch.gone is not None:
            if ch is not None:
                acc.finish(ch)
            ch = Channel(self.zsock, limits)
        ch.begin_suite()
        verdict = self._run_suite(ch, task, name, req)
        verdict["cpu_s"] = round(ch.suite_cpu(), 4)
        return verdict, ch

    def _run_suite(self, ch, task, name, req):
        code = task["code"][name + "_tests"]
        try:
            if ch.load_failure is not None:
                return dict(ch.load_failure)
            if not ch.loaded and not ch.load(req["program"]):
                ch.load_failure = _suite_fail(ch.gone.reason, ch.gone.detail, getattr(ch.gone, "exc_type", None), ch)
                return dict(ch.load_failure)
            ns = self._namespace(ch, task, req)
            # trusted test code gets a generous budget of its own (expected outputs can take minutes)
            signal.signal(signal.SIGALRM, _alarm)
            signal.setitimer(signal.ITIMER_REAL, ch.wall_budget + GRADER_BUDGET_S)
            try:
                exec(code, ns)
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            return {"status": "passed", "class": None, "detail": ""}
        except BaseException as exc:
            return self._suite_exception(ch, task, name, exc)

    def _namespace(self, ch, task, req):
        """The test's globals: test_setup's names, then the candidate's top-level names as proxies.

        A candidate's name never stands in for one of test_setup's or for a builtin the test calls
        (`abs`, `len`, `isinstance`): in one process that shadowing could pass a wrong answer."""
        ns = {"__name__": "__grader__", "__pg_cache__": self.caches[req["task"]]}
        if task["code"]["test_setup"] is not None:
            exec(task["code"]["test_setup"], ns)
        entry = NameProxy(ch, task["entry_point"])
        for name in task["names"] & ch.names:
            if name == task["entry_point"] or (name not in ns and name not in _BUILTIN_NAMES):
                ns[name] = NameProxy(ch, name)
            elif name in _BUILTIN_NAMES and name not in ns:
                note = "the program's %s shadows the builtin the test calls; the test kept the builtin" % name
                if note not in ch.notes:
                    ch.notes.append(note)
        ns[task["entry_point"]] = entry
        ns["candidate"] = entry
        return ns

    def _suite_exception(self, ch, task, name, exc):
        if isinstance(exc, CandidateGone):
            return _suite_fail(exc.reason, exc.detail, getattr(exc, "exc_type", None), ch)
        if isinstance(exc, CandidateExited):
            return _suite_fail("premature_exit", str(exc)[:300], "SystemExit", ch)
        if isinstance(exc, GraderTimeout):
            # the trusted test code itself overran its allowance: the evaluator's fault, not the model's
            try:
                ch.kill("infra_error", "the grader's own test code ran past its %.0f s allowance" % GRADER_BUDGET_S)
            except CandidateGone as gone:
                return {"status": "failed", "class": "infra_error", "detail": gone.detail}
        if isinstance(exc, GradingUnsupported):
            return {"status": "failed", "class": "infra_error", "detail": "grader: %s" % exc}
        if isinstance(exc, TooLargeUsed):
            return _suite_fail("not_plain_data", str(exc)[:300], None, ch)
        where = _failing_line(exc, task, name)
        if isinstance(exc, AssertionError) and not hasattr(exc, "__pg_candidate__"):
            if ch.compared_remote:
                return _suite_fail("not_plain_data", "a test compared an object that is not plain data", None, ch)
            return _suite_fail("wrong_answer", _assert_detail(exc, where, ch), "AssertionError", ch, where, ch)
        origin = getattr(exc, "__pg_candidate__", None)
        if origin:
            exc_name, cls, msg = origin
            return _suite_fail(cls, "%s: %s" % (exc_name, msg[:300]), exc_name, ch, where)
        if ch.compared_remote:
            return _suite_fail("not_plain_data", "a test compared an object that is not plain data", None, ch)
        return _suite_fail("wrong_answer", "test raised %s: %s%s" % (type(exc).__name__, str(exc)[:300],
                                                                       _at(where)), type(exc).__name__, ch, where)

    def _classic(self, program, limits, acc):
        """The reference harness's program (prompt + completion + test + check) run whole in one process."""
        ch = Channel(self.zsock, limits)
        ch.begin_suite()
        try:
            ok = ch.load(program)
        except CandidateGone as gone:
            ok = False
            ch.gone = gone
        finally:
            cpu = ch.suite_cpu()
            acc.finish(ch, keep_output=False)
        if ok:
            return {"status": "passed", "class": None, "detail": "", "cpu_s": round(cpu, 4)}
        gone = ch.gone
        cls = "wrong_answer" if getattr(gone, "exc_type", None) == "AssertionError" else gone.reason
        return {"status": "failed", "class": cls, "detail": gone.detail[:500], "exc_type": getattr(gone, "exc_type", None),
                "cpu_s": round(cpu, 4)}


class _Accumulated:
    """What every candidate process of one evaluation adds to its result."""

    def __init__(self):
        self.suites = {}
        self.classic = None
        self.cpu_s = 0.0
        self.maxrss_kb = 0
        self.out_bytes = 0
        self.processes = 0
        self.kept = bytearray()
        self.violations = set()
        self.tamper = set()
        self.notes = []
        self.exit = ""
        self.timings = {}
        self.t_suites = 0.0

    def finish(self, ch, keep_output=True):
        t = time.monotonic()
        info = ch.collect()
        self.timings["t_collect"] = time.monotonic() - t
        self.cpu_s += float(info.get("cpu_s") or 0.0)
        self.maxrss_kb = max(self.maxrss_kb, int(info.get("maxrss_kb") or 0))
        self.out_bytes += ch.out_bytes
        self.processes += 1
        self.timings.setdefault("t_spawn", ch.t_spawn)
        if getattr(ch, "t_loaded", None) is not None:
            self.timings.setdefault("t_loaded", ch.t_loaded)
        if keep_output and len(self.kept) < (int(ch.limits["output_keep_kb"]) << 10):
            self.kept += ch.kept
        self.violations |= set(ch.violations)
        self.tamper |= set(ch.tamper)
        for note in ch.notes + ch.candidate_notes:
            if note not in self.notes:
                self.notes.append(note)
        if keep_output:
            self.exit = "signal %s" % info.get("signal") if info.get("signal") else "exit %s" % info.get("exit")

    def result(self, wall_s):
        out = {"suites": self.suites, "cpu_s": self.cpu_s, "maxrss_kb": self.maxrss_kb, "out_bytes": self.out_bytes,
               "stdout": self.kept.decode("utf-8", "replace"), "violations": sorted(self.violations),
               "tamper": sorted(self.tamper), "exit": self.exit, "processes": self.processes, "notes": self.notes[:20], "protocol": PROTOCOL,
               "wall_s": wall_s, "t_suites": self.t_suites, **self.timings}
        if self.classic is not None:
            out["classic"] = self.classic
        return out


def _failing_line(exc, task, name):
    """(line, source) of the innermost frame of the test code in the traceback, or None."""
    wanted = {"<%s %s>" % (task["task_id"], key): key for key in (name + "_tests", "test_setup")}
    found = None
    tb = exc.__traceback__
    while tb is not None:
        key = wanted.get(tb.tb_frame.f_code.co_filename)
        if key is not None:
            found = (tb.tb_lineno, key)
        tb = tb.tb_next
    if found is None:
        return None
    line, key = found
    lines = task["source"][key].splitlines()
    return line, (lines[line - 1].strip() if 0 < line <= len(lines) else "")


def _at(where):
    return " (line %d: %s)" % (where[0], where[1][:200]) if where else ""


def _assert_detail(exc, where, ch):
    text = "assertion failed"
    if where:
        text += " at line %d: %s" % (where[0], where[1][:200])
    message = str(exc)
    if message:
        text += " (%s)" % message[:200]
    if ch.last_returned is not _MISSING:
        text += "; the candidate returned %s" % short_repr(ch.last_returned)
    return text


def _suite_fail(cls, detail, exc_type, ch, where=None, returned_from=None):
    if ch is not None and ch.violations and cls in ("runtime_error", "premature_exit", "wrong_answer"):
        detail = "%s; attempted: %s" % (detail, "; ".join(ch.violations[:3]))
        cls = "sandbox_violation"
    out = {"status": "failed", "class": cls, "detail": detail[:500], "exc_type": exc_type}
    if where:
        out["line"], out["source"] = where[0], where[1][:300]
    if returned_from is not None and returned_from.last_returned is not _MISSING:
        out["returned"] = short_repr(returned_from.last_returned)
    return out


def _code_names(code):
    names = set(code.co_names)
    for const in code.co_consts:
        if hasattr(const, "co_names"):
            names |= _code_names(const)
    return names
