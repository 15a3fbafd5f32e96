"""The in-sandbox supervisor of a language container: PID 1, root holding only SETUID, SETGID and KILL.

Sent into the container over stdin as text (core/languages/sandbox.py) and run by the image's
python3; standard library only. It never sees a test's expected values: the host sends the files of
one program (the candidate's code and the harness's calls), the commands to compile and run them,
and the limits; it answers with exit statuses, CPU and wall time, capped output and the bytes the
harness wrote to its report descriptor. Verdicts are the host's.

Each program gets a fresh directory made by the candidate uid; each step (compile, run) is a child
in its own session with rlimits (CPU, address space where the runtime tolerates one, processes, open
files, file size, no core files), the candidate uid, an environment of fixed values and stdin from
/dev/null. After each step every other process in the container is killed (kill(-1) from PID 1,
again until none is left); after the program the candidate uid removes what it wrote.

Host protocol: one JSON object per line each way, each reply carrying the request's `id`.
Ops: ping, run, probe.
"""

import base64
import errno
import io
import json
import os
import resource
import select
import signal
import sys
import tarfile
import time

CONFIG = globals().get("PASSGATE_CONFIG") or {}
CAND_UID = int(CONFIG.get("uid", 10001))
SCRATCH = CONFIG.get("scratch", "/tmp")
REPORT_FD = 3
GRACE_S = 0.2               # output still arriving after the step's process ended
SHARED_DIRS = ("/tmp", "/dev/shm")


def _as_uid(fn):
    """Run fn() in a child forked as the candidate uid (root here lacks DAC_OVERRIDE); its exit status."""
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            os.setgroups([])
            os.setgid(CAND_UID)
            os.setuid(CAND_UID)
            fn()
        except BaseException as exc:  # noqa: BLE001 - reported through the exit status
            sys.stderr.write("passgate supervisor helper: %s: %s\n" % (type(exc).__name__, exc))
            code = 1
        os._exit(code)
    return os.waitpid(pid, 0)[1]


def _kill_all():
    """Every process but this one, again until none is left (a fork bomb forks while it is killed)."""
    for _ in range(200):
        try:
            os.kill(-1, signal.SIGKILL)
        except OSError as exc:
            if exc.errno == errno.ESRCH:
                break
        _reap()
        time.sleep(0.005)
    _reap()


def _reap():
    while True:
        try:
            pid, _status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _wipe(path):
    for root, dirs, files in os.walk(path, topdown=False):
        for name in files + dirs:
            p = os.path.join(root, name)
            try:
                if os.path.isdir(p) and not os.path.islink(p):
                    os.rmdir(p)
                else:
                    os.unlink(p)
            except OSError:
                pass


def _writable(path):
    """Go's module cache and the like are read-only to their owner: make them removable."""
    for root, dirs, _files in os.walk(path):
        for name in dirs:
            try:
                os.chmod(os.path.join(root, name), 0o700)
            except OSError:
                pass


def _clean_shared():
    """Everything the candidate uid left in the places it can write (its directory is among them)."""
    for d in SHARED_DIRS:
        try:
            names = os.listdir(d)
        except OSError:
            continue
        for name in names:
            p = os.path.join(d, name)
            if os.path.isdir(p) and not os.path.islink(p):
                try:
                    os.chmod(p, 0o700)
                except OSError:
                    pass
                _writable(p)
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


class Program:
    """One program's files and steps, run in a fresh directory."""

    def __init__(self, req, number):
        self.req = req
        self.limits = req.get("limits") or {}
        self.work = os.path.join(SCRATCH, "w%d" % number)

    def setup(self):
        files = self.req.get("files") or []
        archives = self.req.get("archives") or []
        work = self.work

        def make():
            os.makedirs(work, mode=0o700)
            os.makedirs(os.path.join(work, ".tmp"), mode=0o700)
            for rel, text in files:
                path = os.path.join(work, rel)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w", encoding="utf-8") as fh:
                    fh.write(text)
            for _name, data, into in archives:
                target = os.path.join(work, into)
                os.makedirs(target, exist_ok=True)
                with tarfile.open(fileobj=io.BytesIO(base64.b64decode(data)), mode="r:*") as tar:
                    try:
                        tar.extractall(target, filter="data")
                    except TypeError:     # a Python without extraction filters; the archive is the dataset's
                        tar.extractall(target)

        return _as_uid(make) == 0

    def run(self):
        out = {"steps": [], "setup_error": None}
        if not self.setup():
            out["setup_error"] = "the program's files could not be written"
            return out
        report = b""
        for step in self.req.get("steps") or []:
            result, data = Step(step, self.work, self.limits).run()
            out["steps"].append(result)
            if step.get("report"):
                report = data
            _kill_all()
            if result["status"] != 0 or result["timed_out"] or result["output_exceeded"]:
                break
        out["report_b64"] = base64.b64encode(report).decode()
        return out


