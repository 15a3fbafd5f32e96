"""The candidate process: rlimits, an unprivileged uid, an empty environment; runs the program and
answers the grader's calls, which cross as data through the graph codec.

Part of the sandbox worker program (see worker.py): the parts in core/sandbox/program/ are sent into
the container as one source text, in the order docker_runner.PROGRAM_PARTS gives, and share one
namespace there. Standard library only. Everything here was bound before the candidate program
loads, so a program that patches builtins or the standard library breaks only its own answers.
"""

import builtins as _real_builtins   # the module the candidate program gets (it may patch it)


TAMPER = []                         # tamper tripwires seen (telemetry sent with every reply; never a verdict)
_FRAME_EVENTS = frozenset({"sys._getframe", "code.__new__"})
_ALWAYS_TAMPER = {"sys.settrace": "settrace", "sys.setprofile": "setprofile", "sys._current_frames": "current_frames",
                  "gc.get_objects": "gc_objects", "gc.get_referrers": "gc_objects", "gc.get_referents": "gc_objects"}
_CHANNEL_PATHS = frozenset({3, 4, "/proc/self/fd/3", "/proc/self/fd/4", "/dev/fd/3", "/dev/fd/4"})


def _tamper(kind, detail):
    entry = "%s: %s" % (kind, detail)
    if entry not in TAMPER and len(TAMPER) < 50:
        TAMPER.append(entry)


def _tamper_of(event, args, caller, own_pid):
    """The tripwire an audit event trips, as (kind, detail), or None. Frame and code events count only
    when the candidate's own code (or inspect/traceback on its behalf) asked: the standard library
    takes frames for its own ends (namedtuple, typing, logging)."""
    if event in _ALWAYS_TAMPER:
        return _ALWAYS_TAMPER[event], event
    if event in _FRAME_EVENTS:
        name = caller.f_code.co_filename if caller is not None else ""
        if name == "<candidate>" or name.endswith(("/inspect.py", "/traceback.py")):
            return ("getframe" if event == "sys._getframe" else "code_replace"), "%s from %s" % (event, name)
        return None
    if event == "object.__setattr__" and len(args) > 1 and args[1] == "__code__":
        return "code_replace", "a function's __code__ assigned"
    if event.startswith("ctypes."):
        return "ctypes", event
    if event == "open":
        path = args[0]
        if path in _CHANNEL_PATHS:
            return "channel_write", "opened the grader channel %r" % (path,)
        if isinstance(path, str) and path.startswith("/proc/"):
            parts = path.split("/")
            if parts[-1] == "mem":
                return "proc_mem", path
            if len(parts) > 2 and parts[2].isdigit() and parts[2] != own_pid:
                return "other_process_files", path
    return None


def _audit_events():
    """Record attempts that cross the boundary (violations) and tamper tripwires: evidence for the
    record, not enforcement (the process boundary is the barrier; audit hooks can be bypassed)."""
    seen = []
    scratch = SCRATCH
    own_pid = str(os.getpid())
    busy = [False]
    getframe = sys._getframe           # bound now: the program may replace sys's attributes

    def hook(event, args):
        if NATIVE_WORK[0] or busy[0]:
            return                     # the codec reading a set's table (the stub's own work), or this hook
        busy[0] = True
        try:
            caller = getframe(1) if event in _FRAME_EVENTS else None
            trip = _tamper_of(event, args, caller, own_pid)
            if trip is not None:
                _tamper(*trip)
        except Exception:
            pass
        finally:
            busy[0] = False
        try:
            if event in ("socket.connect", "socket.sendto", "socket.bind"):
                seen.append("network:%s %r" % (event, args[1] if len(args) > 1 else ""))
            elif event == "socket.getaddrinfo":
                seen.append("network:dns %r" % (args[0],))
            elif event == "open":
                path, mode = args[0], args[1]
                if isinstance(path, str) and isinstance(mode, str) and any(c in mode for c in "wax+"):
                    if not (path.startswith(scratch) or path.startswith("/tmp") or path.startswith("/dev/")
                            or not path.startswith("/")):
                        seen.append("filesystem:write %s" % path)
                elif isinstance(path, str) and (path.startswith("/proc/1/") or path in ("/etc/shadow",)
                                                or "docker.sock" in path):
                    seen.append("filesystem:read %s" % path)
            elif event in ("os.kill", "os.killpg"):
                pid = args[0]
                if pid in (1, -1, 0) or pid == os.getppid():
                    seen.append("signal:%s %s" % (event, pid))
            elif event == "ctypes.dlopen" or event == "ctypes.dlsym":
                seen.append("native:%s" % event)
        except Exception:
            pass
        if len(seen) > 50:
            del seen[50:]
    sys.addaudithook(hook)
    return seen


# what the zygote holds besides descriptors 0-2, its socket and each candidate's pipes (listed once, at its start)
INHERITED_FDS = []


def _close_above_4(fds):
    """Close the descriptors a candidate inherits beyond its five: the zygote knows each one, so no
    listing of /proc/self/fd (several milliseconds under gVisor) and no blind closerange (64k calls)."""
    for fd in fds:
        if fd > 4:
            try:
                os.close(fd)
            except OSError:
                pass


