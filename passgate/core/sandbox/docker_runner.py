"""Docker implementation of the runner, through docker-py; gVisor (runsc) by default.

Each worker is a long-lived container: no network, read-only root, tmpfs scratch, memory / CPU /
pids limits, every capability dropped but the three the worker needs to drop privileges and
signal its candidates, no-new-privileges, an environment holding no host values, no mounts.
The worker program and all task data arrive over stdin as data. Containers are removed in
`close()` and on interpreter exit; stale ones from a killed controller are removed at start.
"""

from __future__ import annotations

import atexit
import dataclasses
import hashlib
import json
import logging
import os
import secrets
import socket
import struct
import threading
import time
from pathlib import Path

import docker.errors

from ..errors import DriftError, SandboxUnavailable
from . import cgroups, docker_config
from .boundary import SandboxConfig
from .cgroups import container_pids_limit
from .runner import EvalRequest, EvalResult, Runner, RunnerInfo, Worker, WorkerLost

LABEL = "passgate.managed"
SANDBOX_DIR = Path(__file__).resolve().parent
CANDIDATE_UID = 10001
# The worker program arrives on stdin as {module: source}; a finder serves those modules as the
# package `pgw`, so its parts import one another as they do here.
BOOT = r"""
import sys, json, importlib.abc, importlib.util
c = json.loads(sys.stdin.buffer.readline())
S = json.loads(sys.stdin.buffer.read(c["n"]))
class Loader(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def _key(self, name):
        return "__init__" if name == "pgw" else name[4:] if name.startswith("pgw.") else None
    def find_spec(self, name, path, target=None):
        if self._key(name) in S:
            return importlib.util.spec_from_loader(name, self, is_package=name == "pgw")
    def create_module(self, spec):
        return None
    def exec_module(self, module):
        key = self._key(module.__name__)
        exec(compile(S[key], "<pgw/%s.py>" % key, "exec"), module.__dict__)
sys.meta_path.insert(0, Loader())
import pgw
pgw.CONFIG = c["config"]
import pgw.worker
pgw.worker.main()
"""
log = logging.getLogger(__name__)

_LIVE: set["DockerWorker"] = set()
_LIVE_LOCK = threading.Lock()


def worker_modules() -> dict[str, str]:
    """The program sent into each container: every module of core/sandbox/program/, by name."""
    return {path.stem: path.read_text() for path in sorted((SANDBOX_DIR / "program").glob("*.py"))}


def worker_source() -> str:
    """The program as sent (its sha256 is recorded per run)."""
    return json.dumps(worker_modules(), sort_keys=True)


def worker_sha256() -> str:
    return hashlib.sha256(worker_source().encode()).hexdigest()


def docker_client(timeout: int = 120):
    import docker
    try:
        client = docker.from_env(timeout=timeout)
        client.ping()
    except Exception as exc:
        raise SandboxUnavailable(
            "cannot reach the Docker engine ({}); start it (`dockerd &`) or run `passgate setup`".format(
                str(exc).splitlines()[0][:200])) from exc
    return client


def _cleanup_all() -> None:
    with _LIVE_LOCK:
        workers = list(_LIVE)
    for w in workers:
        w.close()


atexit.register(_cleanup_all)


def remove_stale(client) -> int:
    """Remove containers left by controllers that are no longer alive on this host."""
    removed = 0
    host = socket.gethostname()
    # one list call (no per-container inspect): containers may vanish while we look
    for c in client.api.containers(all=True, filters={"label": LABEL}):
        labels = c.get("Labels") or {}
        pid = int(labels.get("passgate.controller_pid", "0") or 0)
        # a live controller removes its own containers (it may be starting one right now)
        alive = labels.get("passgate.host") == host and pid and _pid_alive(pid)
        if not alive:
            removed += remove_container(client, c["Id"])
    return removed


def remove_container(client, container_id: str) -> bool:
    """Remove a container; one already gone is no failure, any other is logged with its reason."""
    try:
        client.api.remove_container(container_id, force=True)
        return True
    except docker.errors.NotFound:
        return False
    except Exception as exc:   # the engine refused: say why, the container may be left behind
        log.warning("cannot remove sandbox container %s: %s", container_id[:12], exc)
        return False


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True


