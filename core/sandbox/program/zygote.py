"""The zygote: forked before any task data exists, it forks each candidate and, after it, kills
every process of the candidate uid and cleans the scratch space.

Part of the sandbox worker program (see worker.py): the parts in core/sandbox/program/ are sent into
the container as one source text, in the order docker_runner.PROGRAM_PARTS gives, and share one
namespace there. Standard library only.
"""

def _as_uid(fn):
    """Run fn() in a helper forked as the candidate uid (root here lacks DAC_OVERRIDE)."""
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            if CAND_UID is not None:
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


def _kill_leftovers(pid):
    """Every other process but PID 1 and this one (escaped daemons too); outside a container, only the
    candidate's own session, since kill(-1) would reach every process of the user running the tests."""
    try:
        if LOCAL:
            os.killpg(pid, signal.SIGKILL)
        else:
            os.kill(-1, signal.SIGKILL)
    except OSError:
        pass


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
        _kill_leftovers(pid)
        _reap_children()
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
