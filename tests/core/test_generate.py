"""Candidates from an OpenAI-compatible endpoint: the stub server on loopback, real HTTP and SSE.

The unit-level tests here call `generate_candidates` directly; the end-to-end tests (marked
docker) run `passgate run` as a subprocess against the stub, kill it mid-generation and resume.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import yaml

from passgate.core.candidates.generate import EndpointRefused, generate_candidates
from passgate.core.candidates.prompts import chat_messages, render_prompt
from passgate.core.errors import ConfigError
from passgate.core.manifest import frozen_manifest, parse_manifest
from passgate.core.record.store import Store, verify_chain
from passgate.core.score.generation import generation_lines, generation_section
from passgate.core.tasks.humaneval import default_path, load
from passgate.core.tasks.io import read_text
from tests.core.openai_stub import WRONG_BODY, OpenAIStub, humaneval_answers

TASK_IDS = ("HumanEval/0", "HumanEval/2", "HumanEval/4")
REPO = Path(__file__).resolve().parents[2]
PASSGATE = [sys.executable, "-m", "passgate.cli.main"]


@pytest.fixture(scope="module")
def humaneval_tasks():
    path = default_path()
    tasks, _notes = load(path, read_text(path), "humaneval")
    return {t.task_id: t for t in tasks}


@pytest.fixture
def stub():
    server = OpenAIStub(humaneval_answers()).start()
    yield server
    server.stop()


def make_manifest(endpoint: str, *, template: str = "{prompt}", postprocess: dict | None = None, **generation):
    gen = {"endpoint": endpoint, "model": "stub-coder-1b", "n_per_task": 2, "concurrency": 2,
           "request_timeout_s": 5, "retries": 2, **generation}
    doc = {"name": "generate-unit", "tasks": {"sets": [{"kind": "humaneval", "task_ids": list(TASK_IDS)}],
                                               "prompt_template": template},
           "candidates": {"source": "generate", "postprocess": postprocess or {"style": "body"}},
           "generation": gen}
    return parse_manifest(yaml.safe_dump(doc))


def run(manifest, tasks, **kw):
    out: list = []
    result = generate_candidates(manifest, [tasks[t] for t in TASK_IDS], emit=out.append,
                                 backoff_s=kw.pop("backoff_s", 0.01), **kw)
    return sorted(out, key=lambda c: (c.task_id, c.candidate_index)), result


# ------------------------------------------------------------------------------------ prompts
def test_prompt_template_fills_only_the_three_placeholders(humaneval_tasks):
    task = humaneval_tasks["HumanEval/0"]
    text = render_prompt("# {task_id} calls {entry_point}\n{prompt}{not_a_placeholder} {}", task)
    assert text == f"# HumanEval/0 calls has_close_elements\n{task.prompt}{{not_a_placeholder}} {{}}"


def test_chat_messages_put_the_system_prompt_first():
    assert chat_messages("be terse", "hi") == [{"role": "system", "content": "be terse"},
                                              {"role": "user", "content": "hi"}]
    assert chat_messages(None, "hi") == [{"role": "user", "content": "hi"}]


# ------------------------------------------------------------------------------------ records
def test_every_candidate_records_its_whole_generation(stub, humaneval_tasks):
    manifest = make_manifest(stub.base_url, seed_base=10, logprobs=True, max_tokens=300)
    cands, result = run(manifest, humaneval_tasks)
    assert [(c.task_id, c.candidate_index) for c in cands] == [(t, i) for t in TASK_IDS for i in (0, 1)]
    assert result.emitted == 6 and result.generation_errors == 0
    for c in cands:
        prompt, body = stub.tasks[c.task_id]
        assert c.seed == 10 + c.candidate_index
        assert c.raw_text == (body if c.seed % 2 == 0 else WRONG_BODY)
        assert c.program.startswith(prompt) and c.raw_text in c.program
        assert c.finish_reason == "stop" and c.gen_status == "ok" and c.source == "generate"
        assert c.prompt_tokens > 0 and c.completion_tokens > 0 and c.latency_ms > 0
        assert c.model_id == "stub-coder-1b@fp-stub-0001"
        assert c.logprobs and all(lp == -0.25 for lp in c.logprobs)
        assert [a["outcome"] for a in c.gen_attempts] == ["ok"]
    sent = [entry["body"] for entry in stub.log]
    assert all(b["n"] == 1 and b["temperature"] == 0.0 and b["max_tokens"] == 300 for b in sent)
    assert sorted(b["seed"] for b in sent) == [10, 10, 10, 11, 11, 11]


def test_chat_with_streaming_reads_events_usage_and_logprobs(stub, humaneval_tasks):
    template = "Complete this function in a ```python block.\n{prompt}"
    manifest = make_manifest(stub.base_url, api="chat", streaming=True, logprobs=True, template=template,
                             system_prompt="You write Python.", postprocess={"extract_fence": True, "style": "full"})
    cands, _ = run(manifest, humaneval_tasks)
    assert len(cands) == 6
    for c in cands:
        prompt, body = stub.tasks[c.task_id]
        assert c.raw_text.startswith("Here is the function:") and "```python" in c.raw_text
        assert c.program.strip() == (prompt + (body if c.seed % 2 == 0 else WRONG_BODY)).strip()
        assert c.prompt_tokens and c.completion_tokens and c.logprobs
        assert c.gen_attempts[0]["model"] == "stub-coder-1b"
    first = stub.log[0]["body"]
    assert first["stream"] is True and first["messages"][0] == {"role": "system", "content": "You write Python."}


def test_without_seed_base_no_seed_is_sent(stub, humaneval_tasks):
    cands, _ = run(make_manifest(stub.base_url, seed_base=None, n_per_task=1), humaneval_tasks)
    assert all(c.seed is None for c in cands)
    assert all("seed" not in entry["body"] for entry in stub.log)


# ------------------------------------------------------------------------------------ failures
def test_failed_requests_are_retried_with_backoff_and_every_attempt_recorded(stub, humaneval_tasks):
    stub.error_first = 2
    cands, _ = run(make_manifest(stub.base_url, retries=3, n_per_task=1), humaneval_tasks)
    for c in cands:
        assert c.gen_status == "ok"
        assert [(a["attempt"], a["outcome"], a.get("status")) for a in c.gen_attempts] == \
            [(1, "error", 503), (2, "error", 503), (3, "ok", 200)]
        assert "overloaded" in c.gen_attempts[0]["error"]
        assert c.gen_attempts[0]["retry_in_s"] == 0.0      # the server's Retry-After: 0 wins
    assert set(stub.requests.values()) == {3}


def test_backoff_doubles_up_to_its_cap_and_a_retry_after_header_wins(stub):
    from passgate.core.candidates.generate import _Generator  # the delay rule, without sleeping through it
    manifest = make_manifest(stub.base_url)
    gen = _Generator(manifest.generation, None, "{prompt}", None, threading.Event(), print, 0.5, 3.0, None)
    assert [gen._delay(n, None) for n in (1, 2, 3, 4)] == [0.5, 1.0, 2.0, 3.0]
    assert gen._delay(1, 7.5) == 3.0


def test_a_candidate_that_keeps_failing_is_a_generation_error_never_a_resample(stub, humaneval_tasks):
    stub.fail_always = {"HumanEval/2"}
    cands, result = run(make_manifest(stub.base_url, retries=2), humaneval_tasks)
    failed = [c for c in cands if c.task_id == "HumanEval/2"]
    assert [c.gen_status for c in failed] == ["generation_error"] * 2
    assert all("HTTP 500" in c.gen_error and "after 3 attempts" in c.gen_error for c in failed)
    assert all(len(c.gen_attempts) == 3 and c.raw_text == "" for c in failed)
    assert result.generation_errors == 2
    # exactly the declared seeds were asked, each 1 + retries times: nothing resampled in their place
    assert {k: v for k, v in stub.requests.items() if k[0] == "HumanEval/2"} == \
        {("HumanEval/2", 0): 3, ("HumanEval/2", 1): 3}


def test_a_hanging_server_times_out_and_the_timeout_is_recorded(stub, humaneval_tasks):
    stub.hang, stub.hang_s = {"HumanEval/4"}, 3.0
    manifest = make_manifest(stub.base_url, retries=1, n_per_task=1, request_timeout_s=0.4)
    cands, _ = run(manifest, humaneval_tasks)
    hung = next(c for c in cands if c.task_id == "HumanEval/4")
    assert hung.gen_status == "generation_error"
    assert "no answer within 0.4s" in hung.gen_error and len(hung.gen_attempts) == 2
    assert all(c.gen_status == "ok" for c in cands if c.task_id != "HumanEval/4")


def test_output_truncated_at_max_tokens_is_recorded_and_kept_as_the_answer(stub, humaneval_tasks):
    stub.truncate = {"HumanEval/0"}
    for streaming in (False, True):
        cands, _ = run(make_manifest(stub.base_url, n_per_task=1, streaming=streaming), humaneval_tasks)
        cut = next(c for c in cands if c.task_id == "HumanEval/0")
        assert cut.gen_status == "ok" and cut.finish_reason == "length"
        assert cut.raw_text == stub.tasks["HumanEval/0"][1][: len(stub.tasks["HumanEval/0"][1]) // 2]
    cands, _ = run(make_manifest(stub.base_url, n_per_task=1, max_tokens=4), humaneval_tasks)
    assert all(c.finish_reason == "length" and len(c.raw_text) == 16 for c in cands)


def test_a_stream_that_stops_before_done_is_a_failed_attempt(stub, humaneval_tasks):
    stub.drop_stream = {"HumanEval/2"}
    cands, _ = run(make_manifest(stub.base_url, n_per_task=1, streaming=True, retries=1), humaneval_tasks)
    dropped = next(c for c in cands if c.task_id == "HumanEval/2")
    assert dropped.gen_status == "generation_error" and "ended before [DONE]" in dropped.gen_error
    assert stub.answered[("HumanEval/2", 0)] == 0 and stub.requests[("HumanEval/2", 0)] == 2


def test_an_unreachable_endpoint_stops_the_run_and_records_nothing(humaneval_tasks):
    closed = OpenAIStub({})
    url = closed.base_url
    closed.stop()
    with pytest.raises(EndpointRefused, match="first request .* failed after 2 attempts"):
        run(make_manifest(url, retries=1), humaneval_tasks)


# ------------------------------------------------------------------------------------ the contract
def test_model_revision_mismatch_refuses_before_any_candidate_is_emitted(stub, humaneval_tasks):
    with pytest.raises(EndpointRefused) as err:
        run(make_manifest(stub.base_url, model_revision="fp-release-0042"), humaneval_tasks)
    message = str(err.value)
    assert "'fp-release-0042'" in message and "'stub-coder-1b'" in message and "'fp-stub-0001'" in message
    assert len(stub.log) == 1     # the first answer alone was asked, and nothing was emitted


def test_model_revision_matches_the_reported_fingerprint_or_model(stub, humaneval_tasks):
    for pin in ("fp-stub-0001", "stub-coder-1b"):
        cands, _ = run(make_manifest(stub.base_url, model_revision=pin, n_per_task=1), humaneval_tasks)
        assert len(cands) == 3


def test_api_key_comes_from_the_named_variable_and_is_recorded_nowhere(stub, humaneval_tasks, monkeypatch):
    secret = "sk-stubsecret-0123456789abcdef"
    stub.api_key = secret
    monkeypatch.setenv("PASSGATE_TEST_API_KEY", secret)
    cands, _ = run(make_manifest(stub.base_url, api_key_env="PASSGATE_TEST_API_KEY", n_per_task=1), humaneval_tasks)
    assert all(entry["key_ok"] for entry in stub.log) and len(cands) == 3
    assert secret not in repr(cands)
    monkeypatch.setenv("PASSGATE_TEST_API_KEY", "sk-wrong-key-000000000000")
    with pytest.raises(EndpointRefused, match=r"HTTP 401.*\$PASSGATE_TEST_API_KEY"):
        run(make_manifest(stub.base_url, api_key_env="PASSGATE_TEST_API_KEY"), humaneval_tasks)
    monkeypatch.delenv("PASSGATE_TEST_API_KEY")
    with pytest.raises(ConfigError, match="PASSGATE_TEST_API_KEY .* is not set"):
        run(make_manifest(stub.base_url, api_key_env="PASSGATE_TEST_API_KEY"), humaneval_tasks)


def test_an_endpoint_url_with_credentials_is_refused(humaneval_tasks):
    with pytest.raises(ConfigError, match="must not carry credentials"):
        run(make_manifest("http://user:pw@127.0.0.1:9/v1"), humaneval_tasks)


# ------------------------------------------------------------------------------------ resume, cancel
def test_recorded_indices_are_never_requested_again(stub, humaneval_tasks):
    skip = {("HumanEval/0", 0), ("HumanEval/2", 1), ("HumanEval/4", 0), ("HumanEval/4", 1)}
    cands, result = run(make_manifest(stub.base_url), humaneval_tasks, skip=skip)
    assert {(c.task_id, c.candidate_index) for c in cands} == {("HumanEval/0", 1), ("HumanEval/2", 0)}
    assert set(stub.requests) == {("HumanEval/0", 1), ("HumanEval/2", 0)} and result.skipped == 4


def test_cancel_stops_requesting_and_leaves_the_rest_unrecorded(stub, humaneval_tasks):
    cancel = threading.Event()
    out = []

    def emit(c):
        out.append(c)
        if len(out) == 2:
            cancel.set()
    result = generate_candidates(make_manifest(stub.base_url, concurrency=1), [humaneval_tasks[t] for t in TASK_IDS],
                                 emit=emit, cancel=cancel)
    assert result.cancelled and len(out) == 2 and sum(stub.requests.values()) == 2


def test_concurrency_overlaps_requests_up_to_the_declared_number(stub, humaneval_tasks):
    stub.hold_from_request = 1          # the first request alone, then every request waits at the stub
    box: dict = {}

    def generate():
        try:
            box["out"] = run(make_manifest(stub.base_url, concurrency=6, n_per_task=3), humaneval_tasks)
        except BaseException as exc:    # noqa: BLE001 - shown by the assertion below
            box["error"] = exc
    worker = threading.Thread(target=generate)
    worker.start()
    deadline = time.monotonic() + 30
    while stub.held < 6:
        assert worker.is_alive() and time.monotonic() < deadline, \
            f"only {stub.held} requests in flight; {box.get('error')}"
        time.sleep(0.02)
    time.sleep(0.3)
    assert stub.held == 6                # six in flight at once, and no seventh while they are
    stub.release.set()
    worker.join(30)
    assert "error" not in box, box.get("error")
    cands, _ = box["out"]
    assert len(cands) == 9


# ------------------------------------------------------------------------------------ repair
def test_repair_rounds_are_declared_and_each_recorded(stub, humaneval_tasks):
    def public_check(task, program):
        ok = WRONG_BODY not in program
        return ok, "" if ok else "AssertionError: has_close_elements([1.0, 2.0], 0.5) returned None"
    manifest = make_manifest(stub.base_url, api="chat", n_per_task=2, repair={"enabled": True, "rounds": 2},
                             postprocess={"extract_fence": True, "style": "full"})
    cands, _ = run(manifest, humaneval_tasks, check=public_check)
    first, wrong = [c for c in cands if c.task_id == "HumanEval/0"]
    assert [(a.get("round"), a.get("kind", "request")) for a in first.gen_attempts] == \
        [(0, "request"), (0, "public_check")]
    assert [(a.get("round"), a.get("kind", "request"), a.get("passed")) for a in wrong.gen_attempts] == \
        [(0, "request", None), (0, "public_check", False), (1, "request", None), (1, "public_check", True)]
    assert WRONG_BODY not in wrong.program      # the repaired answer is the candidate
    repair_turn = next(e["body"]["messages"] for e in stub.log if len(e["body"]["messages"]) > 1)
    assert repair_turn[-2]["role"] == "assistant" and "repair round 1" in repair_turn[-1]["content"]


def test_a_repair_round_that_gets_no_answer_leaves_the_last_answer_standing(stub, humaneval_tasks):
    stub.fail_repairs = True
    manifest = make_manifest(stub.base_url, api="chat", n_per_task=2, retries=1, repair={"enabled": True, "rounds": 2},
                             postprocess={"extract_fence": True, "style": "full"})
    cands, _ = run(manifest, humaneval_tasks, check=lambda t, p: (WRONG_BODY not in p, "returned None"))
    wrong = next(c for c in cands if c.task_id == "HumanEval/0" and c.candidate_index == 1)
    assert wrong.gen_status == "ok" and WRONG_BODY in wrong.program      # round 0's answer, still graded
    assert [(a["round"], a.get("kind", "request"), a.get("status")) for a in wrong.gen_attempts] == \
        [(0, "request", 200), (0, "public_check", None), (1, "request", 500), (1, "request", 500)]


def test_repair_needs_chat_and_the_engine_check(stub, humaneval_tasks):
    with pytest.raises(ConfigError, match="needs api: chat"):
        run(make_manifest(stub.base_url, repair={"enabled": True, "rounds": 1}), humaneval_tasks,
            check=lambda t, p: (True, ""))
    with pytest.raises(ConfigError, match="no public-test check"):
        run(make_manifest(stub.base_url, api="chat", repair={"enabled": True, "rounds": 1}), humaneval_tasks)


# ------------------------------------------------------------------------------------ report
def test_generation_section_counts_tokens_time_retries_and_errors_from_the_record(stub, humaneval_tasks, tmp_path):
    from passgate.core.run.rows import candidate_rows, task_rows
    stub.error_first, stub.fail_always = 1, {"HumanEval/4"}
    manifest = make_manifest(stub.base_url, retries=1)
    cands, _ = run(manifest, humaneval_tasks)
    store = Store(tmp_path / "g.db")
    store.save_tasks("r-test", task_rows([humaneval_tasks[t] for t in TASK_IDS]))
    store.append("candidates", candidate_rows("r-test", cands))
    summary = generation_section(store.db.conn, "r-test", manifest)
    assert summary["expected"] == summary["candidates"] == 6 and summary["ok"] == 4
    assert summary["generation_error_count"] == len(summary["generation_errors"]) == 2
    assert summary["requests"] == 12 and summary["retries"] == 6 and summary["failed_requests"] == 8
    assert summary["prompt_tokens"] == sum(c.prompt_tokens for c in cands if c.gen_status == "ok")
    assert summary["completion_tokens"] == sum(c.completion_tokens for c in cands if c.gen_status == "ok")
    assert summary["served_models"] == {"stub-coder-1b@fp-stub-0001": 4}
    assert summary["wall_s"] > 0 and summary["request_s"] > 0
    text = "\n".join(generation_lines(summary))
    assert "seed 0 + candidate index" in text and "2 generation errors" in text
    assert "generation error HumanEval/4 #0: HTTP 500" in text
    assert json.dumps(summary)  # plain data, ready for a JSON report


# ------------------------------------------------------------------------------------ end to end
E2E_TASKS = ("HumanEval/0", "HumanEval/2", "HumanEval/4", "HumanEval/7", "HumanEval/12", "HumanEval/23",
             "HumanEval/28", "HumanEval/29")
SECRET = "sk-e2e-stub-key-5f1c0a9b7d3e"


def e2e_manifest(tmp_path, stub, postprocess: dict | None = None, task_ids=E2E_TASKS, **over) -> Path:
    """The documented stub example, pointed at this test's stub, with a key variable; then frozen."""
    doc = yaml.safe_load((REPO / "examples" / "humaneval-stub-generate.yaml").read_text())
    doc["generation"].update({"endpoint": stub.base_url, "api_key_env": "PASSGATE_STUB_API_KEY", **over})
    doc["tasks"]["sets"][0]["task_ids"] = list(task_ids)
    if postprocess is not None:
        doc["candidates"]["postprocess"] = postprocess
    draft = tmp_path / "draft.yaml"
    draft.write_text(yaml.safe_dump(doc, sort_keys=False))
    frozen = tmp_path / "frozen.yaml"
    out = subprocess.run([*PASSGATE, "freeze", str(draft), "-o", str(frozen)], capture_output=True, text=True,
                         timeout=120, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    return frozen


def passgate(tmp_path, *args, timeout=300) -> subprocess.CompletedProcess:
    return subprocess.run([*PASSGATE, "--db", str(tmp_path / "pg.db"), *args], capture_output=True, text=True,
                          timeout=timeout, cwd=tmp_path, env={**os.environ, "PASSGATE_STUB_API_KEY": SECRET})


@pytest.fixture
def e2e_stub():
    server = OpenAIStub({t: a for t, a in humaneval_answers().items() if t in E2E_TASKS}, api_key=SECRET).start()
    yield server
    server.stop()


@pytest.mark.docker
def test_passgate_run_generates_grades_and_records_every_candidate(tmp_path, e2e_stub, image_digest):
    e2e_stub.error_first = 1                       # every first attempt: 503, Retry-After 0
    e2e_stub.fail_always = {"HumanEval/7"}         # never answers: generation errors
    e2e_stub.truncate = {"HumanEval/4"}            # cut at "max_tokens": finish_reason length
    manifest = e2e_manifest(tmp_path, e2e_stub, retries=1)
    out = passgate(tmp_path, "run", str(manifest))
    assert out.returncode == 0, out.stderr
    run_id = out.stdout.split()[-1]
    store = Store(tmp_path / "pg.db")
    assert store.run(run_id)["status"] == "completed"
    cands = {(c["task_id"], c["candidate_index"]): c for c in store.rows("candidates", run_id)}
    outcomes = {(o["task_id"], o["candidate_index"]): o for o in store.rows("outcomes", run_id)}
    assert len(cands) == len(outcomes) == 16
    for (task_id, index), c in cands.items():
        attempts = json.loads(c["gen_attempts_json"])
        assert c["source"] == "generate" and c["seed"] == index
        assert [a["status"] for a in attempts][:1] == [503] and len(attempts) == 2
        if task_id == "HumanEval/7":
            assert c["gen_status"] == "generation_error" and "HTTP 500" in c["gen_error"]
            assert outcomes[(task_id, index)]["outcome"] == "excluded"
            continue
        assert c["gen_status"] == "ok" and c["model_id"] == "stub-coder-1b@fp-stub-0001"
        assert c["prompt_tokens"] > 0 and c["completion_tokens"] > 0 and c["latency_ms"] > 0
        assert json.loads(c["logprobs_json"]) and c["mean_logprob"] == pytest.approx(-0.25)
        want = "passed" if index == 0 and task_id != "HumanEval/4" else "failed"
        assert outcomes[(task_id, index)]["outcome"] == want, (task_id, index)
        assert c["finish_reason"] == ("length" if task_id == "HumanEval/4" else "stop")
    # the contract is in the record (the key's variable name, never its value) and in the report
    frozen = json.loads(store.manifest(store.run(run_id)["manifest_id"])["canonical_json"])["generation"]
    assert frozen["endpoint"] == e2e_stub.base_url and frozen["api_key_env"] == "PASSGATE_STUB_API_KEY"
    report = json.loads(passgate(tmp_path, "report", run_id, "--json").stdout)
    assert report["config"]["decoding"] == frozen
    ok = [c for c in cands.values() if c["gen_status"] == "ok"]
    assert report["cost"]["prompt_tokens"] == sum(c["prompt_tokens"] for c in ok)
    summary = generation_section(store.db.conn, run_id,
                                 frozen_manifest(store.manifest(store.run(run_id)["manifest_id"])["canonical_json"]))
    assert summary["truncated"] == 2 and summary["generation_error_count"] == 2 and summary["retries"] == 16
    assert summary["requests"] == 32 and summary["expected"] == summary["candidates"] == 16
    print("\n".join(generation_lines(summary)))
    store.close()
    for path in tmp_path.glob("pg.db*"):
        assert SECRET.encode() not in path.read_bytes(), f"the API key reached {path.name}"
    assert set(e2e_stub.requests.values()) == {2}       # each index: first attempt + its one retry


@pytest.mark.docker
def test_killed_mid_generation_resumes_without_requesting_a_stored_index_again(tmp_path, e2e_stub, image_digest,
                                                                                docker_client):
    e2e_stub.hold_after = 6                        # after 6 answers, requests wait: the kill lands mid-generation
    manifest = e2e_manifest(tmp_path, e2e_stub)
    db = tmp_path / "pg.db"
    proc = subprocess.Popen([*PASSGATE, "--db", str(db), "run", str(manifest)], cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, "PASSGATE_STUB_API_KEY": SECRET})
    deadline = time.monotonic() + 240
    # wait until every answer given is stored and the controller has requests waiting at the stub
    while not (e2e_stub.held >= 1 and stored_count(db) == e2e_stub.total_answered() >= 6):
        assert proc.poll() is None, proc.stderr.read().decode()
        assert time.monotonic() < deadline, "generation made no progress"
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    store = Store(db)
    run_id = store.runs()[0]["run_id"]
    assert store.run(run_id)["status"] == "running"        # killed: nobody could mark it
    stored_before = {(c["task_id"], c["seed"]) for c in store.rows("candidates", run_id)}
    held = {k for k, n in e2e_stub.requests.items() if e2e_stub.answered[k] == 0}
    store.close()
    e2e_stub.drop_held()                                    # their client is dead: end them unanswered

    out = passgate(tmp_path, "run", "--resume", run_id)
    assert out.returncode == 0, out.stderr
    store = Store(db)
    assert store.run(run_id)["status"] == "completed"
    assert len(store.rows("candidates", run_id)) == 16 and len(store.rows("outcomes", run_id)) == 16
    assert verify_chain(store, run_id) == []
    requested_twice = {k for k, n in e2e_stub.requests.items() if n > 1}
    print(f"\nstored before the kill: {len(stored_before)}; held (asked, never answered) at the kill: "
          f"{sorted(held)}; requested twice: {sorted(requested_twice)}")
    assert all(e2e_stub.requests[k] == 1 for k in stored_before), "a stored index was requested again"
    assert requested_twice == held                          # only the ones never answered were asked again
    assert set(e2e_stub.answered.values()) == {1} and len(e2e_stub.answered) == 16   # each answered once
    left = docker_client.containers.list(all=True, filters={"label": f"passgate.run={run_id}"})
    assert left == [], "containers of the killed controller were left behind"


