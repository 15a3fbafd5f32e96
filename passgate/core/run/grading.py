"""Grade every candidate of a run, from whatever the record already holds.

A session plans from the record (so a resumed run never executes a recorded attempt again),
dispatches, and appends each execution and outcome as it arrives. Identical programs can share one
execution; timeouts are re-run alone at the end; generated candidates join while generation runs.
"""

from __future__ import annotations

import json
import queue
import threading
import time
from collections import defaultdict

from passgate.core.progress import Progress
from passgate.core.record.store import Store
from passgate.core.sandbox.cgroups import confirms_timeout
from passgate.core.sandbox.runner import EvalRequest, EvalResult, Runner, TaskSpec

from .decide import Attempt, Final, Need, decide, recheck_would_follow
from .dispatch import Job, RunContext, dispatch
from .rows import candidate_rows, execution_row, outcome_row
from .selfcheck import REFERENCE_INDEX

Key = tuple[str, int]


class GradingSession:
    def __init__(self, store: Store, ctx: RunContext, runner: Runner):
        self.store, self.ctx, self.runner = store, ctx, runner
        self.by_key: dict[Key, dict] = {(c["task_id"], c["candidate_index"]): c
                                        for c in store.rows("candidates", ctx.run_id)}
        self.decided: set[Key] = {(r["task_id"], r["candidate_index"]) for r in store.rows("outcomes", ctx.run_id)}
        self.attempts: dict[Key, list[dict]] = defaultdict(list)
        for r in store.rows("executions", ctx.run_id, order="exec_id"):
            if r["candidate_index"] != REFERENCE_INDEX:
                self.attempts[(r["task_id"], r["candidate_index"])].append(r)
        self.followers: dict[Key, list[int]] = defaultdict(list)   # representative -> identical programs
        self.deferred: list[Job] = []                               # timeout rechecks, run alone at the end
        self.awaiting: set[Key] = set()                             # failed an attempt, no outcome yet
        self.counts: dict[str, int] = defaultdict(int)
        self.total = len(self.by_key)
        self.done = 0
        self.t_start = time.monotonic()
        self.started_done = 0
        self.confirms = bool(runner.measures_host_cpu)   # the runner reports real CPU
        self.phase = "grade"                # recheck once only timeouts re-run alone are left

    # ---- the run --------------------------------------------------------------------
    def run(self) -> None:
        self._record_exclusions()
        pending = self._plan(self._representatives())
        self.done = self.started_done = len(self.decided)
        self.t_start = time.monotonic()
        self._progress("grade", message="grading")
        feed = generator = failed = None
        if self.ctx.manifest.candidates.source == "generate":
            self.total = len(self.ctx.tasks) * self.ctx.manifest.generation.n_per_task
            feed, failed, generator = start_generation(self.ctx, set(self.by_key), self.runner)
        try:
            for _ in dispatch(self.ctx, self.runner, pending, self._request_of, on_result=self._handle, feed=feed,
                              on_feed=self._on_feed if feed is not None else None):
                pass
        except BaseException:
            if feed is not None:   # the run is failing: the generator stops, and what it gave is kept
                self.ctx.cancel.set()
                self._finish_generation(feed, generator, [])
            raise
        if feed is not None:
            self._finish_generation(feed, generator, failed)
        while self.deferred and not self.ctx.cancel.is_set():
            batch, self.deferred = self.deferred, []
            self.phase = "recheck"
            self._progress("recheck", message=f"re-running {len(batch)} timeouts alone")
            # alone: one re-check per core the host can give a whole container, nothing else running
            slots = max(1, int(self.runner.recheck_slots))
            for _ in dispatch(self.ctx, self.runner, batch, self._request_of, on_result=self._handle, workers=slots):
                pass
        self.store.update_run(self.ctx.run_id, progress_json=json.dumps(
            {"done": self.done, "total": self.total, "counts": dict(self.counts)}))

    # ---- planning ---------------------------------------------------------------------
    def _record_exclusions(self) -> None:
        """Candidates never run (excluded at import or generation) get their outcome with the reason."""
        rows = [outcome_row(self.ctx.run_id, c["task_id"], c["candidate_index"], "excluded",
                            reason=c["excluded_reason"] or c["gen_error"] or c["gen_status"])
                for key, c in self.by_key.items() if c["gen_status"] != "ok" and key not in self.decided]
        self.store.append("outcomes", rows)
        self.decided |= {(r["task_id"], r["candidate_index"]) for r in rows}

    def _representatives(self) -> list[Key]:
        """Candidates to execute: all runnable ones, or one per identical program when deduplicating."""
        runnable = [c for c in self.by_key.values() if c["gen_status"] == "ok"]
        if not self.ctx.manifest.execution.dedupe_identical_programs:
            return [(c["task_id"], c["candidate_index"]) for c in runnable]
        reps = []
        for c in sorted(runnable, key=lambda c: (c["task_id"], c["candidate_index"])):
            group = self.ctx.groups.setdefault((c["task_id"], c["program_sha256"]), [])
            group.append(c["candidate_index"])
            if len(group) == 1:
                reps.append((c["task_id"], c["candidate_index"]))
            else:
                self.followers[(c["task_id"], group[0])].append(c["candidate_index"])
        return reps

    def _plan(self, reps: list[Key]) -> list[Job]:
        pending: list[Job] = []
        backlog: list[dict] = []
        for key in reps:
            if key in self.decided:
                continue
            step = decide([Attempt.from_row(r) for r in self.attempts[key]], self.ctx.policy)
            if step is None:
                pending.append(self._job(key, "grade"))
            elif isinstance(step, Need):
                (self.deferred if step.purpose == "timeout_recheck" else pending).append(self._job(key, step.purpose))
                if step.purpose != "infra_retry":       # the evaluator's failure is not the candidate's
                    self.awaiting.add(key)
            else:
                backlog += self._outcome_rows(key, step)     # decided, but killed before the outcome was written
        self._append_outcomes(backlog)
        return pending

    def _job(self, key: Key, purpose: str) -> Job:
        c = self.by_key[key]
        return Job(key[0], key[1], purpose, len(self.attempts[key]) + 1, c["program"], c["program_sha256"])

    def _request_of(self, job: Job) -> EvalRequest:
        attempts = [Attempt.from_row(r) for r in self.attempts[(job.task_id, job.candidate_index)]]
        # a timeout that a run alone will re-check is replaced by that run, public suite and all; where
        # the host can confirm the timeout (no re-check then), the attempt is complete only with it
        follows = recheck_would_follow(attempts, job.purpose, self.ctx.policy) and not self.confirms
        return self.ctx.request(job, self.ctx.task_limits(job.task_id), public_after_protected_timeout=not follows,
                                classic_program=self.ctx.classic_for(job))

    # ---- results --------------------------------------------------------------------
    def _handle(self, job: Job, res) -> list[Job]:
        """Append the attempt; return the follow-up job, or write the outcome when decided."""
        key = (job.task_id, job.candidate_index)
        # only a runner that confirms timeouts was asked for the public suite after one (_request_of)
        confirmed = self.confirms and isinstance(res, EvalResult) and res.protected.failure_class == "timeout" \
            and confirms_timeout(res.host_cpu_s, res.protected.cpu_s, float(self.ctx.task_limits(job.task_id)["cpu_s"]))
        row = execution_row(self.ctx.run_id, self.ctx.manifest.execution.runtime, job, res, timeout_confirmed=confirmed)
        self.store.append("executions", [row])
        self.attempts[key].append(row)
        step = decide([Attempt.from_row(r) for r in self.attempts[key]], self.ctx.policy)
        if isinstance(step, Need):
            if step.purpose != "infra_retry":           # the evaluator's failure is not the candidate's
                self.awaiting.add(key)
            nxt = self._job(key, step.purpose)
            if step.purpose == "timeout_recheck":
                self.deferred.append(nxt)
                return []
            return [nxt]
        self.awaiting.discard(key)
        self._append_outcomes(self._outcome_rows(key, step))
        self._progress(self.phase, last={"task_id": job.task_id, "candidate_index": job.candidate_index,
                                      "outcome": step.outcome, "failure_class": step.failure_class,
                                      "detail": row["detail"][:200]})
        return []

    def _outcome_rows(self, key: Key, final: Final) -> list[dict]:
        rows = [outcome_row(self.ctx.run_id, key[0], key[1], final.outcome, final=final)]
        rows += [outcome_row(self.ctx.run_id, key[0], f, final.outcome, final=final, executed_as=key[1])
                 for f in self.followers.get(key, []) if (key[0], f) not in self.decided]
        return rows

    def _append_outcomes(self, rows: list[dict]) -> None:
        rows = [r for r in rows if (r["task_id"], r["candidate_index"]) not in self.decided]
        self.store.append("outcomes", rows)
        for r in rows:
            self.decided.add((r["task_id"], r["candidate_index"]))
            self.counts[r["outcome"] if r["outcome"] != "failed" else (r["failure_class"] or "failed")] += 1
        self.done += len(rows)

    def _progress(self, phase: str, **extra) -> None:
        elapsed = time.monotonic() - self.t_start
        rate = (self.done - self.started_done) / elapsed if elapsed > 0 else 0.0
        self.ctx.progress(Progress(run_id=self.ctx.run_id, phase=phase, done=self.done, total=self.total,
                                   counts=dict(self.counts), rate=rate, awaiting=len(self.awaiting),
                                   eta_s=(self.total - self.done) / rate if rate > 0 else None, **extra))

    # ---- generation -----------------------------------------------------------------
    def _on_feed(self, cand) -> Job | None:
        """A generated candidate: stored at once, then graded (or excluded with its error)."""
        rows = candidate_rows(self.ctx.run_id, [cand])
        self.store.append("candidates", rows)
        key = (cand.task_id, cand.candidate_index)
        self.by_key[key] = rows[0]
        if cand.gen_status != "ok":
            self._append_outcomes([outcome_row(self.ctx.run_id, key[0], key[1], "excluded",
                                               reason=cand.gen_error or cand.gen_status)])
            self.counts["generation_error"] += 1
            return None
        return self._job(key, "grade")

    def _finish_generation(self, feed: queue.Queue, generator: threading.Thread, failed: list) -> None:
        if self.ctx.cancel.is_set():
            # cancelled: the generator abandons requests in flight and ends; answers it already gave are
            # stored (graded on resume), so resuming never asks the model for them again
            generator.join(timeout=30)
            while True:
                try:
                    item = feed.get_nowait()
                except queue.Empty:
                    break
                if item is not None:
                    self._on_feed(item)
        if failed:
            raise failed[0]    # e.g. EndpointRefused: the run fails with the generator's reason


def start_generation(ctx: RunContext, have: set,
                     runner: Runner) -> tuple[queue.Queue, list[BaseException], threading.Thread]:
    """Generate candidates in a thread; each is fed to the grader as soon as it is complete.

    Candidate indices already in the record are never requested again. The queue ends with None;
    the list then holds the generator's error, if it failed, for the run's thread to raise.
    """
    from passgate.core.candidates.generate import SandboxPublicCheck, generate_candidates
    feed: queue.Queue = queue.Queue()
    failed: list[BaseException] = []
    check = None
    if ctx.manifest.generation.repair.enabled:   # the repair loop's public-suite check, on its own worker
        check = SandboxPublicCheck(runner, TaskSpec.of, lambda t: ctx.task_limits(t.task_id))

    def produce():
        try:
            generate_candidates(ctx.manifest, list(ctx.tasks.values()), skip=have, emit=feed.put, cancel=ctx.cancel,
                                check=check)
        except BaseException as exc:  # noqa: BLE001 - handed to the run's thread, raised there
            failed.append(exc)
        finally:
            if check is not None:
                check.close()
            feed.put(None)

    thread = threading.Thread(target=produce, name="passgate-generate", daemon=True)
    thread.start()
    return feed, failed, thread
