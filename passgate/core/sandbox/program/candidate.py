"""The candidate process: rlimits, an unprivileged uid, an empty environment; it runs the program and
then the test, in one namespace, as CPython runs `program + test` (grading protocol 3).

Descriptors: 3 brings the job from the grader (the program, then each suite's code), 4 takes the
reports to it, 1 and 2 go to the output capture, 0 is empty. The test's code arrives compiled by the
grader, with no expected value left in it; its assertion sites call the Reporter (report.py).
Standard library only; everything here was bound before the candidate program loads.
"""

import base64
import fcntl
import marshal
import os
import random
import resource
import signal
import sys
import threading

import builtins as _real_builtins   # the module the candidate program gets (it may patch it)

from . import imports
from .audit import TAMPER, install_audit_hook
from .frames import CAND_UID, SCRATCH, FrameReader, send_frame
from .report import Reporter

SIGNALS_IGNORED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGUSR1, signal.SIGUSR2, signal.SIGPIPE)
# what the zygote holds besides descriptors 0-2, its socket and each candidate's pipes (listed once, at its start)
INHERITED_FDS = []
_WAITING_CPU_S = 3600
_active_count = threading.active_count
_b64decode, _marshal_loads = base64.b64decode, marshal.loads
_stdout, _stderr = sys.stdout, sys.stderr
_CANDIDATE_FILE, _TEST_FILE = "<candidate>", "<test>"


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
    """The job arrives on 3, reports leave on 4, stdout and stderr go to the capture pipe, stdin is empty."""
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


def _flush():
    for stream in (sys.stdout, sys.stderr, _stdout, _stderr):
        try:
            stream.flush()
        except BaseException:
            pass


# ---- the job ---------------------------------------------------------------------------
def candidate_main(req_r, resp_w, out_w, limits):
    """Body of the candidate process: never returns."""
    try:
        _wire_descriptors(req_r, resp_w, out_w)
        _confine(limits)
    except BaseException as exc:
        try:
            send_frame(4, {"k": "load", "ok": False, "setup": repr(exc)[:300]})
        finally:
            os._exit(70)
    random.seed(limits.get("seed", 0))
    violations = install_audit_hook()
    try:
        frames = FrameReader(3)
        job = frames.recv()
        _cpu_backstop(job.get("cpu_s", limits["cpu_s"]))
        imports.guard(job.get("imports"))
    except BaseException:
        os._exit(71)
    namespace = _load(job["program"], violations)
    if job.get("probe"):
        _probe(namespace)
    suite = job.get("suite")
    while suite is not None:
        _run_suite(namespace, suite, violations)
        try:
            msg = frames.recv()
            if "fin" in msg:           # the grader confirms the end from here, after the test returned
                send_frame(4, {"k": "fin", "tok": msg["fin"]})
                msg = frames.recv()
            suite = msg.get("suite")
        except BaseException:
            break
    _flush()
    os._exit(0)


def _load(program, violations):
    """Execute the program in its own namespace; tell the grader it loaded (or why it did not)."""
    namespace = {"__name__": "__candidate__", "__builtins__": _real_builtins}
    try:
        exec(compile(program, _CANDIDATE_FILE, "exec"), namespace)
    except BaseException as exc:
        line = _innermost_line(exc, _CANDIDATE_FILE)
        where = " (line %d of the program)" % line if line else ""
        try:
            _flush()
            send_frame(4, {"k": "load", "ok": False, "error": {
                "type": type(exc).__name__, "msg": _text_of(exc)[:300] + where, "class": _load_class(exc),
                "line": line}, "w": list(violations), "tw": list(TAMPER), "imp": imports.attempts()})
        finally:
            os._exit(0)
    send_frame(4, {"k": "load", "ok": True, "w": list(violations), "tw": list(TAMPER), "imp": imports.attempts()})
    return namespace


def _probe(namespace):
    try:
        report = namespace["probe"]()
    except BaseException as exc:
        report = "probe raised %s: %s" % (type(exc).__name__, _text_of(exc)[:200])
    send_frame(4, {"k": "probe", "report": report})


def _run_suite(namespace, suite, violations):
    """The test's code, in the program's namespace, then the end (or what it raised), reported."""
    code = _marshal_loads(_b64decode(suite["code"]))
    reporter = Reporter(4, code)
    namespace.update(__pg_h__=reporter.holes, __pg_b__=reporter.truth, __pg_t__=reporter.held,
                     __pg_c__=reporter.compare)
    imports.set_notify(lambda attempt: reporter.send({"k": "imp", "imp": [attempt]}))
    try:
        exec(code, namespace)
    except BaseException as exc:
        _flush()
        frame = _exception_frame(exc, reporter.test_codes)
        if frame is None:
            frame = {"k": "end"}
    else:
        _flush()
        frame = {"k": "end"}
    frame.update(w=list(violations), tw=list(TAMPER), threads=_active_count(), imp=imports.attempts())
    reporter.finish(frame)


# ---- what an exception means -------------------------------------------------------------
def _exception_frame(exc, test_codes):
    """The report of an exception that ended the test, or None when it is the test's own clean exit
    (`sys.exit(0)` from the test's code, as `unittest.main()` ends)."""
    kind = type(exc)
    origin = _origin(exc, test_codes)
    if issubclass(kind, SystemExit):
        if origin == _TEST_FILE and exc.code in (0, None):
            return None
        if origin != _TEST_FILE:
            TAMPER.append("exit_in_test: SystemExit(%s) raised by the program during the test" % _text_of(exc)[:40])
        cls = "premature_exit"
    elif issubclass(kind, MemoryError):
        cls = "memory_exceeded"
    elif issubclass(kind, AssertionError) and origin == _TEST_FILE:
        cls = "wrong_answer"
    elif issubclass(kind, RecursionError) or origin == _CANDIDATE_FILE:
        cls = "runtime_error"
    else:
        cls = "wrong_answer" if origin == _TEST_FILE else "runtime_error"
    frame = {"k": "exc", "t": kind.__name__, "m": _text_of(exc)[:500], "c": cls, "origin": origin}
    line = _innermost_line(exc, _TEST_FILE)
    if line is not None:
        frame["line"] = line
    return frame


def _origin(exc, test_codes):
    """Whose code raised: the innermost frame of the program or of the test in the traceback. The
    test's frames are known by their code objects (the ones the grader compiled), never by a name a
    program could give code it compiles itself."""
    found, tb = "", exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if id(code) in test_codes:
            found = _TEST_FILE
        elif code.co_filename == _CANDIDATE_FILE or code.co_filename == _TEST_FILE:
            found = _CANDIDATE_FILE
        tb = tb.tb_next
    return found


def _innermost_line(exc, filename):
    line = getattr(exc, "lineno", None) if isinstance(exc, SyntaxError) and filename == _CANDIDATE_FILE else None
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def _load_class(exc):
    if isinstance(exc, SyntaxError):
        return "syntax_error"
    if isinstance(exc, MemoryError):
        return "memory_exceeded"
    if isinstance(exc, SystemExit):
        return "premature_exit"
    return "runtime_error"


def _text_of(exc):
    try:
        return str(exc)
    except BaseException:
        return "<unprintable>"