class DockerWorker(Worker):
    def __init__(self, runner: "DockerRunner"):
        self.runner = runner
        self.client = runner.client
        self.node = runner.node
        self.container_id = ""
        self.worker_id = ""
        self._sock = None
        self._buf = b""
        self._lines: list[bytes] = []
        self._partial = b""
        self._stderr = bytearray()
        self._tasks: set[str] = set()
        self._closed = False
        self._start()

    # ---- lifecycle ----------------------------------------------------------------
    def _start(self) -> None:
        r = self.runner
        lim = r.limits
        api = self.client.api
        host_config = api.create_host_config(
            runtime=r.runtime,
            network_mode="none",
            read_only=True,
            tmpfs={"/tmp": f"rw,nosuid,nodev,size={int(lim['scratch_mb'])}m,mode=1777"},
            shm_size=16 << 20,
            mem_limit=f"{int(lim['container_memory_mb'])}m",
            memswap_limit=f"{int(lim['container_memory_mb'])}m",
            nano_cpus=int(float(lim["cpus"]) * 1e9),
            pids_limit=int(lim["pids"]),       # the effective limit (cgroups.container_pids_limit)
            cap_drop=["ALL"],
            cap_add=["SETUID", "SETGID", "KILL"],
            security_opt=["no-new-privileges"],
            ipc_mode="private",
            init=False,
        )
        try:
            created = api.create_container(
                r.image, command=["/usr/bin/python3", "-u", "-s", "-B", "-c", BOOT],
                stdin_open=True, tty=False, user="0:0", working_dir="/", hostname="sandbox",
                environment=r.environment, network_disabled=True, host_config=host_config,
                labels={LABEL: "1", "passgate.run": r.run_label, "passgate.host": socket.gethostname(),
                        "passgate.controller_pid": str(os.getpid())})
        except Exception as exc:
            raise WorkerLost(f"cannot create a sandbox container: {str(exc)[:300]}") from exc
        self.container_id = created["Id"]
        self.worker_id = self.container_id[:12]
        self._pids_file = None
        self._cgroup_cpu = None
        with _LIVE_LOCK:
            _LIVE.add(self)
        try:
            sock = api.attach_socket(self.container_id, params={"stdin": 1, "stdout": 1, "stderr": 1, "stream": 1})
            self._sock = getattr(sock, "_sock", sock)
            api.start(self.container_id)
            source = self.runner.program.encode()
            config = {"uid": CANDIDATE_UID, "scratch": "/tmp"}
            self._send(json.dumps({"n": len(source), "config": config}).encode() + b"\n" + source)
            ready = self._read_line(timeout=60)
            if not ready.get("ready"):
                raise WorkerLost(f"worker did not start: {ready}")
        except WorkerLost:
            self.close()
            raise
        except Exception as exc:
            self.close()
            raise WorkerLost(f"cannot start the sandbox worker: {str(exc)[:300]}") from exc

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            if self._sock is not None:
                self._sock.close()
        except OSError:
            pass
        if self.container_id:
            remove_container(self.client, self.container_id)
        with _LIVE_LOCK:
            _LIVE.discard(self)
        self.runner.forget(self)

    # ---- protocol -----------------------------------------------------------------
    def _send(self, data: bytes) -> None:
        try:
            self._sock.sendall(data)
        except OSError as exc:
            raise self._lost(f"cannot write to the worker: {exc}") from exc

    def _lost(self, message: str) -> WorkerLost:
        oom, code = False, None
        try:
            state = self.client.api.inspect_container(self.container_id)["State"]
            oom, code = bool(state.get("OOMKilled")), state.get("ExitCode")
            if not state.get("Running"):
                message += f" (container exited with {code}{', OOM-killed' if oom else ''})"
        except Exception as exc:   # the engine cannot say how the container ended: the message says so
            message += f" (cannot inspect the container: {str(exc)[:200]})"
        tail = bytes(self._stderr[-500:]).decode("utf-8", "replace").strip()
        if tail:
            message += f"; worker stderr: {tail}"
        self.close()
        return WorkerLost(message, oom_killed=oom, exit_code=code)

    def _read_line(self, timeout: float) -> dict:
        deadline = time.monotonic() + timeout
        while not self._lines:
            left = deadline - time.monotonic()
            if left <= 0:
                raise self._lost(f"worker did not answer within {timeout:.0f}s")
            self._sock.settimeout(left)
            try:
                chunk = self._sock.recv(1 << 16)
            except socket.timeout:
                continue
            except OSError as exc:
                raise self._lost(f"lost the worker connection: {exc}") from exc
            if not chunk:
                raise self._lost("the worker closed its output")
            self._buf += chunk
            self._parse_frames()
        line = self._lines.pop(0)
        try:
            return json.loads(line)
        except ValueError as exc:
            raise self._lost(f"worker sent a malformed line: {line[:200]!r}") from exc

    def _parse_frames(self) -> None:
        while len(self._buf) >= 8:
            stream, size = self._buf[0], struct.unpack(">I", self._buf[4:8])[0]
            if len(self._buf) < 8 + size:
                return
            payload, self._buf = self._buf[8:8 + size], self._buf[8 + size:]
            if stream == 2:
                self._stderr += payload
                del self._stderr[:-4096]
                continue
            data = self._partial + payload
            *lines, self._partial = data.split(b"\n")
            self._lines.extend(line for line in lines if line.strip())

    def _request(self, obj: dict, timeout: float, on_interim=None) -> dict:
        rid = secrets.token_hex(8)
        self._send(json.dumps({**obj, "id": rid}, separators=(",", ":")).encode() + b"\n")
        deadline = time.monotonic() + timeout
        reply = self._read_line(timeout)
        while reply.get("interim") and reply.get("id") == rid:
            if on_interim is not None:
                on_interim(reply)
            reply = self._read_line(max(1.0, deadline - time.monotonic()))
        if reply.get("id") != rid:
            raise self._lost(f"protocol error: reply id {reply.get('id')!r} does not match {rid!r}")
        if "worker_error" in reply:
            raise self._lost(f"worker error: {reply['worker_error']}")
        return reply

    # ---- Worker API ---------------------------------------------------------------
    def worn(self) -> bool:
        """True when gVisor holds so many host tasks that the next candidate should get a new container."""
        if self._pids_file is None:
            self._pids_file = cgroups.pids_file(self.container_id) or False
        return bool(self._pids_file) and cgroups.worn(self._pids_file, int(self.runner.limits["pids"]))

    def evaluate(self, request: EvalRequest) -> EvalResult:
        task = request.task
        if task.key not in self._tasks:
            self._request({"op": "task", **task.wire()}, timeout=task.load_timeout_s)
            self._tasks.add(task.key)
        before = cgroups.cpu_seconds(self._cpu_file())
        marks = []          # the host's count when the worker said the protected suite ended
        reply = self._request({"op": "eval", "task": task.key, "program": request.program,
                               "limits": dict(request.limits), "classic": request.classic_program,
                               "public_after_protected_timeout": request.public_after_protected_timeout},
                              timeout=request.timeout_s,
                              on_interim=lambda _note: marks.append(cgroups.cpu_seconds(self._cpu_file())))
        after = marks[0] if marks else cgroups.cpu_seconds(self._cpu_file())
        host_cpu = after - before if before is not None and after is not None else None
        res = EvalResult.from_wire(reply, node=self.node, container_id=self.container_id, host_cpu_s=host_cpu)
        if res.protected.failure_class == "timeout" and not marks:
            # no mark when the suite ended: the count covers more than that suite
            res = dataclasses.replace(res, host_cpu_s=None)
        return res

    def _cpu_file(self):
        if self._cgroup_cpu is None:
            self._cgroup_cpu = cgroups.cpu_file(self.container_id) or False
        return self._cgroup_cpu or None

    def probe(self, limits: dict, *, timeout: float) -> dict:
        return self._request({"op": "probe", "limits": limits}, timeout=timeout)

    def run_job(self, job: dict, *, timeout_s: float) -> dict:
        return self._request(job, timeout=timeout_s)

    def sandbox_config(self) -> SandboxConfig:
        return docker_config.sandbox_config(self.client, self.container_id)


