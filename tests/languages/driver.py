"""A local driver for validating language specs (tests and benchmarks only, not the product).

One long-lived container of a language's image under gVisor: no network, read-only root, a tmpfs
scratch, memory and pids limits, every capability dropped but the three needed to kill and clean
up. Each program gets a fresh directory; its compile and its run are separate `docker exec`s as
uid 10001 under rlimits, the run with the report channel on descriptor 3; then a root exec kills
every process left, hands back the outputs (each cut to a cap) and wipes the directory.
"""

from __future__ import annotations

import io
import itertools
import shlex
import subprocess
import tarfile
import time
import uuid
from dataclasses import dataclass

from passgate.core.languages.spec import REPORT_FD, Program
from passgate.core.languages.verdict import first_compile_error
from passgate.core.sandbox.cgroups import WORN_FRACTION, container_pids_limit, host_tasks, pids_file

CANDIDATE_UID = "10001"
# every process of the candidate uid, again until none is left (a fork bomb forks while it is
# killed); init (--init) reaps them, so none stays behind as a zombie
KILL_ALL = ("for i in $(seq 50); do n=0; for u in $(stat -c '%u:%n' /proc/[0-9]* 2>/dev/null | "
            f"grep '^{CANDIDATE_UID}:'); do kill -9 ${{u#*:/proc/}} 2>/dev/null; n=1; done; "
            "[ $n = 0 ] && break; done")
OUTPUT_CAP = 1 << 20
PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


class InfraError(RuntimeError):
    """The sandbox itself failed (the container died, docker refused): not the candidate's verdict."""


@dataclass(frozen=True)
class Limits:
    compile_wall_s: float = 60.0
    run_wall_s: float = 10.0
    cpu_s: int = 20
    file_kb: int = 131072           # any one file the program writes (a Rust test binary, its output)
    nproc: int = 64                 # processes and threads of the candidate uid (the JVM and Go need a few dozen)
    address_space_kb: int | None = None   # RLIMIT_AS where the runtime tolerates one (not the JVM or V8)


@dataclass(frozen=True)
class Execution:
    compile_status: int | None      # None: nothing to compile
    compile_output: str
    run_status: int | None          # None: not run (compile failed)
    stdout: str
    stderr: str
    report: bytes
    compile_s: float
    run_s: float
    timed_out: bool

    def first_compile_error(self) -> str:
        return first_compile_error(self.compile_output)


