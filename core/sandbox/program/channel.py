"""One candidate process seen from the grader: calls over pipes, output capture, CPU and wall
budgets, the test's objects handed over as handles, and why the process ended.

Part of the sandbox worker program (see worker.py): the parts in core/sandbox/program/ are sent into
the container as one source text, in the order docker_runner.PROGRAM_PARTS gives, and share one
namespace there. Standard library only.

Everything a call costs from the moment its request is sent until its answer is decoded is charged
to the candidate's wall budget: waiting for it, decoding what it sent, and running the test's
callbacks it asked for. The test's own work between calls (computing expected values) is not.
"""

import types as _types

# Attribute names never served on the test's objects: private names, and the routes to frames and
# code that carry no underscore.
_DENIED_PREFIXES = ("_", "gi_", "cr_", "ag_", "f_", "tb_", "co_", "im_", "func_")
_NEVER_HANDED = (_types.ModuleType, _types.FrameType, _types.CodeType, _types.TracebackType, _types.CellType)
_NEVER_CALLED_FROM = frozenset({"os", "posix", "nt", "subprocess", "sys", "ctypes", "shutil", "socket", "signal",
                                "importlib", "gc", "inspect", "resource", "fcntl", "pty", "multiprocessing"})


class CandidateGone(BaseException):
    """The candidate process ended or was ended; `reason` names the failure class."""

    def __init__(self, reason, detail=""):
        BaseException.__init__(self, reason, detail)
        self.reason, self.detail = reason, detail


class GraderTimeout(BaseException):
    pass


class CandidateExited(BaseException):
    """The candidate raised SystemExit (or similar) inside a call: tests cannot catch this."""


class GradingUnsupported(BaseException):
    """The test handed the candidate something the grader does not hand out (a module, a frame...)."""


class TooLargeUsed(BaseException):
    """The test used an answer that crossed by digest as more than a value to compare."""


class CallbackOverran(BaseException):
    """A call back into the test's objects ran past the candidate's wall budget."""


def _callback_alarm(_sig, _frame):
    raise CallbackOverran()


class RemoteObject:
    """A candidate-side object that is not plain data, usable only through the candidate."""

    __slots__ = ("_pg_end", "_pg_key", "__weakref__")

    def __init__(self, end, key):
        object.__setattr__(self, "_pg_end", end)
        object.__setattr__(self, "_pg_key", key)

    def _pg(self, op, **kw):
        return object.__getattribute__(self, "_pg_end").call({"h": object.__getattribute__(self, "_pg_key")}, op, **kw)

    def __call__(self, *args, **kwargs):
        return self._pg("call", args=args, kwargs=kwargs)

    def __getattr__(self, name):
        return self._pg("getattr", name=name)

    def __setattr__(self, name, value):
        self._pg("setattr", name=name, value=value)

    def __iter__(self):
        return self._pg("iter")

    def __next__(self):
        return self._pg("next")

    def __len__(self):
        return self._pg("len")

    def __getitem__(self, key):
        return self._pg("getitem", value=key)

    def __setitem__(self, key, value):
        self._pg("setitem", value=[key, value])

    def __contains__(self, key):
        return self._pg("contains", value=key)

    def __bool__(self):
        return bool(self._pg("bool"))

    def __repr__(self):
        return str(self._pg("repr"))

    def __hash__(self):
        return hash(("remote", object.__getattribute__(self, "_pg_key")))

    def _compared(self, other):
        # never the candidate's __eq__: a comparison with an object that is not data proves nothing
        object.__getattribute__(self, "_pg_end").compared_remote = True
        return NotImplemented

    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = _compared


class NameProxy:
    """A top-level name of the candidate program, as the tests see it."""

    __slots__ = ("_ch", "_name", "__weakref__")

    def __init__(self, ch, name):
        self._ch, self._name = ch, name

    def __call__(self, *args, **kwargs):
        return self._ch.call({"n": self._name}, "call", args=args, kwargs=kwargs, top=True)

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        return self._ch.call({"n": self._name}, "getattr", name=attr, top=True)

    def __repr__(self):
        return "<candidate %s>" % self._name


