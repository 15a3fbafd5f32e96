"""Candidates from a model endpoint, as the manifest's generation contract declares them.

One request per (task, candidate index), with `n = 1` and `seed = seed_base + candidate_index`,
so every index is independent: a run that stops anywhere resumes by requesting only the indices
missing from the record (`skip`), and never asks the model twice for a stored one.

Each candidate is handed to `emit` the moment its answer is post-processed; the engine stores and
grades it at once. A failed request is retried with exponential backoff and every attempt is
recorded in `gen_attempts`; a candidate whose attempts all fail is emitted as a generation error,
never replaced by another sample. The first answer is checked against `model_revision` before
anything is emitted; a mismatch, a rejected key or an unreachable endpoint stops the run with
`EndpointRefused`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import threading
from dataclasses import dataclass, field
from typing import Callable

from passgate.core.errors import ConfigError, PassgateError
from passgate.core.manifest import GenerationContract, Manifest, grader_of
from passgate.core.model import Candidate, Task
from passgate.core.record.redact import redact
from passgate.core.record.store import utcnow
from passgate.core.sandbox.runner import EvalRequest, TaskSpec

from .endpoint import AttemptFailed, Reply, abort, api_url, check_endpoint, post, request_body
from .fim import edit_request, end_tokens, is_edit
from .inputs import postprocess_spec
from .prompts import chat_messages, render_prompt, repair_message

# check(task, program) -> (passed, feedback): the public suite only, run by the engine's sandbox.
# passed is None when the check cannot decide (no public tests, sandbox failure): repair stops.
PublicCheck = Callable[[Task, str], tuple[bool | None, str]]


class _Cancelled(Exception):
    """Cancel, or another thread's fatal error, interrupted a backoff: the index stays unrecorded."""


class EndpointRefused(PassgateError):
    """The endpoint cannot serve this run: wrong model revision, key refused, or unreachable."""

    title = "model endpoint refused"


@dataclass
class GenerationResult:
    """What one call did: how many candidates it requested, emitted, and recorded as errors."""

    requested: int = 0
    emitted: int = 0
    generation_errors: int = 0
    skipped: int = 0
    cancelled: bool = False


@dataclass
class _Exchange:
    """The request/answer history of one candidate index (one entry per attempt, across rounds)."""

    attempts: list[dict] = field(default_factory=list)
    replies: list[Reply] = field(default_factory=list)


def generate_candidates(manifest: Manifest, tasks: list[Task], *, skip: set | frozenset = frozenset(),
                        emit: Callable[[Candidate], None], cancel: threading.Event | None = None,
                        check: PublicCheck | None = None, backoff_s: float = 1.0,
                        max_backoff_s: float = 30.0) -> GenerationResult:
    """Request every (task, candidate index) not in `skip`; emit each Candidate as it completes.

    Args:
        skip: (task_id, candidate_index) pairs already recorded; never requested.
        emit: called once per candidate, from worker threads (serialised here).
        cancel: set to stop; indices not yet answered stay unrecorded and are requested on resume.
        check: the engine's public-test check, required when `generation.repair` is on.
        backoff_s: first retry delay; doubles per attempt up to `max_backoff_s` (a server's
            Retry-After header takes precedence).
    Returns:
        A GenerationResult with counts.
    Raises:
        ConfigError: the contract cannot be used (missing key variable, bad URL, repair setup).
        EndpointRefused: model revision mismatch, HTTP 401/403/404, or the endpoint is unreachable.
    """
    gen = manifest.generation
    if gen is None:
        raise ConfigError("candidates.source is generate but the generation section is missing", field="generation")
    if gen.fim is None and any(is_edit(t) for t in tasks):
        raise ConfigError("local edits need generation.fim (mode: suffix, or mode: template with a model family)",
                          field="generation.fim")
    job = _Generator(gen, postprocess_spec(manifest), manifest.tasks.prompt_template, check,
                     cancel or threading.Event(), emit, backoff_s, max_backoff_s, _program_maker(manifest))
    work = [(t, i) for i in range(gen.n_per_task) for t in tasks if (t.task_id, i) not in skip]
    job.result.skipped = len(tasks) * gen.n_per_task - len(work)
    job.run(work)
    return job.result


def _program_maker(manifest: Manifest):
    """How a model's text becomes a candidate's program, by the grader the manifest's kinds name."""
    if grader_of(manifest) == "language":
        from .language_samples import language_program
        return language_program
    from .samples import postprocess
    return postprocess


