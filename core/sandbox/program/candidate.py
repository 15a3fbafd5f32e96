"""The candidate process: rlimits, an unprivileged uid, an empty environment; runs the program
and answers the grader's calls with plain data only.

Part of the sandbox worker program (see worker.py): the parts in core/sandbox/program/ are sent into
the container as one source text, in the order docker_runner.PROGRAM_PARTS gives, and share one
namespace there. Standard library only.
"""

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
