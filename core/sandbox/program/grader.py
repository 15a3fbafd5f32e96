"""The grader: runs a task's trusted test code against proxies into the candidate process.

Part of the sandbox worker program (see worker.py): the parts in core/sandbox/program/ are sent into
the container as one source text, in the order docker_runner.PROGRAM_PARTS gives, and share one
namespace there. Standard library only.
"""

def _candidate_exception(info):
    name = str(info.get("type", "Exception"))
    msg = str(info.get("msg", ""))
    cls = info.get("class")
    if cls == "premature_exit":
        exc = CandidateExited("%s: %s" % (name, msg))
    else:
        builtin = getattr(_builtins, name, None)
        if isinstance(builtin, type) and issubclass(builtin, Exception) and builtin is not RaisedByCandidate:
            try:
                exc = builtin(msg)
            except Exception:
                exc = RaisedByCandidate("%s: %s" % (name, msg))
        else:
            exc = RaisedByCandidate("%s: %s" % (name, msg))
    exc.__pg_candidate__ = (name, cls or "runtime_error", msg)
    return exc


class RemoteObject:
    """A candidate-side object that is not plain data, usable only through the candidate."""

    __slots__ = ("_ch", "_h")

    def __init__(self, ch, h):
        object.__setattr__(self, "_ch", ch)
        object.__setattr__(self, "_h", h)

    def __call__(self, *args, **kwargs):
        return self._ch.request({"op": "call", "h": self._h, "a": encode(list(args), _arg_handle),
                                 "k": encode(kwargs, _arg_handle)})

    def __getattr__(self, attr):
        return self._ch.request({"op": "getattr", "h": self._h, "attr": attr})

    def __setattr__(self, attr, value):
        self._ch.request({"op": "setattr", "h": self._h, "attr": attr, "v": encode(value, _arg_handle)})

    def __iter__(self):
        return self._ch.request({"op": "iter", "h": self._h})

    def __next__(self):
        return self._ch.request({"op": "next", "h": self._h})

    def __len__(self):
        return self._ch.request({"op": "len", "h": self._h})

    def __getitem__(self, key):
        return self._ch.request({"op": "getitem", "h": self._h, "key": encode(key, _arg_handle)})

    def __contains__(self, key):
        return self._ch.request({"op": "contains", "h": self._h, "key": encode(key, _arg_handle)})

    def __bool__(self):
        return bool(self._ch.request({"op": "bool", "h": self._h}))

    def __repr__(self):
        return str(self._ch.request({"op": "repr", "h": self._h}))

    def __hash__(self):
        return hash(("remote", self._h))

    def _compared(self, other):
        self._ch.compared_remote = True
        return NotImplemented

    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = _compared


def _arg_handle(obj):
    if isinstance(obj, RemoteObject):
        return object.__getattribute__(obj, "_h")
    raise NotData("argument %s is not plain data" % type(obj).__name__)


class NameProxy:
    """A top-level name of the candidate program, as the tests see it."""

    __slots__ = ("_ch", "_name")

    def __init__(self, ch, name):
        self._ch, self._name = ch, name

    def __call__(self, *args, **kwargs):
        return self._ch.request({"op": "call", "name": self._name, "a": encode(list(args), _arg_handle),
                                 "k": encode(kwargs, _arg_handle)})

    def __getattr__(self, attr):
        return self._ch.request({"op": "getattr", "name": self._name, "attr": attr})

    def __repr__(self):
        return "<candidate %s>" % self._name


class GradingUnsupported(Exception):
    """The tests handed the candidate something that cannot cross as data."""


def _alarm(_sig, _frame):
    raise GraderTimeout()


