"""The zygote: forked before any task data exists, it forks each candidate and, after it, kills
every process of the candidate uid and cleans the scratch space. Standard library only.
"""

import gc
import json
import os
import signal
import socket
import time

from .candidate import INHERITED_FDS, SIGNALS_IGNORED, candidate_main
from .frames import CAND_UID, LOCAL, SCRATCH, SHARED_DIRS, reap_children

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


# what a candidate forked ahead of its request was set up with; the CPU backstop is set at handover
_SETUP_KEYS = ("memory_mb", "file_size_mb", "nproc", "nofile", "seed")


def _setup_key(limits):
    return tuple(limits.get(k) for k in _SETUP_KEYS)


class _Ready:
    """The next candidate, forked as soon as the last one was cleaned up: set up (rlimits, uid,
    scratch), waiting for its program on descriptor 3, so a request finds it already there."""

    def __init__(self, sock, limits):
        req_r, req_w = os.pipe()
        resp_r, resp_w = os.pipe()
        out_r, out_w = os.pipe()
        pid = os.fork()
        if pid == 0:
            sock.close()
            for fd in (req_w, resp_r, out_r):
                os.close(fd)
            candidate_main(req_r, resp_w, out_w, limits)
            os._exit(72)
        for fd in (req_r, resp_w, out_w):
            os.close(fd)
        self.pid, self.fds, self.key = pid, (req_w, resp_r, out_r), _setup_key(limits)

    def hand_over(self, sock):
        socket.send_fds(sock, [json.dumps({"pid": self.pid}).encode()], list(self.fds))
        for fd in self.fds:
            os.close(fd)

    def discard(self):
        """A candidate set up for other limits: ended before it ever held a program."""
        for fd in self.fds:
            os.close(fd)
        try:
            os.kill(self.pid, signal.SIGKILL)
        except OSError:
            pass
        os.wait4(self.pid, 0)


def _open_fds_besides(keep):
    """Descriptors open here other than 0-2 and `keep` (the listing's own is closed by then)."""
    found = []
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        if fd > 2 and fd != keep:
            try:
                os.fstat(fd)
            except OSError:
                continue
            found.append(fd)
    return found


def zygote_main(sock):
    """Hand out candidates on request; after each, kill everything of the candidate uid and clean up."""
    for s in SIGNALS_IGNORED:
        signal.signal(s, signal.SIG_IGN)
    for name in WARM_IMPORTS:
        try:
            __import__(name)
        except Exception:
            pass
    INHERITED_FDS[:] = _open_fds_besides(sock.fileno())
    gc.collect()
    gc.freeze()  # keeps collections in a candidate from touching (and copying) every inherited page
    _as_uid(_make_scratch)
    places = _Places()
    ready = None
    while True:
        try:
            data, _fds, _flags, _addr = socket.recv_fds(sock, 1 << 20, 0)
        except OSError:
            os._exit(0)
        if not data:
            os._exit(0)
        req = json.loads(data)
        if req.get("op") == "exit":
            os._exit(0)
        if ready is not None and ready.key != _setup_key(req["limits"]):
            ready.discard()
            _clean_up(ready.pid, places)
            ready = None
        candidate = ready or _Ready(sock, req["limits"])
        candidate.hand_over(sock)
        _pid, status, ru = os.wait4(candidate.pid, 0)
        cleaned = _clean_up(candidate.pid, places)
        sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else 0
        code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else None
        sock.send(json.dumps({"exit": code, "signal": sig, "cpu_s": ru.ru_utime + ru.ru_stime,
                              "maxrss_kb": ru.ru_maxrss, "cleaned": cleaned}).encode())
        ready = _Ready(sock, req["limits"])      # forked while the grader reports this one


# a ctime this much older than the moment it is read cannot be shared by a later change, however
# coarse the file system's clock (a jiffy, on some kernels' tmpfs)
_SETTLED_NS = 50_000_000


class _Places:
    """Where a candidate can leave files (its scratch, /tmp, /dev/shm) as they were after the last clean-up.

    A directory's ctime moves with every entry added, removed or renamed in it and with every change
    to its mode, owner or times, and no unprivileged call sets it back (utime moves it too), so an
    unchanged, settled ctime on all of them means there is nothing to list; a changed one, or one so
    recent that a change in the same clock tick could share it, means a full look."""

    def __init__(self):
        self.baseline = set(_leftovers(set()))
        self.stamps, self.settled = self._stamps()

    @staticmethod
    def _stamps():
        out = []
        for d in (SCRATCH,) + SHARED_DIRS:
            try:
                out.append(os.stat(d).st_ctime_ns)
            except OSError:
                out.append(None)
        now = time.time_ns()
        return out, None not in out and all(now - c > _SETTLED_NS for c in out)

    def unchanged(self):
        if not self.settled:
            return False
        return self._stamps()[0] == self.stamps

    def clean(self):
        """Remove what the candidate wrote; True when there was something."""
        dirty = False
        try:
            dirty = bool(os.listdir(SCRATCH))
        except OSError:
            dirty = True
        extra = _leftovers(self.baseline)
        if dirty or extra:
            _as_uid(lambda: (_wipe(SCRATCH), _remove_paths(extra), _make_scratch()))
        self.stamps, self.settled = self._stamps()
        return dirty or bool(extra)


def _clean_up(pid, places):
    """Kill every process the candidate left and remove what it wrote; True when there was something."""
    _kill_leftovers(pid)
    reap_children()
    if places.unchanged():
        return False
    return places.clean()