class DockerRunner(Runner):
    """Workers as Docker containers on the local engine."""

    def __init__(self, *, image: str, runtime: str, limits: dict, seeds: dict | None = None,
                 run_label: str = "", client=None, program: str | None = None):
        self.client = client or docker_client()
        self._args = {"image": image, "runtime": runtime, "limits": dict(limits), "seeds": seeds,
                      "run_label": run_label}
        self.image = image
        self.runtime = runtime
        # the limits containers really get (recorded with the run): under runsc the pids limit covers
        # the runtime's own host tasks
        self.limits = {**limits, "pids": container_pids_limit(limits, runtime)}
        self.run_label = run_label
        seeds = seeds or {}
        # The container's environment: fixed values only, nothing from the host.
        self.environment = {"PYTHONHASHSEED": str(seeds.get("pythonhashseed", 0)), "TZ": seeds.get("tz", "UTC"),
                            "LANG": "C.UTF-8"}
        self.node = socket.gethostname()
        self._workers: list[DockerWorker] = []
        # read once: every container of a run gets the program whose sha256 the run records
        self.program = program if program is not None else worker_source()

    @property
    def recheck_slots(self) -> int:
        """Timeout re-checks that can run at once, each with a core to itself: the host's cores over
        the CPUs each container may use."""
        return max(1, int((os.cpu_count() or 1) // max(1.0, float(self.limits["cpus"]))))

    @property
    def measures_host_cpu(self) -> bool:
        """Whether each result carries the container's real CPU (so a timeout can be confirmed)."""
        return cgroups.cpu_readable()

    def check_package_image(self, image: str, packages, base_digest: str) -> str:
        from .packages import check_allowlist_image
        return check_allowlist_image(self.client, image, packages, base_digest)

    def image_digest(self) -> str:
        import docker
        try:
            return self.client.images.get(self.image).id
        except docker.errors.ImageNotFound as exc:
            raise SandboxUnavailable(f"sandbox image {self.image} is not present; build it with `passgate setup`") \
                from exc

    def check(self, expected_digest: str | None = None) -> RunnerInfo:
        info = self.client.info()
        runtimes = set((info.get("Runtimes") or {}).keys())
        if self.runtime not in runtimes:
            raise SandboxUnavailable(f"the Docker engine has no {self.runtime!r} runtime (has: "
                                     f"{', '.join(sorted(runtimes))}); run `passgate setup` to declare it")
        digest = self.image_digest()
        if expected_digest and digest != expected_digest:
            raise DriftError(f"image digest differs: {self.image} is {digest} but the manifest pins "
                             f"{expected_digest}; rebuild the pinned image or freeze a new manifest")
        remove_stale(self.client)
        return RunnerInfo(runner="docker", runtime=self.runtime, image=self.image, image_digest=digest,
                          worker_sha256=hashlib.sha256(self.program.encode()).hexdigest(),
                          limits=dict(self.limits), node=self.node,
                          engine_version=str(info.get("ServerVersion", "")))

    def for_program(self, program: str) -> DockerRunner:
        return DockerRunner(**self._args, client=self.client, program=program)

    def new_worker(self) -> DockerWorker:
        worker = DockerWorker(self)
        with _LIVE_LOCK:
            self._workers.append(worker)
        return worker

    def forget(self, worker: DockerWorker) -> None:
        """A closed worker leaves the runner's list (a runner of one-job sandboxes starts thousands)."""
        with _LIVE_LOCK:
            if worker in self._workers:
                self._workers.remove(worker)

    def close(self) -> None:
        with _LIVE_LOCK:
            workers, self._workers = self._workers, []
        for w in workers:
            w.close()
