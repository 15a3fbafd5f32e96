"""passgate sandbox worker: PID 1 of a long-lived container, grading one candidate at a time.

Sent into the container as source (after codec.py) over stdin; stdlib only. Three roles:

* grader (this process, PID 1, root with SETUID/SETGID/KILL only): holds the task's test code
  and runs it. The names `candidate` / the entry point are proxies into the candidate process.
* zygote: forked at start-up, before any task data arrives, so its memory never holds tests or
  expected answers. It forks each candidate process and reports its exit status and rusage.
* candidate: forked from the zygote, own session, rlimits, dropped to an unprivileged uid, empty
  environment, fresh scratch directory; runs the program and answers calls over a pipe.

Host protocol: one JSON object per line on stdin, one reply per line on stdout, each with the
request's `id`. Ops: ping, task, eval, probe.
"""

import errno
import gc
import json
import os
import resource
import select
import signal
import socket
import struct
import sys
import time

import builtins as _builtins
import fcntl
import random as _random

CONFIG = globals().get("PASSGATE_CONFIG") or {}
CAND_UID = int(CONFIG.get("uid", 10001))
SCRATCH_ROOT = CONFIG.get("scratch", "/tmp")
SCRATCH = os.path.join(SCRATCH_ROOT, "pg-run")
SHARED_DIRS = ("/tmp", "/dev/shm")
MAX_MSG = 64 << 20
GRADER_BUDGET_S = 600.0
SIGNALS_IGNORED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGUSR1, signal.SIGUSR2, signal.SIGPIPE)
CLK_TCK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


# ---------------------------------------------------------------- framing (pipes and sockets)
def _send_frame(fd, obj):
    data = json.dumps(obj, separators=(",", ":")).encode()
    payload = struct.pack(">I", len(data)) + data
    view = memoryview(payload)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def _recv_exact(fd, n):
    chunks = []
    while n:
        b = os.read(fd, min(n, 1 << 20))
        if not b:
            raise EOFError
        chunks.append(b)
        n -= len(b)
    return b"".join(chunks)


def _recv_frame(fd):
    (n,) = struct.unpack(">I", _recv_exact(fd, 4))
    if n > MAX_MSG:
        raise ValueError("message too large")
    return json.loads(_recv_exact(fd, n))


# ---------------------------------------------------------------- candidate process
def _audit_events():
    """Record attempts that cross the boundary; evidence for the record, not enforcement."""
    seen = []
    scratch = SCRATCH

    def hook(event, args):
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


def _close_fds_from(lowest):
    """Close every open descriptor >= lowest (listing them: a blind closerange costs 64k syscalls here)."""
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        if fd >= lowest:
            try:
                os.close(fd)
            except OSError:
                pass


def _classify_exception(exc):
    if isinstance(exc, SyntaxError):
        return "syntax_error"
    if isinstance(exc, MemoryError):
        return "memory_exceeded"
    if isinstance(exc, (SystemExit, KeyboardInterrupt, GeneratorExit)):
        return "premature_exit"
    return "runtime_error"


def _describe(exc):
    try:
        text = str(exc)
    except BaseException:
        text = "<unprintable>"
    return {"type": type(exc).__name__, "msg": text[:300], "class": _classify_exception(exc)}


