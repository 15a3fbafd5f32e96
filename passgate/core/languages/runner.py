"""The runner for tasks in other languages: the engine's Runner interface over language containers.

A worker holds one language container at a time (tasks come in set order, so it rarely changes
language) and grades each candidate through `LanguageGrader`; the boundary self-probe runs in the
image of every language the run uses, and the run is judged on the most open of them.
"""

from __future__ import annotations

import hashlib
import os
import socket
from dataclasses import dataclass, replace
from typing import Mapping

import docker.errors

from ..errors import DriftError, SandboxUnavailable
from ..sandbox import cgroups
from ..sandbox.boundary import SandboxConfig, failed, probe_checks
from ..sandbox.docker_runner import docker_client, remove_stale
from ..sandbox.runner import EvalRequest, EvalResult, Runner, RunnerInfo, Worker, WorkerLost, limits_for
from .grading import LanguageGrader
from .known_good import known_good_request
from .registry import spec_for
from .sandbox import LanguageContainer, supervisor_source


@dataclass(frozen=True)
class LanguageImage:
    language: str
    tag: str
    digest: str | None        # the manifest's pin; None only before freezing


def language_images(pins: Mapping[str, str], languages) -> list[LanguageImage]:
    """The image of each language a run uses, with the digest the manifest pins for it."""
    return [LanguageImage(lang, spec_for(lang).toolchain.tag, pins.get(lang)) for lang in sorted(set(languages))]


KNOWN_GOOD_CPU_S = 20.0     # the known-good probe's run CPU budget, at least


class LanguageWorker(Worker):
    """Grades candidates of any of the run's languages, one container at a time."""

    def __init__(self, runner: "LanguageRunner"):
        self.runner = runner
        self.node = runner.node
        self.worker_id = f"lang-{os.getpid()}-{id(self):x}"
        self.grader = LanguageGrader(runner.compile_cpu_s, float(runner.limits["wall_factor"]))
        self._language = ""
        self._container: LanguageContainer | None = None
        self._pids_file = None

    def _container_for(self, language: str) -> LanguageContainer:
        if self._container is not None and self._language != language:
            self._container.close()
            self._container = None
        if self._container is None:
            self._container = self.runner.open_container(language)
            self._language = language
            self._pids_file = cgroups.pids_file(self._container.container_id)
        return self._container

    def evaluate(self, request: EvalRequest) -> EvalResult:
        try:
            language = self.grader.language_of(request)
        except (ValueError, KeyError) as exc:
            raise WorkerLost(f"task {request.task.task_id} is not a language task: {exc}") from exc
        container = self._container_for(language)
        try:
            result = self.grader.evaluate(container, request)
        except WorkerLost:
            self.close()                  # the container is gone (or unusable): the next request opens one
            raise
        return replace(result, node=self.node, container_id=container.container_id)

    def known_good(self, like: EvalRequest) -> EvalRequest:
        """The known-good candidate in the language of the candidate that lost its sandbox, with a
        CPU budget of its own: it tests the evaluator, not the candidate's limit (a runtime's start
        alone can take seconds of CPU under gVisor on a busy machine)."""
        limits = limits_for(like.limits, max(float(like.limits["cpu_s"]), KNOWN_GOOD_CPU_S))
        return known_good_request(self.grader.language_of(like), limits, max(120.0, float(like.timeout_s)))

    def probe(self, limits: Mapping, *, timeout: float) -> dict:
        """The self-probe in every language image of the run; the most open one is the run's."""
        from ..sandbox.program.probe import PROBE_PROGRAM
        found = {}
        for image in self.runner.images:
            container = self._container_for(image.language)
            found[image.language] = container.request({"op": "probe", "source": PROBE_PROGRAM, "limits": dict(limits)},
                                                      timeout=timeout)
            found[image.language].pop("id", None)
        return merge_probes(found, self.runner.images, int(limits["nproc"]))

    def sandbox_config(self) -> SandboxConfig:
        """The first language's container as the engine reports it; another language's when its
        configuration differs or its image is not the pinned one."""
        first = None
        for image in self.runner.images:
            config = self._container_for(image.language).sandbox_config()
            if image.digest and config.image != image.digest:
                return config
            if first is None:
                first = config
            elif not config.same_host_settings(first):
                return config
        if first is None:
            raise WorkerLost("this language worker has no image to report on")
        return first

    def worn(self) -> bool:
        return bool(self._pids_file) and cgroups.worn(self._pids_file, int(self.runner.container_limits["pids"]))

    def close(self) -> None:
        if self._container is not None:
            self._container.close()
            self._container = None


