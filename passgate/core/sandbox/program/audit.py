"""The candidate process's audit hook: boundary attempts (violations) and tamper tripwires.

Evidence for the record, not enforcement: the process boundary and the sandbox are the barrier, and
a candidate that knows of the hook can evade it (C code), so a count is a lower bound. Standard
library only; everything is bound when the module is imported, before any program runs.
"""

import os
import sys

from .frames import SCRATCH
from .imports import installed_package_asked

TAMPER = []                         # tamper tripwires seen (telemetry sent with every reply; never a verdict)
_FRAME_EVENTS = frozenset({"sys._getframe", "code.__new__"})
_ALWAYS_TAMPER = {"sys.settrace": "settrace", "sys.setprofile": "setprofile", "sys._current_frames": "current_frames",
                  "gc.get_objects": "gc_objects", "gc.get_referrers": "gc_objects", "gc.get_referents": "gc_objects"}
_CHANNEL_PATHS = frozenset({3, 4, "/proc/self/fd/3", "/proc/self/fd/4", "/dev/fd/3", "/dev/fd/4"})


def _tamper(kind, detail):
    entry = "%s: %s" % (kind, detail)
    if entry not in TAMPER and len(TAMPER) < 50:
        TAMPER.append(entry)


def _asker(frame):
    """Whose code asked: the first frame, walking out, of the candidate's program or of the test (the
    standard library takes frames for its own ends, or for whoever called it: inspect, traceback)."""
    for _ in range(12):
        if frame is None:
            return ""
        name = frame.f_code.co_filename
        if name in ("<candidate>", "<test>"):
            return name
        if not name.endswith(("/inspect.py", "/traceback.py", "/linecache.py")):
            return name
        frame = frame.f_back
    return ""


def _tamper_of(event, args, caller, own_pid):
    """The tripwire an audit event trips, as (kind, detail), or None. Frame and code events count only
    when the candidate's own code (or inspect/traceback on its behalf) asked: the standard library
    takes frames for its own ends (namedtuple, typing, logging)."""
    if event in _ALWAYS_TAMPER:
        return _ALWAYS_TAMPER[event], event
    if event in _FRAME_EVENTS:
        name = _asker(caller)
        if name == "<candidate>":
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


def install_audit_hook():
    """Record attempts that cross the boundary (violations) and tamper tripwires: evidence for the
    record, not enforcement (the process boundary is the barrier; audit hooks can be bypassed)."""
    seen = []
    scratch = SCRATCH
    own_pid = str(os.getpid())
    busy = [False]
    getframe = sys._getframe           # bound now: the program may replace sys's attributes

    def hook(event, args):
        if busy[0]:
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
                if not installed_package_asked(getframe(1)):    # numpy loading its own library (where the
                    seen.append("native:%s" % event)            # task allows numpy) is not an attempt
        except Exception:
            pass
        if len(seen) > 50:
            del seen[50:]
    sys.addaudithook(hook)
    return seen