def candidate_main(req_r, resp_w, out_w, limits):
    """Body of the candidate process: never returns."""
    try:
        os.setsid()
        req_r, resp_w, out_w = (fcntl.fcntl(fd, fcntl.F_DUPFD, 100) for fd in (req_r, resp_w, out_w))
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(out_w, 1)
        os.dup2(out_w, 2)
        os.dup2(req_r, 3)
        os.dup2(resp_w, 4)
        _close_fds_from(5)
        for s in SIGNALS_IGNORED:
            signal.signal(s, signal.SIG_DFL)
        # backstop only: the grader enforces each suite's CPU budget precisely; one process may
        # serve both suites
        cpu = int(2 * float(limits["cpu_s"])) + 2
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
        mem = int(limits["memory_mb"]) << 20
        resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
        fsize = int(limits["file_size_mb"]) << 20
        resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
        resource.setrlimit(resource.RLIMIT_NPROC, (int(limits["nproc"]), int(limits["nproc"])))
        resource.setrlimit(resource.RLIMIT_NOFILE, (int(limits["nofile"]), int(limits["nofile"])))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        os.setgroups([])
        os.setgid(CAND_UID)
        os.setuid(CAND_UID)
        os.chdir(SCRATCH)
        tz = os.environ.get("TZ", "UTC")
        os.environ.clear()
        # TZ is the container's (pinned), so the time module needs no re-initialisation; sys.std*
        # already wrap descriptors 0-2, which now point at /dev/null and the capture pipe
        os.environ.update(PATH="/usr/local/bin:/usr/bin:/bin", HOME=SCRATCH, TMPDIR=SCRATCH, LANG="C.UTF-8",
                          TZ=tz)
    except BaseException as exc:
        try:
            _send_frame(4, {"loaded": False, "setup": repr(exc)})
        finally:
            os._exit(70)
    _random.seed(limits.get("seed", 0))
    violations = _audit_events()
    handles = {}

    def handle_for(obj):
        key = id(obj)
        handles[key] = obj
        return key

    def resolve(key):
        return handles[key]

    try:
        first = _recv_frame(3)
        program = first["program"]
    except BaseException:
        os._exit(71)
    namespace = {"__name__": "__candidate__", "__builtins__": __builtins__}
    try:
        code = compile(program, "<candidate>", "exec")
        exec(code, namespace)
        names = sorted(k for k, v in namespace.items() if not k.startswith("__") and callable(v))
        _send_frame(4, {"loaded": True, "names": names, "violations": list(violations)})
    except BaseException as exc:
        try:
            _send_frame(4, {"loaded": False, "error": _describe(exc), "violations": list(violations)})
        finally:
            sys.stdout.flush()
            os._exit(0)
    while True:
        try:
            req = _recv_frame(3)
        except BaseException:
            os._exit(0)
        reply = {}
        try:
            op = req["op"]
            target = namespace[req["name"]] if "name" in req else resolve(req["h"])
            if op == "call":
                args = decode(req.get("a", []), resolve)
                kwargs = decode(req.get("k", {"D": []}), resolve)
                value = target(*args, **kwargs)
            elif op == "getattr":
                value = getattr(target, req["attr"])
            elif op == "setattr":
                setattr(target, req["attr"], decode(req["v"], resolve))
                value = None
            elif op == "iter":
                value = iter(target)
            elif op == "next":
                value = next(target)
            elif op == "len":
                value = len(target)
            elif op == "getitem":
                value = target[decode(req["key"], resolve)]
            elif op == "contains":
                value = decode(req["key"], resolve) in target
            elif op == "bool":
                value = bool(target)
            elif op == "repr":
                value = repr(target)[:2000]
            else:
                raise ValueError("unknown op")
            reply["v"] = encode(value, handle_for)
        except StopIteration:
            reply = {"stop": True}
        except BaseException as exc:
            reply = {"raise": _describe(exc)}
        reply["violations"] = list(violations)
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except BaseException:
            pass
        try:
            _send_frame(4, reply)
        except BaseException:
            os._exit(0)


# ---------------------------------------------------------------- zygote
def _as_uid(fn):
    """Run fn() in a helper forked as the candidate uid (root here lacks DAC_OVERRIDE)."""
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            os.setgroups([])
            os.setgid(CAND_UID)
            os.setuid(CAND_UID)
            fn()
        except BaseException:
            code = 1
        os._exit(code)
    return os.waitpid(pid, 0)[1]


def _make_scratch():
    # world-listable so the zygote (root without DAC_OVERRIDE) can see whether it needs cleaning
    os.makedirs(SCRATCH, exist_ok=True)
    os.chmod(SCRATCH, 0o755)


def _wipe(path):
    for root, dirs, files in os.walk(path, topdown=False):
        for name in files:
            try:
                os.unlink(os.path.join(root, name))
            except OSError:
                pass
        for name in dirs:
            p = os.path.join(root, name)
            try:
                os.chmod(p, 0o700)
            except OSError:
                pass
            try:
                if os.path.islink(p):
                    os.unlink(p)
                else:
                    os.rmdir(p)
            except OSError:
                pass


def _leftovers(baseline):
    found = []
    for d in SHARED_DIRS:
        try:
            found += [os.path.join(d, x) for x in os.listdir(d) if os.path.join(d, x) not in baseline]
        except OSError:
            pass
    return found