def merge_probes(found: dict[str, dict], images: list[LanguageImage], nproc: int) -> dict:
    """One probe for the engine's checks: the language image where most checks fail, with the
    environment hashes of all of them (a planted value seen in any image is seen)."""
    worst, worst_failed = None, -1
    summary = {}
    for image in images:
        probe = found[image.language]
        bad = [c.name for c in failed(probe_checks(probe, canary=None, expected_nproc=nproc))]
        summary[image.language] = {"image": image.tag, "failed": bad}
        if len(bad) > worst_failed:
            worst, worst_failed = image.language, len(bad)
    merged = dict(found[worst])
    hashes = set()
    for probe in found.values():
        hashes |= set((probe.get("environ_value_sha256") or {}).get("value") or [])
    if "environ_value_sha256" in merged:
        merged["environ_value_sha256"] = {"ok": True, "value": sorted(hashes)}
    merged["languages"] = summary
    return merged


class LanguageRunner(Runner):
    """Language containers on the local Docker engine (gVisor by default)."""

    def __init__(self, *, images: list[LanguageImage], runtime: str, limits: dict, compile_cpu_s: float,
                 run_label: str = "", client=None):
        if not images:
            raise SandboxUnavailable("a language run needs at least one language image")
        self.client = client or docker_client()
        self.images, self.runtime, self.limits = images, runtime, dict(limits)
        self.container_limits = {**self.limits, "pids": cgroups.container_pids_limit(self.limits, runtime)}
        self.compile_cpu_s = compile_cpu_s
        self.run_label = run_label
        self.node = socket.gethostname()
        self.program = supervisor_source()
        self._workers: list[LanguageWorker] = []

    @property
    def recheck_slots(self) -> int:
        return max(1, int((os.cpu_count() or 1) // max(1.0, float(self.limits["cpus"]))))

    def open_container(self, language: str) -> LanguageContainer:
        image = next((i for i in self.images if i.language == language), None)
        if image is None:
            raise WorkerLost(f"the run has no image for {language!r}: its tasks were not in the frozen manifest")
        return LanguageContainer(self.client, image=image.digest or image.tag, runtime=self.runtime,
                                 limits=self.limits, run_label=self.run_label, program=self.program)

    def check(self, expected_digest: str | None = None) -> RunnerInfo:
        """The runtime is declared and every language image is present and the pinned one."""
        info = self.client.info()
        runtimes = set((info.get("Runtimes") or {}).keys())
        if self.runtime not in runtimes:
            raise SandboxUnavailable(f"the Docker engine has no {self.runtime!r} runtime (has: "
                                     f"{', '.join(sorted(runtimes))}); run `passgate setup` to declare it")
        digests = {}
        for image in self.images:
            try:
                digest = self.client.images.get(image.tag).id
            except docker.errors.ImageNotFound as exc:
                raise SandboxUnavailable(f"the {spec_for(image.language).title} image {image.tag} is not present; "
                                         "build it with `passgate setup --manifest MANIFEST`") from exc
            if image.digest and digest != image.digest:
                raise DriftError(f"language image digest differs: {image.tag} is {digest} but the manifest pins "
                                 f"{image.digest} for {image.language}; rebuild the pinned image or freeze a new "
                                 "manifest")
            digests[image.language] = {"image": image.tag, "digest": digest}
        remove_stale(self.client)
        first = self.images[0]
        return RunnerInfo(runner="docker-languages", runtime=self.runtime, image=first.tag,
                          image_digest=digests[first.language]["digest"],
                          worker_sha256=hashlib.sha256(self.program.encode()).hexdigest(),
                          limits=dict(self.container_limits, compile_cpu_s=self.compile_cpu_s), node=self.node,
                          engine_version=str(info.get("ServerVersion", "")), extra={"language_images": digests})

    def new_worker(self) -> LanguageWorker:
        worker = LanguageWorker(self)
        self._workers.append(worker)
        return worker

    def close(self) -> None:
        for w in self._workers:
            w.close()
        self._workers.clear()
