"""Grading repository tasks: every patch scanned, then applied, built and tested in a fresh sandbox.

The reference patch of each task runs first (the self-check, and the public test ids a candidate
must report); in a run whose candidates are the references, candidate 0 is that run. Rows go to
executions and outcomes (so pass@k, slices and the gate read them as for functions) and to
repo_results (what the patch touched, the build, every test id's outcome, rollback, tampering).
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial

from passgate.core.candidates.diffscan import scan_patch
from passgate.core.model import Task
from passgate.core.progress import Progress
from passgate.core.record.queries import runs
from passgate.core.record.redact import redact
from passgate.core.record.store import Store, utcnow
from passgate.core.sandbox.packages import parse_packages
from passgate.core.sandbox.repo_jobs import repo_job, repo_program
from passgate.core.sandbox.runner import Runner, Worker, WorkerLost

from .dispatch import Exchange, Job, RunContext, dispatch
from .repo_verdict import PatchVerdict, judge_patch
from .rows import execution_row, outcome_row
from .selfcheck import REFERENCE_INDEX, summarise
from .soundness import in_fresh_sandbox

# the runner's own imports, always present in a derived image that runs pytest
RUNNER_MODULES = {"pytest", "_pytest", "pluggy", "iniconfig", "py"}


def known_modules(task: Task, packages: tuple[str, ...]) -> set[str]:
    """Top-level names the code may import: the repository's own, the allowlist's, the runner's."""
    import base64
    import io
    import tarfile
    spec = task.repo
    names = set(RUNNER_MODULES) | {p.import_key for p in parse_packages(packages)}
    roots = [""] + [p.rstrip("/") + "/" for p in spec.pythonpath]
    with tarfile.open(fileobj=io.BytesIO(base64.b64decode(spec.snapshot_b64))) as tar:
        for member in tar.getnames():
            for root in roots:
                if member.startswith(root):
                    first = member[len(root):].split("/", 1)[0]
                    names.add(first[:-3] if first.endswith(".py") else first)
    return names | {p.split("/", 1)[0].removesuffix(".py") for p in spec.protected_tests}


LOSSES_BEFORE_PROBE = 2     # a patch whose sandbox is lost runs once more before the reference probes


@dataclass(frozen=True)
class PatchRequest:
    """One patch as its sandbox is asked it; `reference()` gives the task's reference patch as a job,
    run in a fresh sandbox only when the patch has lost its sandbox twice."""

    job: dict
    reference: Callable[[], dict]
    timeout_s: float
    attempt: int


def send_patch(worker: Worker, request: PatchRequest) -> dict:
    """The repository grader's reply for one patch, timed, with the sandbox it ran in."""
    start = time.monotonic()
    reply = worker.run_job(request.job, timeout_s=request.timeout_s)
    return {**reply, "container_id": worker.container_id[:12], "elapsed_s": time.monotonic() - start}


def reference_sound(fresh_worker, request: PatchRequest) -> tuple[bool, str]:
    """After a patch's second lost sandbox, its task's reference patch in a fresh one: when that comes
    back, the patch took its sandboxes down (`sandbox_crash`, counted); only when the reference is
    lost too, or no sandbox starts for it, is the loss the evaluator's (`infra_error`)."""
    if request.attempt < LOSSES_BEFORE_PROBE:
        return False, "the patch runs again in a fresh sandbox first"
    reply, why = in_fresh_sandbox(fresh_worker, lambda w: w.run_job(request.reference(), timeout_s=request.timeout_s),
                                  "the reference patch")
    if reply is None:
        return False, why
    return True, "the reference patch ran in a fresh sandbox"


# every patch in a sandbox of its own, whatever the manifest's isolation
PATCHES = Exchange(send=send_patch, sound=reference_sound, fresh=True)


def loss_result(lost: WorkerLost) -> dict:
    """A patch's second lost sandbox as the grader's reply: `crash` (the patch's) or `lost` (the evaluator's)."""
    if getattr(lost, "probe_passed", False):
        return {"crash": f"{str(lost)[:500]} (twice; the reference patch ran in a fresh sandbox)"}
    return {"lost": f"{str(lost)[:500]}; {getattr(lost, 'probe_detail', 'no reference probe ran')}"}