def _remove_paths(paths):
    for p in paths:
        if os.path.isdir(p) and not os.path.islink(p):
            _wipe(p)
            try:
                os.rmdir(p)
            except OSError:
                pass
        else:
            try:
                os.unlink(p)
            except OSError:
                pass


# modules candidates commonly import: loaded once in the zygote so each candidate inherits them
WARM_IMPORTS = ("math", "re", "typing", "collections", "itertools", "functools", "heapq", "bisect", "string",
                "random", "hashlib", "statistics", "copy", "operator")


def zygote_main(sock):
    """Fork candidates on request; after each, kill everything of the candidate uid and clean up."""
    for s in SIGNALS_IGNORED:
        signal.signal(s, signal.SIG_IGN)
    for name in WARM_IMPORTS:
        try:
            __import__(name)
        except Exception:
            pass
    gc.collect()
    gc.freeze()  # keeps collections in a candidate from touching (and copying) every inherited page
    _as_uid(_make_scratch)
    baseline = set(_leftovers(set()))
    while True:
        try:
            data, fds, _flags, _addr = socket.recv_fds(sock, 65536, 4)
        except OSError:
            os._exit(0)
        if not data:
            os._exit(0)
        req = json.loads(data)
        if req.get("op") == "exit":
            os._exit(0)
        pid = os.fork()
        if pid == 0:
            sock.close()
            candidate_main(fds[0], fds[1], fds[2], req["limits"])
            os._exit(72)
        for fd in fds:
            os.close(fd)
        sock.sendall(json.dumps({"pid": pid}).encode() + b"\n")
        _pid, status, ru = os.wait4(pid, 0)
        try:
            os.kill(-1, signal.SIGKILL)  # every other process but PID 1 and this one: escaped daemons too
        except OSError:
            pass
        while True:
            try:
                if os.waitpid(-1, os.WNOHANG)[0] == 0:
                    break
            except ChildProcessError:
                break
        dirty = False
        try:
            dirty = bool(os.listdir(SCRATCH))
        except OSError:
            dirty = True
        extra = _leftovers(baseline)
        if dirty or extra:
            _as_uid(lambda: (_wipe(SCRATCH), _remove_paths(extra), _make_scratch()))
        sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else 0
        code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else None
        sock.sendall(json.dumps({"exit": code, "signal": sig, "cpu_s": ru.ru_utime + ru.ru_stime,
                                 "maxrss_kb": ru.ru_maxrss, "cleaned": dirty or bool(extra)}).encode() + b"\n")


# ---------------------------------------------------------------- grader side
class CandidateGone(BaseException):
    """The candidate process ended or was ended; `reason` names the failure class."""

    def __init__(self, reason, detail=""):
        BaseException.__init__(self, reason, detail)
        self.reason, self.detail = reason, detail


class GraderTimeout(BaseException):
    pass


class RaisedByCandidate(Exception):
    """Stand-in for a candidate exception type that is not a builtin."""


class CandidateExited(BaseException):
    """The candidate raised SystemExit (or similar) inside a call: tests cannot catch this."""