class _Generator:
    """The state of one generation call: contract, key, counters, and the first fatal error."""

    def __init__(self, gen: GenerationContract, spec, template: str, check: PublicCheck | None,
                 cancel: threading.Event, emit, backoff_s: float, max_backoff_s: float, postprocess):
        check_endpoint(gen.endpoint)
        self.gen, self.spec, self.template, self.check, self.cancel = gen, spec, template, check, cancel
        self.url = api_url(gen.endpoint, gen.api)
        self.api_key = _api_key(gen)
        self.backoff_s, self.max_backoff_s = backoff_s, max_backoff_s
        if gen.repair.enabled:
            _check_repair(gen, check)
        self.postprocess = postprocess        # a model's text -> (processed text, program)
        self._emit, self._emit_lock, self._lock = emit, threading.Lock(), threading.Lock()
        self.stop = threading.Event()
        self.fatal: BaseException | None = None
        self.failures_in_a_row = 0
        self.result = GenerationResult()
        self.connections: set = set()          # open requests, aborted on cancel

    # ---- scheduling ---------------------------------------------------------------------
    def run(self, work: list[tuple[Task, int]]) -> None:
        """The first answer alone (it proves the endpoint and its model), then a pool of `concurrency`."""
        queue = list(work)
        self._in_threads(self._probe, queue, 1)
        if not self._stopping():
            self._in_threads(self._drain, queue, min(self.gen.concurrency, len(queue)))
        self.result.cancelled = self.cancel.is_set()
        if self.fatal is not None:
            raise self.fatal

    def _in_threads(self, target, queue: list, n: int) -> None:
        """Run `target(queue)` in n threads; on cancel, abort their open requests instead of awaiting them."""
        threads = [threading.Thread(target=self._guarded, args=(target, queue), name=f"passgate-gen-{i}",
                                    daemon=True) for i in range(n)]
        for t in threads:
            t.start()
        while any(t.is_alive() for t in threads):
            if self.cancel.wait(0.2):
                for conn in list(self.connections):
                    abort(conn)
                for t in threads:
                    t.join(timeout=0.2)

    def _guarded(self, target, queue: list) -> None:
        try:
            target(queue)
        except BaseException as exc:  # noqa: BLE001 - kept for the caller's thread, raised there by run()
            with self._lock:
                self.fatal = self.fatal or exc
            self.stop.set()

    def _probe(self, queue: list) -> None:
        while queue and not self._stopping():
            task, index = queue.pop(0)
            cand = self.candidate(task, index, probing=True)
            if cand is None:
                return
            self.emit(cand)
            if cand.gen_status == "ok":
                return

    def _drain(self, queue: list) -> None:
        while not self._stopping():
            with self._lock:
                if not queue:
                    return
                task, index = queue.pop(0)
            cand = self.candidate(task, index)
            if cand is None:
                return
            self.emit(cand)

    def _stopping(self) -> bool:
        return self.cancel.is_set() or self.stop.is_set()

    def emit(self, cand: Candidate) -> None:
        with self._emit_lock:
            self._emit(cand)
            self.result.emitted += 1
            self.result.generation_errors += cand.gen_status != "ok"

    # ---- one candidate ------------------------------------------------------------------
    def candidate(self, task: Task, index: int, *, probing: bool = False) -> Candidate | None:
        """Ask for one candidate (with repair rounds when declared); None when cancelled first."""
        seed = self.gen.seed_base + index if self.gen.seed_base is not None else None
        spec, extra, stops = self.spec, {}, ()
        if is_edit(task):   # a local edit: the family's template (or the API's suffix), its end tokens
            prompt_text, extra = edit_request(self.gen.fim, task)
            stops = end_tokens(self.gen.fim)
            spec = dataclasses.replace(spec, stop=tuple(dict.fromkeys((*spec.stop, *stops))))
        else:
            prompt_text = render_prompt(self.template, task)
        messages = chat_messages(self.gen.system_prompt, prompt_text) if self.gen.api == "chat" else None
        ex = _Exchange()
        with self._lock:
            self.result.requested += 1
        try:
            reply = self._request(ex, prompt_text, messages, seed, round_no=0, probing=probing, extra=extra,
                                  stop=stops)
            if reply is None:
                return _failed(task, index, seed, ex)
            # the answer continues the task's code prompt, whatever prose the template wraps around it
            processed, program = self.postprocess(reply.text, task, spec)
            if self.gen.repair.enabled:
                reply, processed, program = self._repair(task, ex, messages, seed, reply, processed, program)
        except _Cancelled:
            return None
        return _built(task, index, seed, ex, reply, processed, program)

    def _repair(self, task: Task, ex: _Exchange, messages: list[dict], seed, reply: Reply, processed: str,
                program: str):
        """Up to `repair.rounds` more answers while the public suite fails; every round recorded.

        A round whose request fails every attempt ends the loop: the last answer stands.
        """
        for round_no in range(1, self.gen.repair.rounds + 1):
            passed, feedback = self.check(task, program)
            ex.attempts.append({"round": round_no - 1, "kind": "public_check", "passed": passed,
                                "program_sha256": _sha(program), "feedback": redact(feedback)[:2000]})
            if passed is not False:
                break
            messages = messages + [{"role": "assistant", "content": reply.text},
                                   {"role": "user", "content": repair_message(round_no, feedback)}]
            answer = self._request(ex, "", messages, seed, round_no=round_no)
            if answer is None:
                break
            reply = answer
            processed, program = self.postprocess(reply.text, task, self.spec)
        return reply, processed, program

    def _request(self, ex: _Exchange, prompt_text: str, messages, seed, *, round_no: int,
                 probing: bool = False, extra: dict | None = None, stop: tuple[str, ...] = ()) -> Reply | None:
        """One answer with retries; None when every attempt failed. Raises _Cancelled."""
        body = request_body(self.gen, prompt_text, messages, seed, extra=extra, stop=stop)
        for attempt in range(1, self.gen.retries + 2):
            record = {"round": round_no, "attempt": attempt, "started_at": utcnow()}
            ex.attempts.append(record)
            try:
                reply = post(self.url, body, api_key=self.api_key, timeout_s=self.gen.request_timeout_s,
                             chat=self.gen.api == "chat", open_connections=self.connections)
            except AttemptFailed as exc:
                if self.cancel.is_set():
                    raise _Cancelled from None     # aborted by cancel: not the server's failure
                record.update(outcome="error", status=exc.status, error=str(exc), elapsed_ms=round(exc.elapsed_ms, 1))
                if exc.fatal:
                    raise EndpointRefused(f"{self.url} answered {exc}; check generation.endpoint, generation.model"
                                          + (f" and the key in ${self.gen.api_key_env}" if self.gen.api_key_env
                                             else "")) from None
                if not exc.retryable or attempt > self.gen.retries:
                    return self._gave_up(exc, probing)
                delay = self._delay(attempt, exc.retry_after_s)
                record["retry_in_s"] = delay
                if self.cancel.wait(delay) or self.stop.is_set():
                    raise _Cancelled
                continue
            record.update(outcome="ok", status=200, elapsed_ms=round(reply.latency_ms, 1),
                          first_token_ms=None if reply.first_token_ms is None else round(reply.first_token_ms, 1),
                          model=reply.model,
                          system_fingerprint=reply.system_fingerprint, response_id=reply.response_id,
                          finish_reason=reply.finish_reason, prompt_tokens=reply.prompt_tokens,
                          completion_tokens=reply.completion_tokens)
            self._check_served(reply)
            with self._lock:
                self.failures_in_a_row = 0
            ex.replies.append(reply)
            return reply
        return None

    def _gave_up(self, exc: AttemptFailed, probing: bool) -> None:
        if probing and exc.retryable:
            raise EndpointRefused(f"the first request to {self.url} failed after {self.gen.retries + 1} "
                                  f"attempts ({exc}); nothing was recorded, so `passgate run --resume` "
                                  f"can continue once the endpoint answers")
        with self._lock:
            self.failures_in_a_row += 1        # any kind: a 400 on every request is a setup error too
            if self.failures_in_a_row >= self.gen.concurrency + 3:
                self.fatal = self.fatal or EndpointRefused(
                    f"{self.failures_in_a_row} candidates in a row failed every attempt at {self.url} "
                    f"(last: {exc}); generation stopped, the failed ones are recorded as generation errors")
                self.stop.set()
        return None

    def _delay(self, attempt: int, retry_after_s: float | None) -> float:
        if retry_after_s is not None:
            return round(min(retry_after_s, self.max_backoff_s), 3)
        return round(min(self.backoff_s * 2 ** (attempt - 1), self.max_backoff_s), 3)

    def _check_served(self, reply: Reply) -> None:
        want = self.gen.model_revision
        if want and want not in (reply.model, reply.system_fingerprint):
            raise EndpointRefused(
                f"the manifest pins generation.model_revision {want!r}, but {self.url} reports model "
                f"{reply.model!r} with system_fingerprint {reply.system_fingerprint!r}; serve the pinned "
                f"build or change the manifest (a new manifest id)")