def stored_count(db) -> int:
    try:
        con = sqlite3.connect(db)
        try:
            return con.execute("SELECT COUNT(*) FROM candidates").fetchone()[0]
        finally:
            con.close()
    except sqlite3.OperationalError:
        return -1


@pytest.mark.docker
def test_repair_rounds_run_the_public_suite_in_the_sandbox_and_are_recorded(tmp_path, e2e_stub, image_digest):
    tasks = ("HumanEval/0", "HumanEval/2")
    manifest = e2e_manifest(tmp_path, e2e_stub, task_ids=tasks, api="chat", stop=[], repair={"enabled": True, "rounds": 1},
                            postprocess={"extract_fence": True, "style": "full"})
    out = passgate(tmp_path, "run", str(manifest))
    assert out.returncode == 0, out.stderr
    store = Store(tmp_path / "pg.db")
    run_id = store.runs()[0]["run_id"]
    outcomes = {(o["task_id"], o["candidate_index"]): o["outcome"] for o in store.rows("outcomes", run_id)}
    assert outcomes == {(t, i): "passed" for t in tasks for i in (0, 1)}   # the odd seeds were repaired
    for c in store.rows("candidates", run_id):
        steps = [(a["round"], a.get("kind", "request"), a.get("passed")) for a in json.loads(c["gen_attempts_json"])]
        if c["candidate_index"] == 0:
            assert steps == [(0, "request", None), (0, "public_check", True)]
        else:
            assert steps == [(0, "request", None), (0, "public_check", False), (1, "request", None)]
            check = json.loads(c["gen_attempts_json"])[1]
            assert check["feedback"]                    # what the model was told, recorded
    summary = generation_section(store.db.conn, run_id,
                                 frozen_manifest(store.manifest(store.runs()[0]["manifest_id"])["canonical_json"]))
    assert (summary["requests"], summary["repair_rounds"], summary["retries"]) == (6, 2, 0)
    assert "repair on, 1 rounds (2 used)" in "\n".join(generation_lines(summary))
    store.close()


