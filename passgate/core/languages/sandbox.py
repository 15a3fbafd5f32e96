"""A language container: one long-lived sandbox of a language image, with the supervisor as PID 1.

The boundary is the Python sandbox's (core/sandbox/docker_runner.py): gVisor by default, no
network, read-only root, a tmpfs scratch, memory / CPU / pids limits (the pids limit sized for
gVisor as there), every capability dropped but SETUID, SETGID and KILL, no-new-privileges, an
environment of fixed values, no mounts, passgate's labels (stale containers of a dead controller are
removed as the Python ones are). Two differences, both for compiled languages: the scratch tmpfs
allows executing what the compiler wrote there, and it is sized by the manifest like the Python one.

The supervisor program arrives over stdin as text; requests and replies are JSON lines on the
attach socket. Any failure to answer is `WorkerLost`, never a verdict.
"""

from __future__ import annotations

import json
import os
import secrets
import socket
import struct
import time
from pathlib import Path

from ..sandbox import docker_config
from ..sandbox.boundary import SandboxConfig
from ..sandbox.cgroups import container_pids_limit
from ..sandbox.docker_runner import CANDIDATE_UID, LABEL, remove_container
from ..sandbox.runner import WorkerLost

SUPERVISOR = Path(__file__).resolve().parent / "supervisor.py"
BOOT = ("import sys,json;c=json.loads(sys.stdin.buffer.readline());s=sys.stdin.buffer.read(c['n']).decode();"
        "exec(compile(s,'<passgate-language-supervisor>','exec'),"
        "{'__name__':'passgate_language_supervisor','PASSGATE_CONFIG':c['config']})")
ENVIRONMENT = {"LANG": "C.UTF-8", "TZ": "UTC"}


def supervisor_source() -> str:
    return SUPERVISOR.read_text()


class LanguageContainer:
    """One container of a language image; `request(obj)` sends one op and returns its reply."""

    def __init__(self, client, *, image: str, runtime: str, limits: dict, run_label: str, program: str,
                 environment: dict | None = None):
        self.client, self.image, self.runtime, self.limits = client, image, runtime, limits
        self.run_label, self.program = run_label, program
        self.environment = dict(environment or ENVIRONMENT)
        self.container_id = ""
        self._sock = None
        self._buf = b""
        self._partial = b""
        self._lines: list[bytes] = []
        self._stderr = bytearray()
        self._closed = False
        self._start()

    def host_config(self) -> dict:
        lim = self.limits
        return self.client.api.create_host_config(
            runtime=self.runtime,
            network_mode="none",
            read_only=True,
            # exec: compiled programs run from the scratch directory
            tmpfs={"/tmp": f"rw,exec,nosuid,nodev,size={int(lim['scratch_mb'])}m,mode=1777"},
            shm_size=16 << 20,
            mem_limit=f"{int(lim['container_memory_mb'])}m",
            memswap_limit=f"{int(lim['container_memory_mb'])}m",
            nano_cpus=int(float(lim["cpus"]) * 1e9),
            pids_limit=container_pids_limit(lim, self.runtime),
            cap_drop=["ALL"],
            cap_add=["SETUID", "SETGID", "KILL"],
            security_opt=["no-new-privileges"],
            ipc_mode="private",
            init=False,
        )

    def _start(self) -> None:
        api = self.client.api
        try:
            created = api.create_container(
                self.image, command=["/usr/bin/python3", "-u", "-s", "-B", "-c", BOOT],
                stdin_open=True, tty=False, user="0:0", working_dir="/", hostname="sandbox",
                environment=self.environment, network_disabled=True, host_config=self.host_config(),
                labels={LABEL: "1", "passgate.run": self.run_label, "passgate.host": socket.gethostname(),
                        "passgate.controller_pid": str(os.getpid()), "passgate.role": "language"})
        except Exception as exc:
            raise WorkerLost(f"cannot create a language sandbox ({self.image}): {str(exc)[:300]}") from exc
        self.container_id = created["Id"]
        try:
            sock = api.attach_socket(self.container_id, params={"stdin": 1, "stdout": 1, "stderr": 1, "stream": 1})
            self._sock = getattr(sock, "_sock", sock)
            api.start(self.container_id)
            source = self.program.encode()
            config = {"uid": CANDIDATE_UID, "scratch": "/tmp"}
            self._send(json.dumps({"n": len(source), "config": config}).encode() + b"\n" + source)
            ready = self._read_line(timeout=120)
            if not ready.get("ready"):
                raise WorkerLost(f"the language supervisor did not start: {ready}")
        except WorkerLost:
            self.close()
            raise
        except Exception as exc:
            self.close()
            raise WorkerLost(f"cannot start the language supervisor: {str(exc)[:300]}") from exc

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

    def sandbox_config(self) -> SandboxConfig:
        return docker_config.sandbox_config(self.client, self.container_id)

    # ---- protocol -----------------------------------------------------------------
    def request(self, obj: dict, timeout: float) -> dict:
        rid = secrets.token_hex(8)
        self._send(json.dumps({**obj, "id": rid}, separators=(",", ":")).encode() + b"\n")
        reply = self._read_line(timeout)
        if reply.get("id") != rid:
            raise self._lost(f"protocol error: reply id {reply.get('id')!r} does not match {rid!r}")
        if "worker_error" in reply:
            raise self._lost(f"supervisor error: {reply['worker_error']}")
        return reply

    def _send(self, data: bytes) -> None:
        try:
            self._sock.sendall(data)
        except OSError as exc:
            raise self._lost(f"cannot write to the language supervisor: {exc}") from exc

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
            message += f"; supervisor stderr: {tail}"
        self.close()
        return WorkerLost(message, oom_killed=oom, exit_code=code)

    def _read_line(self, timeout: float) -> dict:
        deadline = time.monotonic() + timeout
        while not self._lines:
            left = deadline - time.monotonic()
            if left <= 0:
                raise self._lost(f"the language supervisor did not answer within {timeout:.0f}s")
            self._sock.settimeout(left)
            try:
                chunk = self._sock.recv(1 << 16)
            except socket.timeout:
                continue
            except OSError as exc:
                raise self._lost(f"lost the language supervisor's connection: {exc}") from exc
            if not chunk:
                raise self._lost("the language supervisor closed its output")
            self._buf += chunk
            self._frames()
        line = self._lines.pop(0)
        try:
            return json.loads(line)
        except ValueError as exc:
            raise self._lost(f"the language supervisor sent a malformed line: {line[:200]!r}") from exc

    def _frames(self) -> None:
        """Docker's attach stream: an 8-byte header (stream, size) before each payload."""
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