class Step:
    """One command as the candidate uid, its output read through pipes with caps."""

    def __init__(self, step, work, limits):
        self.step, self.work, self.limits = step, work, limits
        self.out_cap = int(limits.get("output_cap_kb", 8192)) * 1024
        self.keep = int(limits.get("output_keep_kb", 4)) * 1024
        self.report_cap = int(limits.get("report_cap_kb", 16384)) * 1024

    def _environment(self):
        env = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8",
               "HOME": self.work, "TMPDIR": os.path.join(self.work, ".tmp")}
        for key, value in self.step.get("env") or []:
            env[key] = value.replace("{scratch}", self.work)
        return env

    def _child(self, pipes):
        """In the forked child: limits, the candidate uid, descriptors, then exec. Never returns."""
        try:
            os.setsid()
            lim = self.limits
            cpu = max(1, int(float(self.step["cpu_s"]) + 0.999))
            resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
            if lim.get("rlimit_as", True):
                mem = int(self.step.get("memory_mb") or lim.get("memory_mb", 1024)) << 20
                resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
            fsize = int(self.step.get("file_size_mb") or lim.get("file_size_mb", 16)) << 20
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
            nproc = int(self.step.get("nproc") or lim.get("nproc", 32))
            resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
            nofile = int(lim.get("nofile", 256))
            resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
            os.setgroups([])
            os.setgid(CAND_UID)
            os.setuid(CAND_UID)
            os.chdir(self.work)
            null = os.open("/dev/null", os.O_RDONLY)
            os.dup2(null, 0)
            os.dup2(pipes["stdout"][1], 1)
            os.dup2(pipes["stderr"][1], 2)
            if "report" in pipes:
                os.dup2(pipes["report"][1], REPORT_FD)
                os.set_inheritable(REPORT_FD, True)
                os.closerange(REPORT_FD + 1, 65536)
            else:
                os.closerange(3, 65536)
            argv = list(self.step["argv"])
            os.execvpe(argv[0], argv, self._environment())
        except BaseException as exc:  # noqa: BLE001 - the step's stderr says why it never started
            try:
                os.write(2, ("passgate: cannot start %s: %s\n" % (self.step["argv"][0], exc)).encode())
            except OSError:
                pass
        os._exit(127)

    def run(self):
        names = ["stdout", "stderr"] + (["report"] if self.step.get("report") else [])
        # the pipes belong to the candidate uid: a program that reopens its descriptors by name (Java's
        # FileOutputStream("/dev/fd/3"), a shell's `> /dev/stderr`) is allowed to, as it would be natively
        os.setegid(CAND_UID)
        os.seteuid(CAND_UID)
        try:
            pipes = {name: os.pipe() for name in names}
        finally:
            os.seteuid(0)
            os.setegid(0)
        started = time.monotonic()
        wall_s = float(self.step["wall_s"])
        pid = os.fork()
        if pid == 0:
            self._child(pipes)
        for r, w in pipes.values():
            os.close(w)
        readers = {pipes[name][0]: name for name in names}
        data = {name: bytearray() for name in names}
        counts = {name: 0 for name in names}
        status = rusage = None
        timed_out = None
        exceeded = False
        ended_at = None
        head = bytearray()
        while True:
            now = time.monotonic()
            if status is None:
                got, st, ru = os.wait4(pid, os.WNOHANG)
                if got == pid:
                    status, rusage, ended_at = st, ru, now
            if status is not None and (not readers or now - ended_at > GRACE_S):
                break
            if now - started > wall_s:
                timed_out = "wall"
                break
            ready = select.select(list(readers), [], [], 0.05)[0] if readers else (time.sleep(0.02) or [])
            for fd in ready:
                name = readers[fd]
                chunk = os.read(fd, 65536)
                if not chunk:
                    del readers[fd]
                    os.close(fd)
                    continue
                counts[name] += len(chunk)
                if name == "report":
                    data[name] += chunk
                elif name == "stdout" and len(data[name]) < self.keep:
                    data[name] += chunk[: self.keep - len(data[name])]
                elif name == "stderr" and self.step.get("keep") == "head":     # a compiler's first errors
                    data[name] += chunk[: max(0, 8 * self.keep - len(data[name]))]
                elif name == "stderr":                                      # a crash's first and last lines
                    head += chunk[: max(0, 2 * self.keep - len(head))]
                    data[name] += chunk
                    del data[name][: max(0, len(data[name]) - 4 * self.keep)]
            if counts["stdout"] + counts["stderr"] > self.out_cap or counts.get("report", 0) > self.report_cap:
                exceeded = True
                break
        wall = time.monotonic() - started
        if status is None:                # the step's own status first, before the reaping below
            try:
                os.kill(pid, signal.SIGKILL)
                _got, status, rusage = os.wait4(pid, 0)
            except (ChildProcessError, ProcessLookupError):
                status = None
        _kill_all()                       # whatever still runs: its children, escaped daemons
        for fd in readers:
            os.close(fd)
        code = sig = None
        if status is not None:
            if os.WIFEXITED(status):
                code = os.WEXITSTATUS(status)
            elif os.WIFSIGNALED(status):
                sig = os.WTERMSIG(status)
        cpu = (rusage.ru_utime + rusage.ru_stime) if rusage is not None else 0.0
        if timed_out is None and (sig == signal.SIGXCPU or (sig == signal.SIGKILL and cpu >= float(self.step["cpu_s"]))):
            timed_out = "cpu"
        result = {"name": self.step.get("name", ""), "status": code, "signal": sig, "cpu_s": round(cpu, 4),
                  "wall_s": round(wall, 4), "timed_out": timed_out, "output_exceeded": exceeded,
                  "out_bytes": counts["stdout"] + counts["stderr"], "report_bytes": counts.get("report", 0),
                  # what was written against what was kept: a rule that reads the output needs all of it
                  "stdout_bytes": counts["stdout"], "stderr_bytes": counts["stderr"],
                  "stdout_truncated": counts["stdout"] > len(data["stdout"]),
                  "stderr_truncated": counts["stderr"] > len(data["stderr"]),
                  "maxrss_kb": int(rusage.ru_maxrss) if rusage is not None else 0,
                  "stdout": bytes(data["stdout"]).decode("utf-8", "replace"),
                  "stderr": bytes(data["stderr"]).decode("utf-8", "replace"),
                  "stderr_head": bytes(head).decode("utf-8", "replace")}
        return result, bytes(data.get("report", b""))