def _wire_descriptors(req_r, resp_w, out_w):
    """Calls arrive on 3, replies leave on 4, stdout and stderr go to the capture pipe, stdin is empty."""
    os.setsid()
    pipes = (req_r, resp_w, out_w)
    req_r, resp_w, out_w = (fcntl.fcntl(fd, fcntl.F_DUPFD, 100) for fd in pipes)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(out_w, 1)
    os.dup2(out_w, 2)
    os.dup2(req_r, 3)
    os.dup2(resp_w, 4)
    _close_above_4(pipes + (req_r, resp_w, out_w, null) + tuple(INHERITED_FDS))
    for s in SIGNALS_IGNORED:
        signal.signal(s, signal.SIG_DFL)


_WAITING_CPU_S = 3600


def _cpu_backstop(cpu_s):
    """CPU backstop only: the grader enforces each suite's budget precisely; one process may serve two
    suites. Lowering a limit needs no privilege, so the candidate sets it once its task is known."""
    cpu = int(2 * float(cpu_s)) + 2
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))


def _confine(limits):
    """rlimits, the candidate uid, fresh scratch as the working directory, an environment of fixed values."""
    # a generous CPU backstop while it waits to be handed a program, lowered to the task's then
    resource.setrlimit(resource.RLIMIT_CPU, (_WAITING_CPU_S, _WAITING_CPU_S + 1))
    mem = int(limits["memory_mb"]) << 20
    resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
    fsize = int(limits["file_size_mb"]) << 20
    resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
    if CAND_UID is not None:
        resource.setrlimit(resource.RLIMIT_NPROC, (int(limits["nproc"]), int(limits["nproc"])))
    resource.setrlimit(resource.RLIMIT_NOFILE, (int(limits["nofile"]), int(limits["nofile"])))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if CAND_UID is not None:
        os.setgroups([])
        os.setgid(CAND_UID)
        os.setuid(CAND_UID)
    os.chdir(SCRATCH)
    tz = os.environ.get("TZ", "UTC")
    os.environ.clear()
    # TZ is the container's (pinned), so the time module needs no re-initialisation; sys.std* already
    # wrap descriptors 0-2, which now point at /dev/null and the capture pipe
    os.environ.update(PATH="/usr/local/bin:/usr/bin:/bin", HOME=SCRATCH, TMPDIR=SCRATCH, LANG="C.UTF-8", TZ=tz)


class GraderHandle:
    """In the candidate process: an object the test handed over (a callback, an iterator, an instance
    of a class the test defines). Every use is a call back into the grader, which allows what the
    test itself could do with it."""

    __slots__ = ("_pg_end", "_pg_key", "__weakref__")

    def __init__(self, end, key):
        object.__setattr__(self, "_pg_end", end)
        object.__setattr__(self, "_pg_key", key)

    def _pg(self, op, **kw):
        return object.__getattribute__(self, "_pg_end").call({"h": object.__getattribute__(self, "_pg_key")},
                                                             op, **kw)

    def __call__(self, *args, **kwargs):
        return self._pg("call", args=args, kwargs=kwargs)

    def __getattr__(self, name):
        return self._pg("getattr", name=name)

    def __setattr__(self, name, value):
        self._pg("setattr", name=name, value=value)

    def __delattr__(self, name):
        self._pg("delattr", name=name)

    def __iter__(self):
        return self._pg("iter")

    def __next__(self):
        return self._pg("next")

    def __len__(self):
        return self._pg("len")

    def __bool__(self):
        return self._pg("bool")

    def __repr__(self):
        return self._pg("repr")

    def __str__(self):
        return self._pg("str")

    def __hash__(self):
        return self._pg("hash")

    def __getitem__(self, key):
        return self._pg("getitem", value=key)

    def __setitem__(self, key, value):
        self._pg("setitem", value=[key, value])

    def __delitem__(self, key):
        self._pg("delitem", value=key)

    def __contains__(self, key):
        return self._pg("contains", value=key)

    def __eq__(self, other):
        return self._pg("eq", value=other)

    def __ne__(self, other):
        return self._pg("ne", value=other)

    def __lt__(self, other):
        return self._pg("lt", value=other)

    def __le__(self, other):
        return self._pg("le", value=other)

    def __gt__(self, other):
        return self._pg("gt", value=other)

    def __ge__(self, other):
        return self._pg("ge", value=other)