class TooLarge:
    """A candidate's answer too large to cross as data: compared with == and != by digest, nothing else.

    The digest of the test's value is computed here and never sent, so matching it takes the answer."""

    __slots__ = ("_digest", "_kind", "_why")

    def __init__(self, digest, kind, why):
        self._digest, self._kind, self._why = digest, kind, why

    def __eq__(self, other):
        try:
            return canonical_digest(other) == self._digest
        except NotData:
            return False

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = None

    def __repr__(self):
        return "<a %s too large to cross (%s), compared by digest>" % (self._kind, self._why)

    def __getattr__(self, name):
        raise TooLargeUsed("the answer (a %s) was too large to cross (%s); the test used it beyond == and !="
                           % (self._kind, self._why))

    def _used(self, *args, **kwargs):
        self.__getattr__("")

    __len__ = __iter__ = __getitem__ = __contains__ = __bool__ = __lt__ = __le__ = __gt__ = __ge__ = _used


class Channel(Endpoint):
    """One candidate process seen from the grader: calls, output capture, CPU and wall limits."""

    name_builtins = True

    def __init__(self, zsock, limits):
        Endpoint.__init__(self, RemoteObject)
        self.limits = limits
        self.wall_budget = float(limits["wall_s"])
        self.charged = 0.0              # wall time of this suite's calls so far
        self.call_start = None          # when the call in flight began (its time is being charged)
        self.cpu_limit = float(limits["cpu_s"])
        self.cpu_base = 0.0
        self.out_cap = int(limits["output_cap_kb"]) << 10
        self.keep = int(limits["output_keep_kb"]) << 10
        self.kept = bytearray()
        self.out_bytes = 0
        self.violations = []
        self.tamper = []                # the candidate's tamper tripwires (its audit hook) and an exit mid-test
        self.compared_remote = False
        self.last_returned = _MISSING
        self.candidate_notes = []
        self.gone = None
        self.zsock = zsock
        self._spawn(limits)
        self.exit_info = None
        self.last_cpu = 0.0
        self.cpu_checked = self.t0
        self.loaded = False
        self.load_failure = None
        self.names = set()

    def _spawn(self, limits):
        """A candidate process from the zygote, with the grader's ends of its pipes (requests, replies, output)."""
        self.t0 = time.monotonic()
        self.zsock.send(json.dumps({"op": "spawn", "limits": limits}).encode())
        data, fds, _flags, _addr = socket.recv_fds(self.zsock, 4096, 3)
        self.req_w, self.resp_r, self.out_r = fds
        os.set_blocking(self.req_w, False)
        self.rbuf = bytearray()
        self.pid = json.loads(data)["pid"]
        self.t_spawn = time.monotonic() - self.t0

    # ---- budgets ----------------------------------------------------------------
    def begin_suite(self):
        """Each suite gets the full CPU and wall budget, counted from now."""
        self.charged = 0.0
        self.cpu_base = self.cpu_time() if self.loaded else 0.0

    def suite_cpu(self):
        if self.gone is not None:
            return max(0.0, float(self.collect().get("cpu_s") or 0.0) - self.cpu_base)
        return max(0.0, self.cpu_time() - self.cpu_base)

    def over_cpu(self):
        return self.cpu_time() - self.cpu_base > self.cpu_limit

    def cpu_time(self):
        self.cpu_checked = time.monotonic()
        try:   # three system calls (a buffered file object makes nine)
            fd = os.open("/proc/%d/stat" % self.pid, os.O_RDONLY | os.O_CLOEXEC)
            try:
                fields = os.read(fd, 4096).rsplit(b")", 1)[1].split()
            finally:
                os.close(fd)
            self.last_cpu = (int(fields[11]) + int(fields[12])) / CLK_TCK
        except (OSError, IndexError, ValueError):
            pass
        return self.last_cpu

    def wall_left(self):
        running = time.monotonic() - self.call_start if self.call_start is not None else 0.0
        return self.wall_budget - self.charged - running

    def tick(self):
        """Called while decoding and serving for the candidate: its wall budget runs meanwhile."""
        if self.wall_left() <= 0:
            self.kill("timeout", "wall-clock backstop after %.2fs spent on its behalf (decoding its answers "
                      "or serving its calls back)" % self.wall_budget)

    def _timed_out(self):
        if self.over_cpu():
            self.kill("timeout", "cpu %.2fs over the %.2fs limit" % (self.last_cpu - self.cpu_base, self.cpu_limit))
        self.kill("timeout", "wall-clock backstop after %.2fs with %.2fs cpu (blocked or starved)"
                  % (self.wall_budget, self.last_cpu - self.cpu_base))

    # ---- the pipes --------------------------------------------------------------
    def _drain_output(self):
        try:
            data = os.read(self.out_r, 1 << 16)
        except BlockingIOError:
            return True
        if not data:
            return False
        self.out_bytes += len(data)
        if len(self.kept) < self.keep:
            self.kept += data[: self.keep - len(self.kept)]
        if self.out_bytes > self.out_cap:
            self.kill("output_exceeded", "wrote more than %d KiB" % (self.out_cap >> 10))
        return True

    def kill(self, reason, detail=""):
        if self.gone is None:
            self.gone = CandidateGone(reason, detail)
        for target in (lambda: os.killpg(self.pid, signal.SIGKILL), lambda: os.kill(self.pid, signal.SIGKILL)):
            try:
                target()
            except OSError:
                pass
        raise self.gone

    def _wait(self, fd, event):
        out_open = True
        while True:
            if self.gone is not None:
                raise self.gone
            left = self.wall_left()
            if left <= 0:
                self._timed_out()
            poller = select.poll()
            poller.register(fd, event)
            if out_open:
                poller.register(self.out_r, select.POLLIN)
            ready = poller.poll(min(left, 0.05) * 1000)
            if time.monotonic() - self.cpu_checked >= 0.05 and self.over_cpu():
                self._timed_out()
            hit = False
            for rfd, _ev in ready:
                if rfd == self.out_r:
                    out_open = self._drain_output() and out_open
                elif rfd == fd:
                    hit = True
            if hit:
                return

    def _write(self, payload):
        """Straight into the pipe (non-blocking); waits only when the pipe is full."""
        view = memoryview(payload)
        while view:
            try:
                n = os.write(self.req_w, view)
            except BlockingIOError:
                self._wait(self.req_w, select.POLLOUT)
                continue
            except BrokenPipeError:
                self._ended()
            view = view[n:]

    def _fill(self, need):
        """Read until `need` bytes are buffered: a reply that fits costs one poll and one read."""
        while len(self.rbuf) < need:
            self._wait(self.resp_r, select.POLLIN)
            b = os.read(self.resp_r, max(1 << 16, min(need - len(self.rbuf), 1 << 20)))
            if not b:
                self._ended()
            self.rbuf += b

    def _ended(self):
        """The candidate closed its end: collect why from the zygote."""
        info = self.collect()
        sig = info.get("signal")
        if sig == signal.SIGXCPU:
            reason, detail = "timeout", "cpu limit (SIGXCPU)"
        elif sig == signal.SIGXFSZ:
            reason, detail = "output_exceeded", "file size limit (SIGXFSZ)"
        elif sig == signal.SIGKILL and info.get("maxrss_kb", 0) >= 0.8 * (int(self.limits["memory_mb"]) << 10):
            reason, detail = "memory_exceeded", "killed (SIGKILL) at %d KiB" % info.get("maxrss_kb", 0)
        elif sig:
            try:
                name = signal.Signals(sig).name
            except ValueError:
                name = str(sig)
            reason, detail = "runtime_error", "killed by %s" % name
        else:
            reason, detail = "premature_exit", "exited with code %s before its tests finished" % info.get("exit")
            if self.loaded and self.call_start is not None:
                self.note_exit_in_test("exit status %s during a call" % info.get("exit"))
        self.gone = CandidateGone(reason, detail)
        raise self.gone

    def send(self, obj):
        self._write(obj if type(obj) is bytes else frame_bytes(obj))

    def recv(self):
        """The candidate's next frame; anything that is not a valid frame of bounded size is its failure."""
        self._fill(4)
        (n,) = _unpack_len(bytes(self.rbuf[:4]))
        if n > MAX_FRAME:
            self.kill("output_exceeded", "a reply of %d bytes (the cap is %d)" % (n, MAX_FRAME))
        self._fill(4 + n)
        data = bytes(self.rbuf[4:4 + n])
        del self.rbuf[:4 + n]
        try:
            msg = loads(data)
        except (ValueError, UnicodeDecodeError, RecursionError):
            self.kill("not_plain_data", "a reply that is not valid JSON")
        if type(msg) is not dict:
            self.kill("not_plain_data", "a reply that is not a JSON object")
        v = msg.get("w") or msg.get("violations")
        if type(v) is list:
            self.violations = [str(x)[:200] for x in v[:50]]
        t = msg.get("t")
        if type(t) is list:   # the candidate sends all it saw so far; merged, so the grader's own entries stay
            self.tamper += [e for e in (str(x)[:200] for x in t[:50]) if e not in self.tamper][:50 - len(self.tamper)]
        notes = msg.get("notes")
        if type(notes) is list:
            self.candidate_notes = [str(x)[:200] for x in notes[:20]]
        if "bad" in msg:
            self.kill("not_plain_data", "its answer cannot cross: %s" % str(msg["bad"])[:300])
        return msg

    # ---- calls ------------------------------------------------------------------
    def load(self, program):
        """Send the program; True when it loaded (its top-level names are then known)."""
        self.call_start = time.monotonic()
        try:
            self.send({"program": program, "cpu_s": self.cpu_limit})
            msg = self.recv()
        finally:
            self.charged += time.monotonic() - self.call_start
            self.call_start = None
        if not msg.get("loaded"):
            err = msg.get("error") or {"type": "setup", "msg": str(msg.get("setup")), "class": "infra_error"}
            self.gone = CandidateGone(err.get("class", "runtime_error"), "%s: %s" % (err.get("type"), err.get("msg")))
            self.gone.exc_type = err.get("type")
            self.collect()
            return False
        self.loaded = True
        self.names = set(msg.get("names") or ())
        self.t_loaded = time.monotonic() - self.t0
        return True

    def call(self, target, op, *, top=False, **kw):
        """A call into the candidate. Outside a conversation it starts one, and its time is charged."""
        if self.active:
            return Endpoint.call(self, target, op, **kw)
        if self.gone is not None:
            raise self.gone
        conv = self.conversation()
        self.active += 1
        try:
            data = self._request_bytes(conv, target, op, kw)
            self.call_start = time.monotonic()
            value = self._answer(conv, self.exchange(data))
        finally:
            self.active -= 1
            if self.call_start is not None:
                self.charged += time.monotonic() - self.call_start
                self.call_start = None
            self.notes = (self.notes + conv.notes)[:20] if conv.notes else self.notes
            conv.notes = []
        self.last_returned = value
        return value

    def _request_bytes(self, conv, target, op, kw):
        """The test's request, ready to send; the test's own values that cannot cross are the grader's limit."""
        try:
            frame, delivered = self.request_frame(conv, target, op, **kw)
            self.top = tuple(delivered)
            return frame_bytes(frame)
        except (NotData, BadFrame) as exc:
            raise GradingUnsupported(str(exc)) from None

    def _answer(self, conv, reply):
        try:
            return self.answer(conv, reply)
        except NotData as exc:
            self.kill("not_plain_data", "its answer could not be decoded: %s" % exc)

    def exchange(self, frame):
        try:
            return Endpoint.exchange(self, frame)
        except NotData as exc:
            self.kill("not_plain_data", "%s" % exc)
        except BadFrame as exc:
            self.kill("not_plain_data", "what it asked for cannot cross: %s" % exc)

    def perform(self, conv, frame, delivered):
        """A call back into the test's objects, under the alarm of the candidate's remaining wall budget."""
        left = self.wall_left()
        if left <= 0:
            self._timed_out()
        previous = signal.signal(signal.SIGALRM, _callback_alarm)
        outer, _ = signal.setitimer(signal.ITIMER_REAL, left)
        started = time.monotonic()
        try:
            return Endpoint.perform(self, conv, frame, delivered)
        except CallbackOverran:
            self._timed_out()
        finally:
            signal.signal(signal.SIGALRM, previous)
            signal.setitimer(signal.ITIMER_REAL, max(0.001, outer - (time.monotonic() - started)) if outer else 0)

    def note_exit_in_test(self, detail):
        """Telemetry only: the candidate ended its process (or raised SystemExit) while a test waited on it."""
        entry = "exit_in_test: " + detail
        if entry not in self.tamper:
            self.tamper.append(entry)

    def exception(self, conv, info):
        cls = str(info.get("c") or "runtime_error") if type(info) is dict else "runtime_error"
        if cls == "premature_exit":
            self.note_exit_in_test("%s raised during a call" % str(info.get("t"))[:60])
            return CandidateExited("%s: %s" % (str(info.get("t"))[:100], str(info.get("m"))[:300]))
        exc = Endpoint.exception(self, conv, info)
        exc.__pg_candidate__ = (str(info.get("t"))[:200], cls if cls in _CANDIDATE_CLASSES else "runtime_error",
                                str(info.get("m") or ""))
        return exc

    # ---- serving the candidate's calls back ----------------------------------------
    def serve_target(self, target):
        if type(target) is not dict or type(target.get("h")) is not int:
            raise NotData("a call back to something the test did not hand over")
        return self.handles.local(target["h"])

    def exported(self, obj):
        if isinstance(obj, _NEVER_HANDED):
            raise NotData("the test passed a %s, which the grader does not hand to a candidate" % type(obj).__name__)
        if getattr(obj, "__module__", None) in _NEVER_CALLED_FROM:
            raise NotData("the test passed %s from %s, which the grader does not hand to a candidate"
                          % (getattr(obj, "__name__", type(obj).__name__), obj.__module__))
        return obj

    def allowed(self, op, name, value):
        if name is not None and (type(name) is not str or name.startswith(_DENIED_PREFIXES)):
            raise AttributeError("the grader serves no attribute %r of the test's objects" % (str(name)[:80],))
        if op == "result" and (isinstance(value, _NEVER_HANDED) or getattr(value, "__module__", None)
                               in _NEVER_CALLED_FROM and callable(value)):
            raise AttributeError("the grader does not hand out a %s" % type(value).__name__)
        return value

    def named(self, name):
        if type(name) is not str or name not in self.names:
            raise NotData("a name the program does not define")
        return NameProxy(self, name)

    def own(self, obj):
        if type(obj) is NameProxy and object.__getattribute__(obj, "_ch") is self:
            return {"N": object.__getattribute__(obj, "_name")}
        return Endpoint.own(self, obj)

    def digested(self, body):
        if type(body) is not dict or type(body.get("d")) is not str:
            raise NotData("a malformed digest")
        return TooLarge(body["d"], str(body.get("t"))[:50], str(body.get("why"))[:200])

    # ---- the end ------------------------------------------------------------------
    def collect(self):
        """Ensure the candidate is gone and return the zygote's exit record (once)."""
        if self.exit_info is None:
            for target in (lambda: os.killpg(self.pid, signal.SIGKILL), lambda: os.kill(self.pid, signal.SIGKILL)):
                try:
                    target()
                except OSError:
                    pass
            data = self.zsock.recv(4096)
            self.exit_info = json.loads(data) if data else {"exit": None, "signal": 0, "cpu_s": self.last_cpu,
                                                            "maxrss_kb": 0}
            os.set_blocking(self.out_r, False)
            while True:
                try:
                    if not self._drain_output():
                        break
                except CandidateGone:
                    break
            for fd in (self.req_w, self.resp_r, self.out_r):
                try:
                    os.close(fd)
                except OSError:
                    pass
        return self.exit_info


_CANDIDATE_CLASSES = {"runtime_error", "memory_exceeded", "syntax_error", "premature_exit"}