class SandboxPublicCheck:
    """The repair loop's check: the task's public suite alone, on one sandbox worker of its own.

    The protected suite is removed from the task before it reaches the worker, so nothing the
    model is told in a repair round comes from the tests that grade it.
    """

    def __init__(self, runner, spec_of: Callable[[Task], TaskSpec], limits_of: Callable[[Task], dict]):
        self.runner, self.spec_of, self.limits_of = runner, spec_of, limits_of
        self._worker = None
        self._lock = threading.Lock()

    def __call__(self, task: Task, program: str) -> tuple[bool | None, str]:
        if not task.public_tests.strip():
            return None, "the task has no public tests to repair against"
        limits = self.limits_of(task)
        with self._lock:
            try:
                if self._worker is None:
                    self._worker = self.runner.new_worker()
                spec = self.spec_of(dataclasses.replace(task, protected_tests="", protected_suffix="",
                                                         classic_suffix=""))
                result = self._worker.evaluate(EvalRequest(spec, program, limits, float(limits["wall_s"]) * 2 + 30))
            except Exception as exc:  # noqa: BLE001 - WorkerLost and the like: the round cannot be judged
                self.close()
                return None, f"public check failed in the sandbox: {type(exc).__name__}: {exc}"
        public = result.public
        return public.status == "passed", public.detail or public.failure_class or ""

    def close(self) -> None:
        if self._worker is not None:
            self._worker.close()
            self._worker = None