class CandidateEnd(Endpoint):
    """The candidate's end of the call pipe: serves the grader's calls on the program's names."""

    accept_builtins = True

    def __init__(self, namespace, violations, frames):
        Endpoint.__init__(self, GraderHandle)
        self.namespace, self.violations = namespace, violations
        self.frames = frames
        self._ready = None

    def send(self, frame):
        data, self._ready = self._ready, None
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except BaseException:
            pass
        _write_all(4, data if data is not None else frame_bytes(frame))

    def recv(self):
        return self.frames.recv()

    def serve_target(self, target):
        if type(target) is not dict:
            raise NotData("malformed target")
        if "n" in target:
            try:
                return self.namespace[target["n"]]
            except (KeyError, TypeError):
                raise NotData("the program defines no %r" % (str(target.get("n"))[:80],)) from None
        return self.handles.local(target.get("h"))

    def allowed(self, op, name, value):
        return value

    def named(self, name):
        try:
            return self.namespace[name]
        except (KeyError, TypeError):
            raise NotData("the program defines no %r" % (str(name)[:80],)) from None

    def exported(self, obj):
        return obj

    def serve(self, frame):
        """The reply, with the boundary attempts seen so far; an answer too large to cross goes by digest."""
        self._value = _MISSING
        try:
            reply = Endpoint.serve(self, frame)
        except (NotData, BadFrame) as exc:
            reply = self.too_large(exc)
        reply["w"] = list(self.violations)
        if TAMPER:
            reply["t"] = list(TAMPER)
        notes = self.notes + (self.conv.notes if self.conv is not None else [])
        if notes:
            reply["notes"] = notes[:20]
        try:
            self._ready = frame_bytes(reply)
        except BadFrame as exc:
            self.conv.rollback(self._mark)
            reply = self.too_large(exc)
            reply["w"] = list(self.violations)
            if TAMPER:
                reply["t"] = list(TAMPER)
            self._ready = frame_bytes(reply)
        return reply

    def encode_value(self, conv, value):
        self._value = value
        self._mark = conv.mark()
        if _estimated_elements(value) > conv.max_nodes:
            raise NotData("about %d elements (the cap is %d)" % (_estimated_elements(value), conv.max_nodes))
        try:
            return conv.encode(value)
        except NotData:
            conv.rollback(self._mark)
            raise

    def too_large(self, why):
        """An answer that cannot cross as data: its digest and a handle to it, instead of its value."""
        value = getattr(self, "_value", _MISSING)
        if value is _MISSING:
            return {"bad": str(why)[:300]}
        try:
            digest = canonical_digest(value, self.tick)
        except NotData as exc:
            return {"bad": "%s, and it has no digest (%s)" % (str(why)[:200], str(exc)[:100])}
        self.notes.append("an answer too large to cross went by digest; changes the call made to its arguments "
                          "were not copied back")
        return {"v": {"Z": {"h": self.handles.export(value), "d": digest, "t": type(value).__name__,
                            "why": str(why)[:200]}}, "s": []}


def _estimated_elements(value):
    """Roughly how many elements an answer holds (its length times its first item's), to send a huge
    one by digest without first encoding millions of them."""
    try:
        n = len(value) if type(value) in (list, tuple, set, frozenset, dict) else 0
        if n and type(value) in (list, tuple):
            first = value[0]
            if type(first) in (list, tuple, set, frozenset, dict):
                return n * (1 + len(first))
        return n
    except Exception:
        return 0


def _write_all(fd, data):
    view = memoryview(data)
    while view:
        n = _os_write(fd, view)
        view = view[n:]


def _load(program, violations):
    """Execute the program in its own namespace; tell the grader which names it defines (or why it failed)."""
    namespace = {"__name__": "__candidate__", "__builtins__": _real_builtins}
    try:
        exec(compile(program, "<candidate>", "exec"), namespace)
    except BaseException as exc:
        line = _program_line(exc)
        where = " (line %d of the program)" % line if line else ""
        try:
            _send_frame(4, {"loaded": False, "error": {"type": type(exc).__name__, "msg": _text_of(exc)[:300] + where,
                                                       "class": classify_exception(exc), "line": line},
                            "violations": list(violations), "t": list(TAMPER)})
        finally:
            try:
                sys.stdout.flush()
            except BaseException:
                pass
            os._exit(0)
    names = sorted(k for k, v in namespace.items() if not k.startswith("__") and callable(v))
    _send_frame(4, {"loaded": True, "names": names, "violations": list(violations), "t": list(TAMPER)})
    return namespace


def _program_line(exc):
    """The innermost line of the program itself in the exception's traceback (its own code, not a library's)."""
    line = getattr(exc, "lineno", None) if isinstance(exc, SyntaxError) else None
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == "<candidate>":
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def _text_of(exc):
    try:
        return str(exc)
    except BaseException:
        return "<unprintable>"


def candidate_main(req_r, resp_w, out_w, limits):
    """Body of the candidate process: never returns."""
    try:
        _wire_descriptors(req_r, resp_w, out_w)
        _confine(limits)
    except BaseException as exc:
        try:
            _send_frame(4, {"loaded": False, "setup": repr(exc)})
        finally:
            os._exit(70)
    _random.seed(limits.get("seed", 0))
    violations = _audit_events()
    try:
        frames = FrameReader(3)
        first = frames.recv()
        program = first["program"]
        _cpu_backstop(first.get("cpu_s", limits["cpu_s"]))
    except BaseException:
        os._exit(71)
    end = CandidateEnd(_load(program, violations), violations, frames)
    while True:
        try:
            frame = end.recv()
        except BaseException:
            os._exit(0)
        try:
            end.send(end.serve(frame))
        except BaseException:
            os._exit(0)
