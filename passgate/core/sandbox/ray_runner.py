"""Ray implementation of the runner: the same Docker + gVisor workers, on many machines.

A *slot* is a Ray actor pinned to one node (hard node affinity) that owns at most one
`DockerWorker` there, started by that node's own Docker engine. A `RayWorker` is the engine's
handle on one slot: each `evaluate` is one actor call, so results stream back to the controller
as they finish and the controller stays the only writer of the record (nothing on a node
touches SQLite). Ray never retries anything (`max_restarts=0`, `max_task_retries=0`): every
execution the engine asks for is an execution it records, and a lost one is an infra attempt.

Only nodes that advertise the custom resource `passgate_sandbox` are used; a node runs at most
min(that resource, the manifest's `execution.workers`) slots, so `workers` keeps meaning what it
means on one machine: sandboxes per machine. Each node is checked before it gets work: its
runtime (binary, arguments, version), image digest and worker program's sha256 against the pins
(what the manifest does not pin, the nodes' majority sets), then the boundary self-probe in a
sandbox there. A node that differs or fails is refused, as an event in the record naming it.
The node side lives in `ray_node.py`.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections import Counter, deque
from dataclasses import dataclass, field, replace

from ..errors import SandboxUnavailable
from .boundary import SandboxConfig, container_checks, failed, probe_checks
from .docker_runner import worker_sha256
from .ray_node import SlotServer
from .runner import EvalRequest, EvalResult, Runner, RunnerInfo, Worker, WorkerLost

SLOT_RESOURCE = "passgate_sandbox"
START_TIMEOUT_S = 180.0        # actor scheduling + container start on a busy node
CALL_MARGIN_S = 60.0           # beyond the worker's own deadline before a node counts as hung
SLOT_WAIT_S = 2.0              # how long new_worker waits for a slot another worker is releasing
START_FAILURES_TO_RETIRE = 2   # consecutive failed sandbox starts after which a node gets no more work
PIPELINE = 2                   # workers per sandbox (isolation "shard"): the next candidate waits on the node


def _ray():
    try:
        import ray
    except ImportError as exc:
        raise SandboxUnavailable("Ray is not installed: `pip install 'passgate[ray]'` on the controller and "
                                 "on every node") from exc
    return ray


def _why(exc) -> str:
    """One line for a Ray error: the exception raised on the node when there is one."""
    cause = getattr(exc, "cause", None)
    if cause is not None:
        return f"{type(cause).__name__}: {str(cause)[:300]}"
    lines = [line.strip() for line in str(exc).splitlines() if line.strip() and not line.startswith("\t")]
    return (" ".join(lines) or type(exc).__name__)[:300]     # without the tab-indented actor id, pid, ...


class CapacityGone(WorkerLost):
    """No slot is free and none will be: the caller should stop asking (the engine retires a thread)."""

    capacity_gone = True


# ---------------------------------------------------------------------------- on the controller
@dataclass
class _Slot:
    """One slot actor (one sandbox at a time) and how many workers are bound to it."""

    actor: object
    node: "_Node"
    lanes: int = 0
    dead: bool = False


@dataclass
class _Node:
    node_id: str
    label: str
    capacity: int                                   # sandboxes at once
    image_digest: str = ""
    slots: list[_Slot] = field(default_factory=list)
    alive: bool = True
    start_failures: int = 0                         # consecutive sandbox starts that failed

    def live(self) -> list[_Slot]:
        return [s for s in self.slots if not s.dead]

    def room(self, depth: int) -> int:
        """Workers this node can still take: lanes free on its slots and on slots it may still start."""
        if not self.alive:
            return 0
        live = self.live()
        return (self.capacity - len(live)) * depth + sum(depth - s.lanes for s in live)


class RayWorker(Worker):
    """The engine's handle on one slot actor; `node` is the Ray node's label."""

    def __init__(self, runner: "RayRunner", slot: _Slot, container_id: str):
        self.runner, self._slot = runner, slot
        self.node = slot.node.label
        self.container_id = container_id
        self.worker_id = container_id[:12]

    def _call(self, op: str, *args, wait_s: float, **kwargs):
        slot = self._slot
        if slot is None:
            raise WorkerLost("this worker was closed")
        ray = self.runner.ray
        wait_s = wait_s * self.runner.depth + CALL_MARGIN_S     # a sibling's candidate may run first
        t = time.perf_counter()
        ref = slot.actor.call.remote(op, *args, **kwargs)
        try:
            reply = ray.get(ref, timeout=wait_s)
        except ray.exceptions.GetTimeoutError:
            raise self._lost(f"Ray node {self.node} did not answer within {wait_s:.0f}s", kill=True) from None
        except ray.exceptions.RayError as exc:       # actor or node died
            raise self._lost(f"Ray node {self.node} lost: {_why(exc)}", dead=True) from None
        if "lost" in reply:
            raise self._lost(f"on Ray node {self.node}: {reply['lost']}", oom_killed=reply.get("oom_killed", False),
                             exit_code=reply.get("exit_code"))
        self.runner._note(time.perf_counter() - t - reply["inner_s"], reply["inner_s"], reply.get("idle_s"))
        self.container_id = reply["container_id"]     # a sibling may have replaced a lost sandbox
        return reply["ok"]

    def _lost(self, message: str, *, dead: bool = False, kill: bool = False, **kw) -> WorkerLost:
        slot, self._slot = self._slot, None
        self.runner._release(slot, dead=dead, kill=kill)
        exc = WorkerLost(message, **kw)
        exc.node = self.node            # the record names the node of an infra attempt too
        return exc

    def evaluate(self, request: EvalRequest) -> EvalResult:
        result = self._call("evaluate", request, wait_s=request.timeout_s)
        return replace(result, node=self.node, container_id=self.container_id)

    def probe(self, limits: dict, *, timeout: float) -> dict:
        return self._call("probe", limits, timeout=timeout, wait_s=timeout)

    def run_job(self, job: dict, *, timeout_s: float) -> dict:
        return self._call("run_job", job, timeout_s=timeout_s, wait_s=timeout_s)

    def sandbox_config(self) -> SandboxConfig:
        return self._call("sandbox_config", wait_s=60)

    def close(self) -> None:
        slot, self._slot = self._slot, None
        if slot is not None:
            self.runner._release(slot)


class RayRunner(Runner):
    """Workers as slot actors on the nodes of a Ray cluster, each running the local Docker runner."""

    def __init__(self, *, address: str, image: str, runtime: str, limits: dict, seeds: dict | None = None,
                 run_label: str = "", per_node: int = 2, isolation: str = "shard", program: str | None = None):
        self.address, self.per_node = address, per_node
        self.start_timeout_s = START_TIMEOUT_S     # the engine's patience covers one start attempt
        # a sandbox per candidate admits one worker per sandbox; a shard's sandbox takes the next
        # candidate from a second worker the moment the first is done, with no round trip between
        self.depth = PIPELINE if isolation == "shard" else 1
        self.image, self.runtime = image, runtime
        self.docker_args = {"image": image, "runtime": runtime, "limits": dict(limits), "seeds": dict(seeds or {}),
                            "run_label": run_label}
        if program is not None:              # the sandboxes boot another program (`for_program`)
            self.docker_args["program"] = program
        self._program_sha256 = hashlib.sha256(program.encode()).hexdigest() if program is not None \
            else worker_sha256()
        self.ray = None
        self._connected_here = False
        self._nodes: dict[str, _Node] = {}
        self._seen: set[str] = set()           # node ids checked (accepted or refused)
        self._lock = threading.Condition()
        self._discover_lock = threading.Lock()
        self._actors: list = []                # every slot actor started, for close()
        self._events: list[tuple[str, str]] = []
        self._digest: str | None = None        # pinned by the manifest, or by the nodes' majority
        self._runtime_fp: str | None = None    # runtime binary, arguments, version: the nodes' majority
        self._actor_cls = None
        # per call: (round trip minus the sandbox's time, the sandbox's time, its idle time before the call) in s
        self.overheads: deque[tuple[float, float, float | None]] = deque(maxlen=100_000)

    # ---- Runner API -----------------------------------------------------------------
    @property
    def concurrency(self) -> int:
        """Workers across accepted nodes: how many engine threads keep every sandbox busy."""
        with self._lock:
            return sum(n.capacity for n in self._nodes.values() if n.alive) * self.depth

    def check(self, expected_digest: str | None = None) -> RunnerInfo:
        """Nodes that run another image than the pinned one are refused (SandboxUnavailable when none is left)."""
        self._connect()
        if expected_digest is not None or not self._nodes:
            self._digest = expected_digest
        if expected_digest is not None:
            self._refuse_other_images(expected_digest)
        self._discover()
        with self._lock:
            nodes = [n for n in self._nodes.values() if n.alive]
        if not nodes:
            refused = "; ".join(m for k, m in self._events if k == "node-refused")
            raise SandboxUnavailable(f"no Ray node at {self.address} can run this manifest"
                                     + (f": {refused}" if refused else f": no alive node advertises the "
                                        f"{SLOT_RESOURCE!r} resource (`ray start --resources "
                                        f"'{{\"{SLOT_RESOURCE}\": N}}'`)"))
        labels = ", ".join(f"{n.label}×{n.capacity}" for n in nodes)
        return RunnerInfo(runner="ray", runtime=self.runtime, image=self.image, image_digest=self._digest or "",
                          worker_sha256=self._program_sha256, limits=dict(self.docker_args["limits"]),
                          node=f"ray {self.address}: {labels}", engine_version=f"ray {self.ray.__version__}",
                          extra={"nodes": [n.label for n in nodes]})

    def _refuse_other_images(self, digest: str) -> None:
        with self._lock:
            other = [n for n in self._nodes.values() if n.alive and n.image_digest != digest]
            for n in other:
                n.alive = False
        for n in other:
            self._event("node-refused", f"node {n.label} refused: image digest differs: {n.image_digest} but the "
                        f"run uses {digest}")

    def for_program(self, program: str) -> RayRunner:
        """The same cluster and boundary, a fresh sandbox per job: each worker's slot is its own, and
        its container goes when the worker closes. This runner's idle slots are given back first, so
        the new runner has every node's slots."""
        self._free_idle_slots()
        a = self.docker_args
        return RayRunner(address=self.address, image=self.image, runtime=self.runtime, limits=a["limits"],
                         seeds=a["seeds"], run_label=a["run_label"], per_node=self.per_node, isolation="candidate",
                         program=program)

    def new_worker(self) -> RayWorker:
        slot = self._acquire()
        try:
            reply = self.ray.get(slot.actor.ensure.remote(), timeout=START_TIMEOUT_S)
        except self.ray.exceptions.GetTimeoutError:
            self._release(slot, kill=True)
            raise self._start_failed(slot.node, f"did not start a sandbox within {START_TIMEOUT_S:.0f}s") from None
        except self.ray.exceptions.RayError as exc:
            self._release(slot, dead=True)
            raise WorkerLost(f"Ray node {slot.node.label} lost: {_why(exc)}") from None
        if "lost" in reply:
            self._release(slot)
            raise self._start_failed(slot.node, reply["lost"])
        slot.node.start_failures = 0
        return RayWorker(self, slot, reply["container_id"])

    def _start_failed(self, node: _Node, why: str) -> WorkerLost:
        """A node that keeps failing to start a sandbox (its engine died, its disk is full) is retired,
        so the run goes on with the other nodes instead of waiting on it."""
        with self._lock:
            node.start_failures += 1
            retire = node.alive and node.start_failures >= START_FAILURES_TO_RETIRE
            if retire:
                node.alive = False
                self._lock.notify_all()
        if retire:
            self._event("node", f"node {node.label} retired mid-run: {node.start_failures} sandbox starts in a "
                        f"row failed ({why}); the other nodes carry on")
        return WorkerLost(f"on Ray node {node.label}: {why}")

    def _free_idle_slots(self) -> None:
        """End the slot actors no worker holds (their sandboxes stopped first); busy ones stay."""
        with self._lock:
            idle = [s for n in self._nodes.values() for s in n.slots if s.lanes == 0 and not s.dead]
            for n in self._nodes.values():
                n.slots = [s for s in n.slots if s not in idle]
            self._actors = [a for a in self._actors if all(a is not s.actor for s in idle)]
        if idle and self.ray is not None:
            self.ray.wait([s.actor.stop.remote() for s in idle], num_returns=len(idle), timeout=30)
            for s in idle:
                self.ray.kill(s.actor)

    def close(self) -> None:
        with self._lock:
            actors, self._actors = self._actors, []
            for n in self._nodes.values():
                n.slots.clear()
        if self.ray is None:
            return
        # remove the containers first (a dead node's went with it), then end the actors
        if actors:
            self.ray.wait([a.stop.remote() for a in actors], num_returns=len(actors), timeout=30)
        for a in actors:
            self.ray.kill(a)
        if self._connected_here:
            self.ray.shutdown()
            self._connected_here = False

    def drain_events(self) -> list[tuple[str, str]]:
        """(kind, message) lines for the run's log: nodes accepted, refused, lost."""
        with self._lock:
            out, self._events = self._events, []
        return out

    # ---- nodes and slots --------------------------------------------------------------
    def _connect(self) -> None:
        ray = self.ray = _ray()
        if not ray.is_initialized():
            try:
                ray.init(address=self.address, logging_level="WARNING", log_to_driver=False)
            except (ConnectionError, RuntimeError, ValueError) as exc:
                raise SandboxUnavailable(f"cannot join the Ray cluster at {self.address}: {exc}") from exc
            self._connected_here = True
        self._actor_cls = ray.remote(SlotServer)

    def _spawn(self, node_id: str):
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy
        # one slot resource per actor (the node's own cap), pinned to the node; Ray never restarts or retries,
        # and keeps no per-call task events (the record is ours; they cost CPU on every call)
        actor = self._actor_cls.options(
            num_cpus=0, resources={SLOT_RESOURCE: 1}, max_restarts=0, max_task_retries=0, enable_task_events=False,
            scheduling_strategy=NodeAffinitySchedulingStrategy(node_id, soft=False)).remote(self.docker_args)
        with self._lock:
            self._actors.append(actor)
        return actor

    def _discover(self) -> None:
        """Check every alive node that offers sandbox slots and that we have not seen yet, in parallel."""
        with self._discover_lock:
            found = {n["NodeID"]: n for n in self.ray.nodes()
                     if n.get("Alive") and n.get("Resources", {}).get(SLOT_RESOURCE, 0) >= 1}
            new = [nid for nid in found if nid not in self._seen]
            self._seen.update(new)
            self._check_nodes(new, found)

    def _check_nodes(self, new: list[str], found: dict) -> None:
        from .runner import limits_for  # the limits the engine's own self-probe runs with
        probe_limits = limits_for(self.docker_args["limits"], 30.0)
        actors = {nid: self._spawn(nid) for nid in new}
        # engines first on every node, sandboxes after: one node's clean-up of dead controllers'
        # containers must not race another's sandbox start when nodes share an engine (tests)
        replies = self._ask({nid: a.check_engine.remote(self._digest) for nid, a in actors.items()})
        probed = self._ask({nid: actors[nid].self_probe.remote(probe_limits) for nid, r in replies.items()
                            if "error" not in r})
        for nid, r in probed.items():
            replies[nid].update(r)
        # what the manifest does not pin, the nodes must still share: the majority sets it for the run
        sound = [r for r in replies.values() if "error" not in r]
        if self._digest is None and sound:
            self._digest = Counter(r["image_digest"] for r in sound).most_common(1)[0][0]
        if self._runtime_fp is None and sound:
            self._runtime_fp = Counter(r["runtime"] for r in sound).most_common(1)[0][0]
        for nid, r in replies.items():
            self._admit(nid, found[nid], actors[nid], r, self._judge(r))

    def _ask(self, refs: dict) -> dict:
        """Each node's answer; a node that fails to answer answers with the reason."""
        replies = {}
        for nid, ref in refs.items():
            try:
                replies[nid] = self.ray.get(ref, timeout=START_TIMEOUT_S)
            except self.ray.exceptions.RayError as exc:
                replies[nid] = {"label": nid[:12], "error": f"did not answer: {_why(exc)}"}
        return replies

    def _judge(self, r: dict) -> str | None:
        """Why this node may not run the manifest's candidates, or None when it may."""
        if "error" in r:
            return r["error"]
        if r["worker_sha256"] != self._program_sha256:
            return (f"its passgate worker program is {r['worker_sha256'][:16]}, the controller's "
                    f"{self._program_sha256[:16]}: install the same passgate version on every node")
        if r["image_digest"] != self._digest:
            return f"image digest differs: {r['image_digest']} but the run uses {self._digest}"
        if r["runtime"] != self._runtime_fp:
            return f"runtime differs: {r['runtime']} but the run uses {self._runtime_fp}"
        nproc = int(self.docker_args["limits"]["nproc"])
        bad = failed(probe_checks(r["probe"], canary=None, expected_nproc=nproc)) + failed(
            container_checks(r["sandbox_config"], runtime=self.runtime, image_digest=self._digest, canary=None))
        if bad:
            return "sandbox boundary open: " + "; ".join(f"{c.name} ({c.saw})" for c in bad)
        return None

    def _admit(self, node_id: str, ray_node: dict, actor, r: dict, refusal: str | None) -> None:
        if refusal:
            self.ray.kill(actor)
            self._event("node-refused", f"node {r['label']} refused: {refusal}")
            return
        capacity = max(1, min(self.per_node, int(ray_node["Resources"][SLOT_RESOURCE])))
        with self._lock:
            node = self._nodes[node_id] = _Node(node_id, r["label"], capacity, r["image_digest"])
            node.slots.append(_Slot(actor, node))
            self._lock.notify_all()
        slow = f"; slots at niceness {r['niceness']} (start the node with RAY_worker_niceness=0)" \
            if r["niceness"] else ""
        self._event("node", f"node {r['label']} accepted: {capacity} slots; runtime {r['runtime']}; docker "
                    f"{r['engine_version']}; image {r['image_digest']}; boundary self-probe passed{slow}")

    def _acquire(self) -> _Slot:
        """A worker's place on the node with the most room: a slot with no worker, else a new slot
        while the node may start one, else the least-shared slot."""
        deadline = time.monotonic() + SLOT_WAIT_S
        rediscovered = False
        with self._lock:
            while True:
                room = [n for n in self._nodes.values() if n.room(self.depth) > 0]
                if room:
                    slot = self._slot_on(max(room, key=lambda n: n.room(self.depth)))
                    slot.lanes += 1
                    return slot
                left = deadline - time.monotonic()
                if left > 0:
                    self._lock.wait(left)
                    continue
                if rediscovered:
                    raise CapacityGone("every slot of every accepted Ray node is in use or gone")
                rediscovered = True
                self._lock.release()
                try:
                    self._discover()          # a replacement node may have joined
                finally:
                    self._lock.acquire()

    def _slot_on(self, node: _Node) -> _Slot:
        live = node.live()
        empty = [s for s in live if s.lanes == 0]
        if empty:
            return empty[0]
        if len(live) < node.capacity:
            node.slots.append(_Slot(self._spawn(node.node_id), node))
            return node.slots[-1]
        return min((s for s in live if s.lanes < self.depth), key=lambda s: s.lanes)

    def _release(self, slot: _Slot, *, dead: bool = False, kill: bool = False) -> None:
        node = slot.node
        if dead and node.alive and not self._node_alive(node.node_id):
            node.alive = False
            self._event("node", f"node {node.label} lost mid-run: its unfinished candidates are re-dispatched "
                        "as infra retries")
        if kill:
            self.ray.kill(slot.actor)
        with self._lock:
            slot.lanes -= 1
            slot.dead = slot.dead or dead or kill
            if slot.lanes == 0 and not slot.dead:
                # the last worker gone, its sandbox goes too; submitted under the lock, so before the
                # `ensure` of any worker that takes this slot next
                slot.actor.stop.remote()
            self._lock.notify_all()

    def _node_alive(self, node_id: str) -> bool:
        return any(n["NodeID"] == node_id and n.get("Alive") for n in self.ray.nodes())

    def _note(self, distribution_s: float, sandbox_s: float, idle_s: float | None) -> None:
        with self._lock:
            self.overheads.append((distribution_s, sandbox_s, idle_s))

    def _event(self, kind: str, message: str) -> None:
        with self._lock:
            self._events.append((kind, message))
