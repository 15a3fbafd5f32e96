"""One candidate process seen from the grader: its job, its reports, output capture, CPU and wall
budgets, and why it ended. Standard library only.

Everything the candidate influences is charged to its wall budget: waiting for its reports, decoding
them and deciding the values it chose. The grader's own work between reports (the test's static
statements, computing expected values) is not.
"""

import json
import os
import select
import signal
import socket
import time

from .frames import _unpack_len, CLK_TCK, MAX_FRAME, frame_bytes, loads
from .imports import clean as clean_imports

_CANDIDATE_CLASSES = {"runtime_error", "memory_exceeded", "syntax_error", "premature_exit", "wrong_answer"}


class CandidateGone(BaseException):
    """The candidate process ended or was ended; `reason` names the failure class."""

    def __init__(self, reason, detail=""):
        BaseException.__init__(self, reason, detail)
        self.reason, self.detail = reason, detail
        self.exc_type = None


class _Overran(BaseException):
    """Work charged to the candidate ran past its wall budget."""


def _overran(_sig, _frame):
    raise _Overran()


class Channel:
    """One candidate process: spawned from the zygote, given a job, read report by report."""

    def __init__(self, zsock, limits):
        self.limits = limits
        self.wall_budget = float(limits["wall_s"])
        self.charged_s = 0.0
        self.cpu_limit = float(limits["cpu_s"])
        self.cpu_base = 0.0
        self.out_cap = int(limits["output_cap_kb"]) << 10
        self.keep = int(limits["output_keep_kb"]) << 10
        self.kept = bytearray()
        self.out_bytes = 0
        self.violations = []
        self.tamper = []
        self.imports = []                # disallowed imports the program attempted (imports.py)
        self.threads = 1
        self.gone = None
        self.zsock = zsock
        self.exit_info = None
        self.last_cpu = 0.0
        self.loaded = False
        self.suite_passed = False        # the last suite passed (the process may run the next one)
        self.reused = False
        self._spawn(limits)
        self.cpu_checked = self.t0

    def _spawn(self, limits):
        """A candidate process from the zygote, with the grader's ends of its pipes (job, reports, output)."""
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
        self.charged_s = 0.0
        self.cpu_base = self.cpu_time() if self.loaded else 0.0

    def suite_cpu(self):
        if self.gone is not None:
            return max(0.0, float(self.collect().get("cpu_s") or 0.0) - self.cpu_base)
        return max(0.0, self.cpu_time() - self.cpu_base)

    def over_cpu(self):
        return self.cpu_time() - self.cpu_base > self.cpu_limit

    def cpu_time(self):
        """The process's CPU from /proc in three system calls; also how many threads it has."""
        self.cpu_checked = time.monotonic()
        try:
            fd = os.open("/proc/%d/stat" % self.pid, os.O_RDONLY | os.O_CLOEXEC)
            try:
                fields = os.read(fd, 4096).rsplit(b")", 1)[1].split()
            finally:
                os.close(fd)
            self.last_cpu = (int(fields[11]) + int(fields[12])) / CLK_TCK
            self.threads = int(fields[17])
        except (OSError, IndexError, ValueError):
            pass
        return self.last_cpu

    def wall_left(self, since=None):
        running = time.monotonic() - since if since is not None else 0.0
        return self.wall_budget - self.charged_s - running

    def _timed_out(self):
        if self.over_cpu():
            self.kill("timeout", "cpu %.2fs over the %.2fs limit" % (self.last_cpu - self.cpu_base, self.cpu_limit))
        self.kill("timeout", "wall-clock backstop after %.2fs with %.2fs cpu (blocked or starved)"
                  % (self.wall_budget, self.last_cpu - self.cpu_base))

    def charged(self, fn):
        """fn() on the candidate's behalf: its time counts against the wall budget, and an alarm ends
        it when the budget runs out (a value chosen to be slow to compare times out)."""
        start = time.monotonic()
        left = self.wall_left()
        if left <= 0:
            self._timed_out()
        previous = signal.signal(signal.SIGALRM, _overran)
        signal.setitimer(signal.ITIMER_REAL, left)
        try:
            return fn()
        except _Overran:
            self.kill("timeout", "wall-clock backstop after %.2fs spent on its behalf (deciding the values "
                      "it reported)" % self.wall_budget)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
            self.charged_s += time.monotonic() - start

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
        self.end(reason, detail)
        raise self.gone

    def end(self, reason, detail=""):
        """End the process now (a verdict is already decided, or it overran)."""
        if self.gone is None:
            self.gone = CandidateGone(reason, detail)
        for target in (lambda: os.killpg(self.pid, signal.SIGKILL), lambda: os.kill(self.pid, signal.SIGKILL)):
            try:
                target()
            except OSError:
                pass

    def _wait(self, fd, event, since):
        out_open = True
        while True:
            if self.gone is not None:
                raise self.gone
            left = self.wall_left(since)
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

    def send(self, obj):
        """A frame to the candidate, straight into the pipe (non-blocking); waits only when it is full."""
        view = memoryview(frame_bytes(obj))
        since = time.monotonic()
        try:
            while view:
                try:
                    n = os.write(self.req_w, view)
                except BlockingIOError:
                    self._wait(self.req_w, select.POLLOUT, since)
                    continue
                except BrokenPipeError:
                    self._ended()
                view = view[n:]
        finally:
            self.charged_s += time.monotonic() - since

    def _fill(self, need, since):
        """Read until `need` bytes are buffered: a frame that fits costs one poll and one read."""
        while len(self.rbuf) < need:
            self._wait(self.resp_r, select.POLLIN, since)
            b = os.read(self.resp_r, max(1 << 16, min(need - len(self.rbuf), 1 << 20)))
            if not b:
                self._ended()
            self.rbuf += b

    def recv(self):
        """The candidate's next frame, its waiting and decoding charged; anything that is not a valid
        frame of bounded size is its failure. A report of an import attempt is telemetry, never a step."""
        msg = self._recv_one()
        while msg.get("k") == "imp":
            msg = self._recv_one()
        return msg

    def _recv_one(self):
        since = time.monotonic()
        try:
            self._fill(4, since)
            (n,) = _unpack_len(bytes(self.rbuf[:4]))
            if n > MAX_FRAME:
                self.kill("output_exceeded", "a report of %d bytes (the cap is %d)" % (n, MAX_FRAME))
            self._fill(4 + n, since)
            data = bytes(self.rbuf[4:4 + n])
            del self.rbuf[:4 + n]
            try:
                msg = loads(data)
            except (ValueError, UnicodeDecodeError, RecursionError):
                self.kill("not_plain_data", "a report that is not valid JSON")
        finally:
            self.charged_s += time.monotonic() - since
        if type(msg) is not dict:
            self.kill("not_plain_data", "a report that is not a JSON object")
        self._telemetry(msg)
        return msg

    def _telemetry(self, msg):
        v = msg.get("w")
        if type(v) is list:
            self.violations = [str(x)[:200] for x in v[:50]]
        t = msg.get("tw")
        if type(t) is list:   # the candidate sends all it saw so far; merged, so the grader's own entries stay
            self.tamper += [e for e in (str(x)[:200] for x in t[:50]) if e not in self.tamper][:50 - len(self.tamper)]
        if "imp" in msg:
            self.imports += [a for a in clean_imports(msg["imp"]) if a not in self.imports][:20 - len(self.imports)]

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
            if self.loaded:
                self.note_exit_in_test("exit status %s during the test" % info.get("exit"))
        self.gone = CandidateGone(reason, detail)
        raise self.gone

    def note_exit_in_test(self, detail):
        """Telemetry only: the candidate ended its process while the test ran."""
        entry = "exit_in_test: " + detail
        if entry not in self.tamper:
            self.tamper.append(entry)

    # ---- the job ----------------------------------------------------------------
    def load(self, job):
        """Send the job (the program, and the first suite); True when the program loaded."""
        try:
            self.send({**job, "cpu_s": self.cpu_limit})
            msg = self.recv()
        except CandidateGone as gone:
            self.gone = gone
            return False
        if msg.get("k") != "load":
            self.end("tampering", "the first report was not the program's load")
            return False
        if not msg.get("ok"):
            err = msg.get("error")
            if type(err) is not dict:
                # the candidate's process answered for itself before its program ran (setup failed) or
                # forged the reply: either way it is the candidate's attempt that ended, never the evaluator's
                err = {"type": "setup", "msg": str(msg.get("setup"))[:300], "class": "runtime_error"}
            cls = err.get("class") if err.get("class") in _CANDIDATE_CLASSES else "runtime_error"
            self.gone = CandidateGone(cls, "%s: %s" % (str(err.get("type"))[:100], str(err.get("msg"))[:400]))
            self.gone.exc_type = str(err.get("type"))[:100]
            self.collect()
            return False
        self.loaded = True
        self.t_loaded = time.monotonic() - self.t0
        return True

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