def test_the_repair_check_never_sends_protected_tests_to_the_sandbox(humaneval_tasks):
    from passgate.core.candidates.generate import SandboxPublicCheck
    from passgate.core.sandbox.runner import NOT_RUN, EvalResult, SuiteResult, TaskSpec
    seen = []

    class Worker:
        def evaluate(self, request):
            seen.append(request.task)
            return EvalResult(protected=NOT_RUN, public=SuiteResult("failed", "wrong_answer", "got None"))

        def close(self):
            pass

    class Runner:
        def new_worker(self):
            return Worker()
    check = SandboxPublicCheck(Runner(), TaskSpec.of, lambda t: {"wall_s": 5.0})
    assert check(humaneval_tasks["HumanEval/0"], "def f(): pass") == (False, "got None")
    assert seen[0].protected == "" and seen[0].public


def test_a_server_that_rejects_every_request_stops_the_run_after_a_few_recorded_errors(stub, humaneval_tasks):
    stub.error_first, stub.error_status = 10**6, 422       # e.g. a parameter this server does not take
    out: list = []
    manifest = make_manifest(stub.base_url, concurrency=1, n_per_task=3)
    with pytest.raises(EndpointRefused, match="4 candidates in a row failed"):
        generate_candidates(manifest, [humaneval_tasks[t] for t in TASK_IDS], emit=out.append, backoff_s=0.01)
    assert len(out) == 4 and all(c.gen_status == "generation_error" and "HTTP 422" in c.gen_error for c in out)
    assert sum(stub.requests.values()) == 4                 # not retried: the request itself is refused