# ---------------------------------------------------------------------------------- records
def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def model_id(reply: Reply) -> str | None:
    """The served model as the server named it, with its build fingerprint when it gives one."""
    if reply.system_fingerprint:
        return f"{reply.model}@{reply.system_fingerprint}"
    return reply.model


def _built(task: Task, index: int, seed, ex: _Exchange, reply: Reply, processed: str, program: str) -> Candidate:
    replies = ex.replies
    tokens = [r.prompt_tokens for r in replies], [r.completion_tokens for r in replies]
    return Candidate(
        task_id=task.task_id, candidate_index=index, raw_text=reply.text, processed_text=processed,
        program=program, program_sha256=_sha(program), source="generate", source_ref=reply.response_id or "",
        seed=seed, finish_reason=reply.finish_reason,
        prompt_tokens=None if None in tokens[0] else sum(tokens[0]),
        completion_tokens=None if None in tokens[1] else sum(tokens[1]),
        latency_ms=round(sum(r.latency_ms for r in replies), 1), model_id=model_id(reply),
        logprobs=reply.logprobs, gen_status="ok", gen_attempts=ex.attempts,
        first_token_ms=None if replies[0].first_token_ms is None else round(replies[0].first_token_ms, 1))


def _failed(task: Task, index: int, seed, ex: _Exchange) -> Candidate:
    last = next((a for a in reversed(ex.attempts) if a.get("outcome") == "error"), {})
    tries = sum(1 for a in ex.attempts if "attempt" in a)
    return Candidate(task_id=task.task_id, candidate_index=index, raw_text="", processed_text="",
                     source="generate", seed=seed, gen_status="generation_error",
                     gen_error=f"{last.get('error', 'no answer')} (after {tries} attempts)",
                     gen_attempts=ex.attempts)


def _api_key(gen: GenerationContract) -> str | None:
    if not gen.api_key_env:
        return None
    value = os.environ.get(gen.api_key_env)
    if not value:
        raise ConfigError(f"the environment variable {gen.api_key_env} (the API key) is not set",
                          field="generation.api_key_env")
    return value


def _check_repair(gen: GenerationContract, check: PublicCheck | None) -> None:
    if gen.repair.rounds < 1:
        raise ConfigError("repair is enabled with 0 rounds; set rounds >= 1 or enabled: false",
                          field="generation.repair.rounds")
    if gen.api != "chat":
        raise ConfigError("the repair loop is a conversation: it needs api: chat", field="generation.repair")
    if check is None:
        raise ConfigError("generation.repair is on but the engine gave no public-test check",
                          field="generation.repair")
