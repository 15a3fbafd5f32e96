"""The node side of the Ray runner: what one slot actor does on its machine.

A `SlotServer` is instantiated by Ray inside an actor process on one node. It drives that node's
own Docker engine through `DockerRunner`, owns at most one sandbox container at a time, and never
touches the record: every answer goes back to the controller as plain data, a lost container
included, so Ray itself never sees an exception it could retry.
"""

from __future__ import annotations

import os
import socket
import subprocess
import time

from ..errors import PassgateError
from .docker_runner import DockerRunner
from .runner import WorkerLost


def runtime_fingerprint(client, runtime: str) -> str:
    """The runtime as this node's engine declares it: binary, arguments and the binary's version."""
    declared = (client.info().get("Runtimes") or {}).get(runtime) or {}
    path, args = declared.get("path", runtime), declared.get("runtimeArgs") or []
    try:
        version = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=20).stdout
        version = version.splitlines()[0].strip() if version.strip() else "version unknown"
    except (OSError, subprocess.SubprocessError):
        version = "version unknown"        # e.g. a Ray worker in a pod that cannot see the host's binary
    return " ".join([path, *args, f"({version})"])


def _normal_priority() -> int:
    """Ray starts workers at niceness 15; a slot only relays, but a relay the sandboxes (niceness 0)
    starve of CPU leaves its sandbox idle between candidates. Back to 0 when allowed; the result."""
    try:
        os.setpriority(os.PRIO_PROCESS, 0, 0)
    except OSError:
        pass                               # not root and no CAP_SYS_NICE: RAY_worker_niceness=0 on the node
    return os.getpriority(os.PRIO_PROCESS, 0)


class SlotServer:
    """Runs inside a Ray actor on its node: one Docker runner, at most one sandbox container."""

    def __init__(self, docker_args: dict):
        import ray
        self.node_id = ray.get_runtime_context().get_node_id()
        self.label = f"{socket.gethostname()}/{self.node_id[:12]}"
        self.docker_args = docker_args
        self.runner: DockerRunner | None = None
        self.worker = None
        self.niceness = _normal_priority()
        self._last_end: float | None = None        # when the sandbox last finished a candidate

    def check_engine(self, expected_digest: str | None) -> dict:
        """This node's engine, runtime, image digest and worker program, as the controller will judge them."""
        out = {"label": self.label, "node_id": self.node_id}
        for attempt in range(3):
            try:
                self.runner = DockerRunner(**self.docker_args)
                info = self.runner.check(expected_digest)      # also removes sandboxes of dead controllers
                return {**out, "image_digest": info.image_digest, "worker_sha256": info.worker_sha256,
                        "engine_version": info.engine_version, "niceness": self.niceness,
                        "runtime": runtime_fingerprint(self.runner.client, self.runner.runtime)}
            except PassgateError as exc:
                return {**out, "error": exc.message}
            except Exception as exc:  # noqa: BLE001 - e.g. a container removed while being listed: ask again
                error = f"the Docker engine failed: {type(exc).__name__}: {str(exc)[:300]}"
                time.sleep(0.5 * (attempt + 1))
        return {**out, "error": error}

    def self_probe(self, probe_limits: dict) -> dict:
        """The boundary self-probe in a sandbox here, as a candidate would run, and the container's
        configuration; the controller judges both. The probe is the function worker's, whatever
        program this slot's sandboxes boot."""
        own = self.runner
        try:
            self.runner = DockerRunner(**{**self.docker_args, "program": None},
                                       client=own.client if own is not None else None)
            return self._probe(probe_limits)
        except PassgateError as exc:
            return {"error": f"cannot start a sandbox: {exc.message}"}
        except Exception as exc:  # noqa: BLE001 - the Docker engine failed: the controller reads why
            return {"error": f"cannot start a sandbox: {type(exc).__name__}: {str(exc)[:300]}"}
        finally:
            if self.runner is not own:
                self.runner.close()
            self.runner = own

    def _probe(self, probe_limits: dict) -> dict:
        started = self.start()
        if "lost" in started:
            return {"error": f"cannot start a sandbox: {started['lost']}"}
        probe = self.call("probe", probe_limits, timeout=120)
        config = self.call("sandbox_config")
        self.stop()
        if "lost" in probe or "lost" in config:
            return {"error": f"the self-probe did not finish: {probe.get('lost') or config.get('lost')}"}
        return {"probe": probe["ok"], "sandbox_config": config["ok"]}

    def ensure(self) -> dict:
        """This slot's container, started if it has none (its workers share it)."""
        if self.worker is None:
            return self.start()
        return {"container_id": self.worker.container_id}

    def start(self) -> dict:
        """Replace this slot's container with a fresh one."""
        self.stop()
        try:
            if self.runner is None:
                self.runner = DockerRunner(**self.docker_args)
            self.worker = self.runner.new_worker()
        except WorkerLost as exc:
            return {"lost": str(exc), "oom_killed": exc.oom_killed, "exit_code": exc.exit_code}
        except PassgateError as exc:
            return {"lost": exc.message}
        return {"container_id": self.worker.container_id}

    def call(self, op: str, *args, **kwargs) -> dict:
        """`evaluate`, `probe` or `sandbox_config` on the container; a lost worker comes back as data."""
        if self.worker is None:
            # the candidate before this one took the container down: this call never ran, so it gets a
            # fresh container rather than an infra attempt it did nothing to earn
            started = self.start()
            if "lost" in started:
                return started
        t = time.perf_counter()
        idle = t - self._last_end if self._last_end is not None and op == "evaluate" else None
        try:
            result = getattr(self.worker, op)(*args, **kwargs)
        except WorkerLost as exc:
            self.worker, self._last_end = None, None
            return {"lost": str(exc), "oom_killed": exc.oom_killed, "exit_code": exc.exit_code}
        except Exception as exc:  # noqa: BLE001 - a Docker API fault: the container is unusable, say why
            self.stop()
            return {"lost": f"{type(exc).__name__}: {str(exc)[:300]}"}
        self._last_end = time.perf_counter()
        reply = {"ok": result, "inner_s": self._last_end - t, "idle_s": idle, "container_id": self.worker.container_id}
        if op == "evaluate" and self.worker.worn():
            self.stop()          # the next call starts a fresh container (see cgroups.py)
        return reply

    def stop(self) -> None:
        self._last_end = None
        if self.worker is not None:
            self.worker.close()
            self.worker = None
