"""One candidate process seen from the grader: calls over pipes, output capture, CPU and wall
budgets, and why it ended.

Part of the sandbox worker program (see worker.py): the parts in core/sandbox/program/ are sent into
the container as one source text, in the order docker_runner.PROGRAM_PARTS gives, and share one
namespace there. Standard library only.
"""

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