def test_cancel_abandons_requests_in_flight_instead_of_waiting_for_them(stub, humaneval_tasks):
    stub.hang, stub.hang_s = set(TASK_IDS), 30.0
    cancel = threading.Event()
    threading.Timer(0.5, cancel.set).start()
    start = time.monotonic()
    cands, result = run(make_manifest(stub.base_url, request_timeout_s=60), humaneval_tasks, cancel=cancel)
    assert time.monotonic() - start < 15 and result.cancelled     # the requests hang for 30 s
    assert cands == []                          # nothing answered, so nothing recorded: resume asks again


@pytest.mark.docker
def test_cancelled_run_stores_every_answer_it_got_and_resume_asks_only_for_the_rest(tmp_path, e2e_stub, image_digest,
                                                                                   monkeypatch):
    from passgate.core.run.engine import resume_run, start_run
    e2e_stub.hang, e2e_stub.hang_s = {"HumanEval/23", "HumanEval/29"}, 60.0   # in flight when cancel lands
    manifest = e2e_manifest(tmp_path, e2e_stub, concurrency=2)
    monkeypatch.setenv("PASSGATE_STUB_API_KEY", SECRET)
    cancel = threading.Event()

    def progress(p):
        if p.phase == "grade" and p.done >= 4:
            cancel.set()
    store = Store(tmp_path / "pg.db")
    start = time.monotonic()
    run_id = start_run(store, manifest, progress=progress, cancel=cancel)
    assert store.run(run_id)["status"] == "cancelled" and time.monotonic() - start < 60   # not waiting 60 s hangs
    stored = {(c["task_id"], c["seed"]) for c in store.rows("candidates", run_id)}
    assert stored == {k for k, n in e2e_stub.answered.items() if n}   # every answer given is in the record
    assert len(stored) < 16

    e2e_stub.hang = set()
    resume_run(store, run_id)
    assert store.run(run_id)["status"] == "completed" and len(store.rows("outcomes", run_id)) == 16
    assert set(e2e_stub.answered.values()) == {1} and len(e2e_stub.answered) == 16
    assert all(e2e_stub.requests[k] == 1 for k in stored)
    store.close()