def retry_lost(job: Job, result) -> list[Job] | None:
    """A patch's first lost sandbox: the patch again, in a fresh one."""
    if isinstance(result, WorkerLost) and job.attempt < LOSSES_BEFORE_PROBE:
        return [replace(job, attempt=job.attempt + 1)]
    return None


class RepoGrading:
    """One run's repository grading; the engine's thread is the only writer."""

    def __init__(self, store: Store, ctx: RunContext, runner: Runner):
        self.store, self.ctx = store, ctx
        self.refuse = ctx.manifest.execution.test_edits == "refuse"
        self.base = runner
        self.runner: Runner | None = None
        self.workers = 1
        # per task: the reference run's public ids, and its outcomes per public and per protected id
        self.expected: dict[str, tuple[list[str], dict, dict]] = {}
        self.scans: dict[tuple[str, int], dict] = {}       # per patch: what the scan found, once
        self._runtime = ctx.manifest.execution.runtime

    def run(self) -> None:
        ex = self.ctx.manifest.execution
        # the run's runner (Docker or Ray), its sandboxes booting the repository grader, one per patch
        self.runner = self.base.for_program(repo_program())
        try:
            self.runner.check(ex.image_digest)
            self.workers = max(1, self.runner.concurrency or ex.workers)
            self._references()
            self._candidates()
            if self.ctx.manifest.candidates.source == "reference" and not self.ctx.cancel.is_set():
                self._seal_references(self._recorded("grade"))
        finally:
            self.runner.close()

    def _graded(self, jobs: list[Job]):
        """(job, the grader's reply) for each patch, as the sandboxes answer, through the engine's
        dispatch; a lost sandbox is tried once more, then judged by the reference probe."""
        for job, result in dispatch(self.ctx, self.runner, jobs, self._request_of, on_result=retry_lost,
                                    workers=self.workers, exchange=PATCHES):
            if isinstance(result, WorkerLost):
                if job.attempt < LOSSES_BEFORE_PROBE:      # its retry is on the queue; the loss is an attempt
                    self.store.append("executions", [execution_row(self.ctx.run_id, self._runtime, job, result)])
                    continue
                result = loss_result(result)
            yield job, result

    def _request_of(self, job: Job) -> PatchRequest:
        task = self.ctx.tasks[job.task_id]
        spec = task.repo
        scan = scan_patch(job.program, refuse_test_edits=self.refuse)
        self.scans[(job.task_id, job.candidate_index)] = scan.as_dict()
        timeout = float(spec.timeout_s)
        limits = {**self.ctx.limits, "cpu_s": timeout, "wall_s": timeout * 2}
        args = list(spec.public_tests)
        return PatchRequest(job=repo_job(spec, scan.graded_patch, public_args=args, limits=limits),
                            reference=partial(repo_job, spec, task.reference_solution, public_args=args, limits=limits),
                            timeout_s=timeout * 6 + 60, attempt=job.attempt)

    # ---- references -----------------------------------------------------------------------
    def _recorded(self, purpose: str) -> dict[tuple[str, int], dict]:
        return {(r["task_id"], r["candidate_index"]): r
                for r in runs.repo_results(self.store, self.ctx.run_id, purpose)}

    def _references(self) -> None:
        """The reference patches first, unless they are the run's own candidates (sealed after them)."""
        if self.ctx.manifest.candidates.source == "reference":
            return
        self._seal_references(self._grade_references())

    def _grade_references(self) -> dict:
        purpose, index = "selfcheck", REFERENCE_INDEX
        done = self._recorded(purpose)
        tasks = [t for t in self.ctx.tasks.values() if t.reference_solution]
        todo = [_job(t.task_id, index, purpose, t.reference_solution) for t in tasks
                if (t.task_id, index) not in done]
        self._progress("calibrate", 0, len(todo), f"reference patches: {len(todo)} to grade")
        for n, (job, result) in enumerate(self._graded(todo), 1):
            task = self.ctx.tasks[job.task_id]
            self.expected[task.task_id] = _reference_outcomes(result)
            row = self._record(task, job, result)
            done[(task.task_id, index)] = row
            self._progress("calibrate", n, len(todo), f"{task.task_id}: {row['failure_class'] or 'passed'}")
        for (task_id, _), row in done.items():
            if task_id not in self.expected:
                outcomes = json.loads(row["public_tests_json"] or "{}")
                self.expected[task_id] = (sorted(outcomes), outcomes, json.loads(row["protected_tests_json"] or "{}"))
        return done

    def _seal_references(self, done: dict) -> None:
        is_reference_run = self.ctx.manifest.candidates.source == "reference"
        tasks = [t for t in self.ctx.tasks.values() if t.reference_solution]
        rows = {t: {"status": "ok", "protected_status": "passed" if r["failure_class"] is None else "failed",
                    "failure_class": r["failure_class"], "detail": r["detail"] or "", "public_status": r["public_status"]}
                for (t, _), r in done.items()}
        summary = {**summarise(tasks, rows), "reference_run": is_reference_run, "repository": True}
        self.store.seal(self.ctx.run_id, "selfcheck", selfcheck_json=json.dumps(summary))
        self.store.event(self.ctx.run_id, "selfcheck", f"{summary['passed']}/{summary['references']} reference "
                                                       "patches pass their protected tests")

    # ---- candidates -----------------------------------------------------------------------
    def _candidates(self) -> None:
        decided = runs.decided_keys(self.store, self.ctx.run_id)
        todo, excluded = [], []
        for c in self.store.rows("candidates", self.ctx.run_id):
            key = (c["task_id"], c["candidate_index"])
            if key in decided:
                continue
            if c["gen_status"] != "ok":
                excluded.append(outcome_row(self.ctx.run_id, *key, "excluded", reason=c["excluded_reason"] or ""))
            else:
                todo.append(_job(c["task_id"], c["candidate_index"], "grade", c["processed_text"]))
        self.store.append("outcomes", excluded)
        self._progress("grade", 0, len(todo), f"{len(todo)} patches to grade")
        counts: dict[str, int] = {}
        for n, (job, result) in enumerate(self._graded(todo), 1):
            task, idx = self.ctx.tasks[job.task_id], job.candidate_index
            row = self._record(task, job, result)
            outcome = "infra_error" if row["failure_class"] == "infra_error" else \
                "passed" if row["failure_class"] is None else "failed"
            counts[outcome] = counts.get(outcome, 0) + 1
            self.store.append("outcomes", [{
                "run_id": self.ctx.run_id, "task_id": task.task_id, "candidate_index": idx, "outcome": outcome,
                "failure_class": row["failure_class"], "public_passed": {"passed": 1, "failed": 0}.get(row["public_status"]),
                "protected_passed": int(outcome == "passed"), "attempts": job.attempt, "executed_as": None,
                "cpu_s": None, "wall_s": round(_elapsed(result), 3), "reason": row["detail"], "decided_at": utcnow()}])
            self._progress("grade", n, len(todo), f"{task.task_id}#{idx}: {row['failure_class'] or 'passed'}",
                           counts=dict(counts), last={"task_id": task.task_id, "candidate_index": idx,
                                                      "outcome": outcome, "failure_class": row["failure_class"]})

    def _progress(self, phase, done, total, message, **extra) -> None:
        self.ctx.progress(Progress(run_id=self.ctx.run_id, phase=phase, done=done, total=total, message=message,
                                   **extra))

    # ---- rows ------------------------------------------------------------------------------
    def _verdict(self, task: Task, index: int, result: dict, scan: dict) -> PatchVerdict:
        own = index == REFERENCE_INDEX or (index == 0 and self.ctx.manifest.candidates.source == "reference")
        public, ref_public, ref_protected = _reference_outcomes(result) if own else \
            self.expected.get(task.task_id, ([], {}, {}))
        modules = known_modules(task, self.ctx.manifest.execution.packages)
        return judge_patch(result, scan, expected_public=public, expected_protected=list(task.repo.protected_test_ids),
                           known_modules=modules, reference_public=ref_public, reference_protected=ref_protected)

    def _record(self, task: Task, job: Job, result: dict) -> dict:
        index, purpose = job.candidate_index, job.purpose
        scan = self.scans.pop((task.task_id, index))
        if "lost" in result:
            failure, detail, verdict = "infra_error", result["lost"], None
        elif "crash" in result:
            failure, detail, verdict = "sandbox_crash", result["crash"], None
        else:
            verdict = self._verdict(task, index, result, scan)
            failure, detail = verdict.failure_class, verdict.detail
        tamper = (verdict.tamper if verdict else []) + [f"refused edit of {p}" for p in scan["refused"]]
        if not self.refuse:
            tamper += [f"edits {p}" for p in scan["test_files"] + scan["test_config"]]
        pub = verdict.public if verdict else None
        prot = verdict.protected if verdict else None
        rollback = result.get("rollback") or {}
        build = result.get("build") or {}
        row = {"run_id": self.ctx.run_id, "task_id": task.task_id, "candidate_index": index,
               "attempt": job.attempt, "purpose": purpose, "applies": int(bool(result.get("applied"))),
               "apply_error": result.get("apply_error") or scan["parse_error"] or None,
               "files_changed": scan["files_changed"], "lines_added": scan["lines_added"],
               "lines_removed": scan["lines_removed"], "reviewer_burden": scan["reviewer_burden"],
               "test_files_touched": len(set(scan["test_files"]) | set(scan["test_config"])),
               "dependency_files_changed": len(scan["dependency_files"]), "secrets_found": len(scan["secrets"]),
               "refused_json": json.dumps(scan["refused"]), "scan_json": json.dumps(scan),
               "build_status": build.get("status", "not_run"), "build_log_tail": redact(build.get("log_tail") or "")[-1500:],
               "public_status": pub.status if pub else "not_run", "protected_status": prot.status if prot else "not_run",
               "public_tests_json": json.dumps(pub.outcomes if pub else {}),
               "protected_tests_json": json.dumps(prot.outcomes if prot else {}), "tamper_json": json.dumps(tamper),
               "rollback_applies": _flag(rollback.get("applies")), "rollback_restores": _flag(rollback.get("restores")),
               "tree_before": result.get("tree_before"), "tree_after": result.get("tree_after"),
               "failure_class": failure, "detail": redact(detail or "")[:1000], "at": utcnow()}
        self.store.append("repo_results", [row])
        self.store.append("executions", [self._execution(job, result, row)])
        return row

    def _execution(self, job: Job, result: dict, row: dict) -> dict:
        suites = [result.get(s) or {} for s in ("public", "protected")]
        return {"run_id": self.ctx.run_id, "task_id": job.task_id, "candidate_index": job.candidate_index,
                "attempt": job.attempt, "purpose": job.purpose, "program_sha256": job.program_sha256,
                "status": "infra_error" if row["failure_class"] == "infra_error" else "ok",
                "public_status": row["public_status"], "public_class": None,
                "protected_status": row["protected_status"], "protected_class": row["failure_class"]
                if row["protected_status"] == "failed" else None, "failure_class": row["failure_class"],
                "detail": row["detail"], "exc_type": None, "exit_reason": row["build_status"],
                "cpu_s": sum(float(s.get("cpu_s") or 0) for s in suites), "cpu_total_s": None,
                "wall_s": round(_elapsed(result), 3), "peak_rss_kb": None, "out_bytes": None,
                "stdout": redact((result.get("protected") or {}).get("log_tail") or "")[-4000:], "stderr": "",
                "violations_json": "[]", "runtime": self.ctx.manifest.execution.runtime, "image_digest": "",
                "node": "", "container_id": result.get("container_id", ""), "started_at": None,
                "finished_at": utcnow()}


def _reference_outcomes(result: dict) -> tuple[list[str], dict, dict]:
    """What a reference run sets for its task: the public ids to expect, and per public and protected
    id its outcome (a test the reference skipped, for want of something the sandbox lacks, may be
    skipped by a candidate too)."""
    def outcomes(suite: str) -> dict:
        return {k: v["outcome"] for k, v in ((result.get(suite) or {}).get("tests") or {}).items()}
    public = outcomes("public")
    return sorted(public), public, outcomes("protected")


def _job(task_id: str, index: int, purpose: str, patch: str) -> Job:
    return Job(task_id, index, purpose, 1, patch, hashlib.sha256(patch.encode()).hexdigest())


def _elapsed(result: dict) -> float:
    """Seconds the patch's sandbox took to answer (0 when it was lost)."""
    return float(result.get("elapsed_s") or 0.0)


def _flag(value) -> int | None:
    return None if value is None else int(bool(value))