class LanguageSandbox:
    """A container of one image; `execute(program)` compiles and runs one program in it."""

    def __init__(self, image: str, *, runtime: str = "runsc", memory_mb: int = 3072, scratch_mb: int = 512,
                 limits: Limits = Limits(), shared_cache: bool = False):
        self.image, self.runtime, self.limits = image, runtime, limits
        self.shared_cache = shared_cache     # a /cache tmpfs kept across programs (the native side's build cache)
        self.memory_mb, self.scratch_mb = memory_mb, scratch_mb
        # under gVisor the host tasks grow with the guest's processes times the sentry's threads
        # (core/sandbox/cgroups.py): a lower pids limit would take the whole sandbox down
        self.pids = container_pids_limit({"pids": 1024, "nproc": limits.nproc}, runtime)
        self._count = itertools.count()
        self._start()

    def _start(self) -> None:
        self.name = f"passgate-lang-{uuid.uuid4().hex[:10]}"
        _docker("run", "-d", "--init", "--name", self.name, "--runtime", self.runtime, "--network", "none", "--read-only",
                "--tmpfs", f"/tmp:rw,exec,nosuid,nodev,size={self.scratch_mb}m,mode=1777",
                *(("--tmpfs", "/cache:rw,exec,nosuid,nodev,size=1024m,mode=1777") if self.shared_cache else ()),
                "--memory", f"{self.memory_mb}m", "--memory-swap", f"{self.memory_mb}m", "--cpus", "1",
                "--pids-limit", str(self.pids), "--cap-drop", "ALL", "--cap-add", "KILL", "--cap-add", "SETUID",
                "--cap-add", "SETGID", "--security-opt", "no-new-privileges", "--user", "0",
                "--label", "passgate.role=language-driver", "--env", f"PATH={PATH}", "--env", "LANG=C.UTF-8",
                self.image, "sleep", "infinity")
        self.container_id = _docker("inspect", "-f", "{{.Id}}", self.name).stdout.decode().strip()

    def _replace_when_worn(self) -> None:
        """A container still holding more than a quarter of its host tasks after a program is
        replaced, so nothing one program left behind counts against the next."""
        tasks = host_tasks(pids_file(self.container_id))
        if tasks is not None and tasks > WORN_FRACTION * self.pids:
            self.close()
            self._start()

    def close(self) -> None:
        _docker("rm", "-f", self.name, check=False)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def run_program(self, program: Program, *, support: dict[str, bytes] | None = None) -> Execution:
        """Compile (when the program says how) and run one program; never raises for its failures."""
        work = f"/tmp/w{next(self._count)}"
        try:
            self._put(work, program, support or {})
            compile_status, compile_s = None, 0.0
            if program.compile_argv:
                compile_status, compile_s, _ = self._step(work, program, program.compile_argv, "compile",
                                                          self.limits.compile_wall_s, report=False)
            run_status, run_s, timed_out = None, 0.0, False
            if compile_status in (None, 0):
                run_status, run_s, timed_out = self._step(work, program, program.run_argv, "run",
                                                          self.limits.run_wall_s, report=True)
            files = self._collect(work)
        finally:
            self._exec("0", KILL_ALL, check=False)
            # the owner removes its files (root holds no CAP_DAC_OVERRIDE here), read-only ones too
            # (Go's module cache), and anything else it left in /tmp
            self._exec(CANDIDATE_UID, "chmod -R u+w /tmp 2>/dev/null; find /tmp -mindepth 1 -user "
                       f"{CANDIDATE_UID} -delete 2>/dev/null; true", check=False)
            self._replace_when_worn()
        text = lambda name: files.get(name, b"").decode("utf-8", errors="replace")  # noqa: E731
        return Execution(compile_status, text("compile.out"), run_status, text("stdout"), text("stderr"),
                         files.get("report", b""), compile_s, run_s, timed_out)

    def _put(self, work: str, program: Program, support: dict[str, bytes]) -> None:
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w") as tar:
            for f in program.files:
                data = f.text.encode()
                info = tarfile.TarInfo(f.path)
                info.size, info.mode = len(data), 0o644
                tar.addfile(info, io.BytesIO(data))
            for name, data in support.items():
                info = tarfile.TarInfo(name)
                info.size, info.mode = len(data), 0o644
                tar.addfile(info, io.BytesIO(data))
        unpack = " && ".join(f"mkdir -p {shlex.quote(d)} && tar xzf {shlex.quote(n)} -C {shlex.quote(d)}"
                             for n, d in program.archives) or "true"
        self._exec(CANDIDATE_UID, f"mkdir -p {work} && tar xf - -C {work} && cd {work} && {unpack}",
                   stdin=buf.getvalue())

    def _step(self, work: str, program: Program, argv: tuple[str, ...], step: str, wall_s: float,
              *, report: bool) -> tuple[int, float, bool]:
        lim = self.limits
        env = " ".join(f"{k}={shlex.quote(v.replace('{scratch}', work))}" for k, v in
                       (("HOME", work), ("TMPDIR", f"{work}/.tmp"), *program.env))
        rlimits = f"ulimit -t {lim.cpu_s} -f {lim.file_kb} -u {lim.nproc} -c 0"
        if lim.address_space_kb:
            rlimits += f" -v {lim.address_space_kb}"
        outputs = "> stdout 2> stderr" if step == "run" else "> compile.out 2>&1"
        channel = f"exec {REPORT_FD}> report; " if report else ""
        script = (f"cd {work} && mkdir -p .tmp && {rlimits} && {channel}exec env -i PATH={PATH} LANG=C.UTF-8 {env} "
                  f"timeout -s KILL {wall_s:g} {shlex.join(argv)} {outputs} < /dev/null")
        started = time.perf_counter()
        done = self._exec(CANDIDATE_UID, script, check=False, timeout=wall_s + 60)
        elapsed = time.perf_counter() - started
        return done.returncode, elapsed, done.returncode in (137, 124) and elapsed >= wall_s

    def _collect(self, work: str) -> dict[str, bytes]:
        script = (f"{KILL_ALL}; mkdir -p /tmp/out && cd {work} && "
                  f"for f in report stdout stderr compile.out; do [ -f $f ] && head -c {OUTPUT_CAP} $f > /tmp/out/$f; "
                  f"done; tar cf - -C /tmp/out . ; rm -rf /tmp/out")
        done = self._exec("0", script, check=False)
        if done.returncode and (b"Error response from daemon" in done.stderr or b"not running" in done.stderr):
            raise InfraError(done.stderr.decode(errors="replace")[-300:])
        files = {}
        try:
            with tarfile.open(fileobj=io.BytesIO(done.stdout)) as tar:
                for member in tar.getmembers():
                    if member.isfile():
                        files[member.name.lstrip("./")] = tar.extractfile(member).read()
        except tarfile.TarError:
            pass
        return files

    def _exec(self, user: str, script: str, *, stdin: bytes | None = None, check: bool = True,
              timeout: float = 120) -> subprocess.CompletedProcess:
        argv = ["exec", *(["-i"] if stdin is not None else []), "-u", user, self.name, "bash", "-c", script]
        return _docker(*argv, stdin=stdin, check=check, timeout=timeout)


def _docker(*args: str, stdin: bytes | None = None, check: bool = True, timeout: float = 300):
    done = subprocess.run(["docker", *args], input=stdin, capture_output=True, timeout=timeout)
    if check and done.returncode:
        raise InfraError(f"docker {args[0]} failed: {done.stderr.decode(errors='replace')[-500:]}")
    return done