class Supervisor:
    def __init__(self):
        self.count = 0

    def run(self, req):
        self.count += 1
        try:
            return Program(req, self.count).run()
        finally:
            _kill_all()
            _as_uid(_clean_shared)

    def probe(self, req):
        """The boundary self-probe, run exactly as a candidate's program runs."""
        source = req["source"] + "\nimport sys\nsys.stdout.write(probe())\n"
        limits = dict(req["limits"], output_keep_kb=1024)
        res = self.run({"files": [["probe.py", source]], "limits": limits,
                        "steps": [{"name": "run", "argv": ["python3", "probe.py"], "cpu_s": limits["cpu_s"],
                                   "wall_s": limits["wall_s"]}]})
        step = (res.get("steps") or [{}])[0]
        try:
            report = json.loads(step.get("stdout") or "")
        except ValueError:
            return {"error": "the probe did not report: exit %s, signal %s: %s" % (
                step.get("status"), step.get("signal"), (step.get("stderr") or "")[-300:])}
        report["probe_exit"] = {"status": step.get("status"), "signal": step.get("signal"),
                                "cpu_s": step.get("cpu_s")}
        report["worker"] = {"uid": os.getuid(), "pid": os.getpid(), "python": sys.version.split()[0],
                            "environ_keys": sorted(os.environ)}
        return report


def main():
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGPIPE, signal.SIGUSR1, signal.SIGUSR2):
        signal.signal(s, signal.SIG_IGN)
    supervisor = Supervisor()
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
            elif op == "run":
                res = supervisor.run(req)
            elif op == "probe":
                res = supervisor.probe(req)
            else:
                res = {"error": "unknown op %r" % (op,)}
        except BaseException as exc:  # noqa: BLE001 - the supervisor answers every request
            import traceback
            res = {"worker_error": "%s: %s" % (type(exc).__name__, exc), "trace": traceback.format_exc()[-2000:]}
        res["id"] = rid
        _reap()
        out.write(json.dumps(res) + "\n")
        out.flush()


if __name__ == "passgate_language_supervisor":   # the name the container's bootstrap gives the program
    main()