class Channel:
    """One candidate process seen from the grader: calls, output capture, CPU and wall limits."""

    def __init__(self, zsock, zfile, limits):
        self.limits = limits
        # the wall backstop counts only time spent waiting for the candidate: the grader's own work
        # (e.g. computing expected outputs with the reference) never eats the candidate's budget
        self.wall_budget = float(limits["wall_s"])
        self.waited = 0.0
        self.cpu_limit = float(limits["cpu_s"])
        self.cpu_base = 0.0
        self.out_cap = int(limits["output_cap_kb"]) << 10
        self.keep = int(limits["output_keep_kb"]) << 10
        self.kept = bytearray()
        self.out_bytes = 0
        self.violations = []
        self.compared_remote = False
        self.gone = None
        self.zsock, self.zfile = zsock, zfile
        req_r, self.req_w = os.pipe()
        self.resp_r, resp_w = os.pipe()
        self.out_r, out_w = os.pipe()
        socket.send_fds(zsock, [json.dumps({"op": "spawn", "limits": limits}).encode()], [req_r, resp_w, out_w])
        for fd in (req_r, resp_w, out_w):
            os.close(fd)
        self.t0 = time.monotonic()
        self.pid = json.loads(zfile.readline())["pid"]
        self.t_spawn = time.monotonic() - self.t0
        self.exit_info = None
        self.last_cpu = 0.0
        self.cpu_checked = self.t0
        self.loaded = False
        self.load_failure = None
        self.names = set()

    # -- limits
    def begin_suite(self):
        """Each suite gets the full CPU and wall budget, counted from now."""
        self.waited = 0.0
        self.cpu_base = self.cpu_time() if self.loaded else 0.0

    def suite_cpu(self):
        if self.gone is not None:
            return max(0.0, float(self.collect().get("cpu_s") or 0.0) - self.cpu_base)
        return max(0.0, self.cpu_time() - self.cpu_base)

    def over_cpu(self):
        return self.cpu_time() - self.cpu_base > self.cpu_limit

    def cpu_time(self):
        self.cpu_checked = time.monotonic()
        try:
            with open("/proc/%d/stat" % self.pid, "rb") as fh:
                fields = fh.read().rsplit(b")", 1)[1].split()
            self.last_cpu = (int(fields[11]) + int(fields[12])) / CLK_TCK
        except (OSError, IndexError, ValueError):
            pass
        return self.last_cpu

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
        entered = time.monotonic()
        try:
            self._wait_from(fd, event, entered)
        finally:
            self.waited += time.monotonic() - entered

    def _wait_from(self, fd, event, entered):
        out_open = True
        while True:
            if self.gone is not None:
                raise self.gone
            now = time.monotonic()
            left = self.wall_budget - self.waited - (now - entered)
            if left <= 0:
                if self.over_cpu():
                    self.kill("timeout", "cpu %.2fs over the %.2fs limit" % (self.last_cpu - self.cpu_base,
                                                                          self.cpu_limit))
                self.kill("timeout", "wall-clock backstop after %.2fs with %.2fs cpu (blocked or starved)"
                          % (float(self.limits["wall_s"]), self.last_cpu - self.cpu_base))
            poller = select.poll()
            poller.register(fd, event)
            if out_open:
                poller.register(self.out_r, select.POLLIN)
            ready = poller.poll(min(left, 0.05) * 1000)
            now = time.monotonic()
            if now - self.cpu_checked >= 0.05 and self.over_cpu():
                self.kill("timeout", "cpu %.2fs over the %.2fs limit" % (self.last_cpu - self.cpu_base,
                                                                      self.cpu_limit))
            hit = False
            for rfd, ev in ready:
                if rfd == self.out_r:
                    out_open = self._drain_output() and out_open
                elif rfd == fd:
                    hit = True
            if hit:
                return

    def _write(self, payload):
        view = memoryview(payload)
        while view:
            self._wait(self.req_w, select.POLLOUT)
            try:
                n = os.write(self.req_w, view)
            except BrokenPipeError:
                self._ended()
            view = view[n:]

    def _read(self, n):
        chunks = []
        while n:
            self._wait(self.resp_r, select.POLLIN)
            b = os.read(self.resp_r, min(n, 1 << 20))
            if not b:
                self._ended()
            chunks.append(b)
            n -= len(b)
        return b"".join(chunks)

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
        self.gone = CandidateGone(reason, detail)
        raise self.gone

    def send(self, obj):
        data = json.dumps(obj, separators=(",", ":")).encode()
        self._write(struct.pack(">I", len(data)) + data)

    def recv(self):
        (n,) = struct.unpack(">I", self._read(4))
        if n > MAX_MSG:
            self.kill("output_exceeded", "reply of %d bytes" % n)
        try:
            msg = json.loads(self._read(n))
        except ValueError:
            self.kill("not_plain_data", "reply is not valid data")
        if not isinstance(msg, dict):
            self.kill("not_plain_data", "reply is not valid data")
        v = msg.get("violations")
        if isinstance(v, list):
            self.violations = [str(x)[:200] for x in v[:50]]
        return msg

    def request(self, msg):
        self.send(msg)
        reply = self.recv()
        if "raise" in reply:
            raise _candidate_exception(reply["raise"])
        if reply.get("stop"):
            raise StopIteration
        try:
            return decode(reply.get("v"), self.remote)
        except (NotData, ValueError, TypeError, KeyError, RecursionError) as exc:
            self.kill("not_plain_data", "reply could not be decoded: %s" % exc)

    def remote(self, key):
        return RemoteObject(self, key)

    def collect(self):
        """Ensure the candidate is gone and return the zygote's exit record (once)."""
        if self.exit_info is None:
            for target in (lambda: os.killpg(self.pid, signal.SIGKILL), lambda: os.kill(self.pid, signal.SIGKILL)):
                try:
                    target()
                except OSError:
                    pass
            line = self.zfile.readline()
            self.exit_info = json.loads(line) if line else {"exit": None, "signal": 0, "cpu_s": self.last_cpu,
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
        when it is still alive, so a failure there never changes the protected verdict.
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


# ---------------------------------------------------------------- probe (runs as a candidate)
PROBE_PROGRAM = r'''
import os, socket, json, sys, sysconfig
report = {}
def attempt(fn):
    try:
        return {"ok": True, "value": fn()}
    except BaseException as e:
        return {"ok": False, "error": "%s: %s" % (type(e).__name__, e)}
def udp_route(host):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.connect((host, 53))
        return s.getsockname()[0]
    finally:
        s.close()
def probe():
    r = {}
    r["interfaces"] = attempt(lambda: [n for _, n in socket.if_nameindex()])
    r["route_public"] = attempt(lambda: udp_route("192.0.2.1"))
    r["route_gateway"] = attempt(lambda: udp_route("172.17.0.1"))
    r["loopback_tcp"] = attempt(lambda: socket.create_connection(("127.0.0.1", 2375), timeout=0.5).close())
    def resolvers():
        try:
            lines = open("/etc/resolv.conf").read().splitlines()
        except OSError:
            return []
        return [l.split()[1] for l in lines if l.startswith("nameserver") and len(l.split()) > 1]
    r["resolvers"] = attempt(resolvers)
    r["resolver_routes"] = {ns: attempt(lambda ns=ns: udp_route(ns)) for ns in (r["resolvers"].get("value") or [])
                            if ":" not in ns}
    r["docker_socket"] = [p for p in ("/var/run/docker.sock", "/run/docker.sock") if os.path.exists(p)]
    r["shadow_read"] = attempt(lambda: len(open("/etc/shadow").read()))
    def environ_of(pid):
        data = open("/proc/%s/environ" % pid, "rb").read()
        return [kv.split(b"=", 1)[0].decode("utf-8", "replace") for kv in data.split(b"\0") if kv]
    r["pid1_environ_keys"] = attempt(lambda: environ_of(1))
    r["own_environ_keys"] = sorted(os.environ)
    import hashlib
    def env_hashes():
        out = []
        for pid in [p for p in os.listdir("/proc") if p.isdigit()]:
            try:
                data = open("/proc/%s/environ" % pid, "rb").read()
            except OSError:
                continue
            out += [hashlib.sha256(kv.split(b"=", 1)[1]).hexdigest() for kv in data.split(b"\0") if b"=" in kv]
        out += [hashlib.sha256(v.encode()).hexdigest() for v in os.environ.values()]
        return sorted(set(out))
    r["environ_value_sha256"] = attempt(env_hashes)
    writes = {}
    for d in ("/", "/usr", "/etc", "/opt", sysconfig.get_paths()["purelib"], sysconfig.get_paths()["stdlib"]):
        def w(d=d):
            p = os.path.join(d, ".passgate-probe")
            with open(p, "w") as fh:
                fh.write("x")
            os.unlink(p)
            return "written"
        writes[d] = attempt(w)
    r["writes"] = writes
    def scratch():
        with open("probe.txt", "w") as fh:
            fh.write("x")
        return os.getcwd()
    r["scratch_write"] = attempt(scratch)
    st = os.statvfs("/")
    r["root_readonly"] = bool(st.f_flag & os.ST_RDONLY)
    tmp = os.statvfs("/tmp")
    r["tmp_bytes"] = tmp.f_blocks * tmp.f_frsize
    r["uid"] = os.getuid()
    r["gid"] = os.getgid()
    def caps():
        for line in open("/proc/self/status"):
            if line.startswith("CapEff"):
                return line.split()[1]
    r["cap_eff"] = attempt(caps)
    def libc_call(name, *args):
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        rc = getattr(libc, name)(*args)
        return {"rc": rc, "errno": ctypes.get_errno()}
    r["mount"] = attempt(lambda: libc_call("mount", b"none", b"/tmp", b"tmpfs", 0, None))
    r["ptrace_pid1"] = attempt(lambda: libc_call("ptrace", 16, 1, None, None))
    r["kill_pid1"] = attempt(lambda: os.kill(1, 0))
    def forks():
        import resource, time
        limit = resource.getrlimit(resource.RLIMIT_NPROC)[0]
        pids = []
        try:
            for _ in range(limit + 8):
                pid = os.fork()
                if pid == 0:
                    time.sleep(5)
                    os._exit(0)
                pids.append(pid)
        except OSError as e:
            err = e.errno
        else:
            err = None
        for pid in pids:
            try:
                os.kill(pid, 9)
                os.waitpid(pid, 0)
            except OSError:
                pass
        return {"forked": len(pids), "nproc_limit": limit, "errno": err}
    r["processes"] = attempt(forks)
    def memory():
        import resource
        limit = resource.getrlimit(resource.RLIMIT_AS)[0]
        try:
            b = bytearray(limit + (64 << 20))
            return {"allocated_over_limit": True, "limit": limit}
        except MemoryError:
            return {"allocated_over_limit": False, "limit": limit}
    r["memory"] = attempt(memory)
    r["uname"] = list(os.uname())
    def cgroup_mem():
        for p in ("/sys/fs/cgroup/memory/memory.limit_in_bytes", "/sys/fs/cgroup/memory.max"):
            if os.path.exists(p):
                return open(p).read().strip()
    r["cgroup_memory"] = attempt(cgroup_mem)
    return json.dumps(r)
'''


def run_probe(grader, limits):
    task = {"entry_point": "probe", "code": {"test_setup": None, "public_tests": None,
                                             "protected_tests": compile("__pg_result__ = candidate()", "<probe>", "exec")},
            "names": {"probe"}, "task_id": "<probe>"}
    grader.tasks["<probe>"] = task
    grader.caches["<probe>"] = {}
    ch = Channel(grader.zsock, grader.zfile, limits)
    try:
        ch.send({"program": PROBE_PROGRAM})
        msg = ch.recv()
        if not msg.get("loaded"):
            return {"error": "probe did not load: %r" % (msg,)}
        report = json.loads(NameProxy(ch, "probe")())
    except CandidateGone as gone:
        report = {"error": "probe ended: %s %s" % (gone.reason, gone.detail)}
    finally:
        info = ch.collect()
    report["probe_exit"] = info
    report["worker"] = {"uid": os.getuid(), "pid": os.getpid(), "python": sys.version.split()[0],
                        "environ_keys": sorted(os.environ)}
    return report


# ---------------------------------------------------------------- main loop
def main():
    for s in SIGNALS_IGNORED:
        signal.signal(s, signal.SIG_IGN)
    grader = Grader()
    grader.start_zygote()
    gc.collect()
    gc.freeze()
    out = sys.stdout
    out.write(json.dumps({"ready": True, "pid": os.getpid(), "uid": os.getuid(),
                          "python": sys.version.split()[0]}) + "\n")
    out.flush()
    stdin = sys.stdin.buffer
    while True:
        line = stdin.readline()
        if not line:
            break
        if not line.strip():
            continue
        try:
            req = json.loads(line)
        except ValueError:
            continue
        rid = req.get("id")
        try:
            op = req.get("op")
            if op == "ping":
                res = {"pong": True}
            elif op == "task":
                grader.add_task(req)
                res = {"ok": True}
            elif op == "eval":
                res = grader.evaluate(req)
            elif op == "probe":
                res = run_probe(grader, req["limits"])
            else:
                res = {"error": "unknown op %r" % (op,)}
        except BaseException as exc:  # the worker must answer every request
            import traceback
            res = {"worker_error": "%s: %s" % (type(exc).__name__, exc),
                   "trace": traceback.format_exc()[-2000:]}
        res["id"] = rid
        while True:
            try:
                if os.waitpid(-1, os.WNOHANG)[0] == 0:
                    break
            except ChildProcessError:
                break
        out.write(json.dumps(res) + "\n")
        out.flush()


main()