class Grader:
    def __init__(self):
        self.tasks = {}
        self.caches = {}
        self.zsock = None
        self.zfile = None
        self.zpid = None

    def start_zygote(self):
        parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        pid = os.fork()
        if pid == 0:
            parent.close()
            os.closerange(0, child.fileno())
            os.closerange(child.fileno() + 1, 65536)
            zygote_main(child)
            os._exit(0)
        child.close()
        self.zsock, self.zpid = parent, pid
        self.zfile = parent.makefile("rb")

    def add_task(self, req):
        compiled = {}
        for key in ("test_setup", "public_tests", "protected_tests"):
            src = req.get(key) or ""
            compiled[key] = compile(src, "<%s %s>" % (req["task_id"], key), "exec") if src.strip() else None
        names = set()
        for key in ("public_tests", "protected_tests"):
            if compiled[key] is not None:
                names |= _code_names(compiled[key])
        self.tasks[req["key"]] = {"entry_point": req["entry_point"], "code": compiled, "names": names,
                                  "task_id": req["task_id"]}
        self.caches.setdefault(req["key"], {})

    def evaluate(self, req):
        """Grade one program: the protected suite first (the headline), then the public one.

        Each suite has its own CPU and wall budget; the public suite reuses the candidate process
        when it is still alive, so a failure there never changes the protected verdict. When the
        protected suite times out and a run alone will re-check it (the request's
        `public_after_protected_timeout` false), that run replaces this attempt, so the public suite
        is left to it rather than spending a second budget here.
        """
        task = self.tasks[req["task"]]
        limits = req["limits"]
        t0 = time.monotonic()
        result = {"suites": {}, "cpu_s": 0.0, "maxrss_kb": 0, "out_bytes": 0, "stdout": "",
                  "violations": [], "exit": "", "processes": 0}
        ch = None
        kept = bytearray()
        for name in ("protected", "public"):
            code = task["code"][name + "_tests"]
            if code is None:
                result["suites"][name] = {"status": "not_run", "class": None, "detail": "no tests"}
                continue
            if ch is not None and ch.load_failure is not None:
                result["suites"][name] = dict(ch.load_failure)
                continue
            if name == "public" and not req.get("public_after_protected_timeout", True) \
                    and result["suites"]["protected"].get("class") == "timeout":
                result["suites"][name] = {"status": "not_run", "class": None,
                                          "detail": "left to the re-check of the timeout, run alone"}
                continue
            if ch is None or ch.gone is not None:
                if ch is not None:
                    self._finish(ch, result, kept)
                ch = Channel(self.zsock, self.zfile, limits)
            ch.begin_suite()
            verdict = self._run_suite(ch, task, code, req)
            verdict["cpu_s"] = round(ch.suite_cpu(), 4)
            result["suites"][name] = verdict
        result["t_suites"] = time.monotonic() - t0
        if ch is not None:
            self._finish(ch, result, kept)
        result["stdout"] = kept.decode("utf-8", "replace")
        result["wall_s"] = time.monotonic() - t0
        return result

    def _finish(self, ch, result, kept):
        t = time.monotonic()
        info = ch.collect()
        result["t_collect"] = time.monotonic() - t
        result["cpu_s"] += float(info.get("cpu_s") or 0.0)
        result["maxrss_kb"] = max(result["maxrss_kb"], int(info.get("maxrss_kb") or 0))
        result["out_bytes"] += ch.out_bytes
        result["processes"] += 1
        result["t_spawn"] = ch.t_spawn
        result["t_loaded"] = getattr(ch, "t_loaded", None)
        if len(kept) < (int(ch.limits["output_keep_kb"]) << 10):
            kept += ch.kept
        result["violations"] = sorted(set(result["violations"]) | set(ch.violations))
        result["exit"] = "signal %s" % info.get("signal") if info.get("signal") else "exit %s" % info.get("exit")

    def _run_suite(self, ch, task, code, req):
        try:
            if ch.load_failure is not None:
                return dict(ch.load_failure)
            if not ch.loaded:
                ch.send({"program": req["program"]})
                msg = ch.recv()
                if not msg.get("loaded"):
                    err = msg.get("error") or {"type": "setup", "msg": str(msg.get("setup")), "class": "infra_error"}
                    ch.gone = CandidateGone(err.get("class", "runtime_error"),
                                            "%s: %s" % (err.get("type"), err.get("msg")))
                    ch.gone.exc_type = err.get("type")
                    ch.collect()
                    ch.load_failure = _suite_fail(ch.gone.reason, ch.gone.detail, err.get("type"), ch)
                    return dict(ch.load_failure)
                ch.loaded = True
                ch.names = set(msg.get("names") or ())
                ch.t_loaded = time.monotonic() - ch.t0
            ns = {"__name__": "__grader__", "__pg_cache__": self.caches[req["task"]]}
            if task["code"]["test_setup"] is not None:
                exec(task["code"]["test_setup"], ns)
            entry = NameProxy(ch, task["entry_point"])
            for name in task["names"] & ch.names:
                if name not in ns or name == task["entry_point"]:
                    ns[name] = NameProxy(ch, name)
            ns[task["entry_point"]] = entry
            ns["candidate"] = entry
            # trusted test code gets a generous budget of its own (expected outputs can take minutes)
            signal.signal(signal.SIGALRM, _alarm)
            signal.setitimer(signal.ITIMER_REAL, ch.wall_budget + GRADER_BUDGET_S)
            try:
                exec(code, ns)
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            return {"status": "passed", "class": None, "detail": ""}
        except CandidateGone as gone:
            return _suite_fail(gone.reason, gone.detail, getattr(gone, "exc_type", None), ch)
        except CandidateExited as exc:
            return _suite_fail("premature_exit", str(exc)[:300], "SystemExit", ch)
        except GraderTimeout:
            # the trusted test code itself overran its allowance: the evaluator's fault, not the model's
            try:
                ch.kill("infra_error", "the grader's own test code ran past its %.0f s allowance" % GRADER_BUDGET_S)
            except CandidateGone as gone:
                return {"status": "failed", "class": "infra_error", "detail": gone.detail}
        except GradingUnsupported as exc:
            return {"status": "failed", "class": "infra_error", "detail": "grader: %s" % exc}
        except NotData as exc:
            return {"status": "failed", "class": "infra_error", "detail": "grader: %s" % exc}
        except AssertionError as exc:
            if ch.compared_remote:
                return _suite_fail("not_plain_data", "a test compared an object that is not plain data", None, ch)
            return _suite_fail("wrong_answer", ("assertion failed: %s" % exc)[:300] if str(exc) else "assertion failed",
                               "AssertionError", ch)
        except BaseException as exc:
            origin = getattr(exc, "__pg_candidate__", None)
            if origin:
                name, cls, msg = origin
                return _suite_fail(cls, "%s: %s" % (name, msg[:300]), name, ch)
            if ch.compared_remote:
                return _suite_fail("not_plain_data", "a test compared an object that is not plain data", None, ch)
            return _suite_fail("wrong_answer", "test raised %s: %s" % (type(exc).__name__, str(exc)[:300]),
                               type(exc).__name__, ch)


def _suite_fail(cls, detail, exc_type, ch):
    if ch is not None and ch.violations and cls in ("runtime_error", "premature_exit", "wrong_answer"):
        detail = "%s; attempted: %s" % (detail, "; ".join(ch.violations[:3]))
        cls = "sandbox_violation"
    return {"status": "failed", "class": cls, "detail": detail[:500], "exc_type": exc_type}


def _code_names(code):
    names = set(code.co_names)
    for const in code.co_consts:
        if hasattr(const, "co_names"):
            names |= _code_names(const)
    return names
