"""Local edits generated through an endpoint: the completions API's `suffix` parameter or a model
family's fill-in-the-middle template, the template and its sentinels in the contract, generation
stopped at the family's end token, time to first token when streamed. Real HTTP to the stub."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from passgate.core.candidates.fim import FAMILIES, check_pinned, pinned
from passgate.core.candidates.generate import generate_candidates
from passgate.core.errors import ConfigError, DriftError
from passgate.core.manifest import parse_manifest
from passgate.core.kinds.sets import load_task_set
from tests.core.openai_stub import AFTER_THE_END, OpenAIStub, infilling_answers

SINGLE = Path(__file__).resolve().parents[3] / "shared/datasets/infilling/HumanEval-SingleLineInfilling.jsonl.gz"
TASK_IDS = ["SingleLineInfilling/HumanEval/0/L0", "SingleLineInfilling/HumanEval/2/L0",
            "SingleLineInfilling/HumanEval/4/L1"]


@pytest.fixture(scope="module")
def tasks():
    return list(load_task_set("humaneval-infilling", SINGLE, task_ids=TASK_IDS).tasks)


@pytest.fixture
def stub():
    server = OpenAIStub({}, infill=infilling_answers(SINGLE)).start()
    yield server
    server.stop()


def manifest(endpoint: str, fim: dict, **generation):
    gen = {"endpoint": endpoint, "model": "stub-coder-1b", "n_per_task": 2, "concurrency": 2,
           "request_timeout_s": 5, "retries": 1, "fim": fim, **generation}
    doc = {"name": "edits", "tasks": {"sets": [{"kind": "humaneval-infilling", "path": str(SINGLE),
                                                "task_ids": TASK_IDS}]},
           "candidates": {"source": "generate"}, "generation": gen}
    return parse_manifest(yaml.safe_dump(doc, allow_unicode=True))


def generate(m, tasks):
    out: list = []
    generate_candidates(m, tasks, emit=out.append, backoff_s=0.01)
    return sorted(out, key=lambda c: (c.task_id, c.candidate_index))


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_each_family_template_is_sent_with_its_sentinels_and_stopped_at_its_end_token(stub, tasks, family):
    cands = generate(manifest(stub.base_url, {"mode": "template", "template": family}), tasks)
    fam = FAMILIES[family]
    by_id = {t.task_id: t for t in tasks}
    for entry in stub.log:
        body = entry["body"]
        assert all(token in body["prompt"] for token in fam.sentinels) and "suffix" not in body
        assert set(fam.end_tokens) <= set(body["stop"])
    for c in cands:
        task = by_id[c.task_id]
        before, after, middle = stub.infill[c.task_id]
        assert c.raw_text == (middle if c.seed % 2 == 0 else stub.middle(c.task_id, c.seed, None))
        assert c.program == before + c.raw_text + after and c.completion_style == ""
        assert c.processed_text == c.raw_text and task.prompt == before


def test_the_suffix_parameter_carries_the_code_after_the_gap(stub, tasks):
    cands = generate(manifest(stub.base_url, {"mode": "suffix"}), tasks)
    assert len(cands) == 6
    for entry in stub.log:
        body = entry["body"]
        before, after, _ = stub.infill[next(t for t, v in stub.infill.items() if v[0] == body["prompt"]
                                            and v[1] == body["suffix"])]
        assert (body["prompt"], body["suffix"]) == (before, after) and "stop" not in body
    assert all(c.program == stub.infill[c.task_id][0] + c.raw_text + stub.infill[c.task_id][1] for c in cands)


def test_a_user_given_template_is_sent_as_written(stub, tasks):
    stub.add_template("<before>{prefix}<after>{suffix}<fill>", "<end>")
    fim = {"mode": "template", "template": "custom", "format": "<before>{prefix}<after>{suffix}<fill>",
           "sentinels": ["<before>", "<after>", "<fill>"], "end_tokens": ["<end>"]}
    cands = generate(manifest(stub.base_url, fim), tasks)
    assert all(entry["body"]["prompt"].startswith("<before>") and entry["body"]["stop"] == ["<end>"]
               for entry in stub.log)
    assert [c.raw_text == stub.infill[c.task_id][2] for c in cands] == [True, False] * 3


def test_the_end_token_ends_the_middle_even_when_the_server_ignores_stop(stub, tasks):
    stub.ignore_stop = True
    cands = generate(manifest(stub.base_url, {"mode": "template", "template": "codellama"}), tasks)
    for c in cands:
        assert c.raw_text.endswith("<EOT>" + AFTER_THE_END)              # what the server sent, kept raw
        assert c.processed_text == c.raw_text[:c.raw_text.index("<EOT>")]
        assert "unrelated" not in c.program


def test_streamed_edits_record_time_to_first_token(stub, tasks):
    stub.first_token_s, stub.chunk_s = 0.05, 0.01
    cands = generate(manifest(stub.base_url, {"mode": "template", "template": "starcoder"}, streaming=True), tasks)
    for c in cands:
        assert 50 <= c.first_token_ms <= c.latency_ms and c.completion_tokens > 0
        assert c.gen_attempts[0]["first_token_ms"] == c.first_token_ms
    plain = generate(manifest(stub.base_url, {"mode": "suffix"}), tasks)
    assert all(c.first_token_ms is None and c.latency_ms >= 50 for c in plain)


# --------------------------------------------------------------------------- the contract
def test_freezing_writes_the_family_template_into_the_contract_and_a_run_checks_it(tasks):
    named = manifest("http://127.0.0.1:9/v1", {"mode": "template", "template": "deepseek-coder"})
    with pytest.raises(DriftError, match="run `passgate freeze`"):
        check_pinned(named.generation, tasks)
    frozen = pinned(named.generation.fim)
    assert frozen.format == "<｜fim▁begin｜>{prefix}<｜fim▁hole｜>{suffix}<｜fim▁end｜>"
    assert frozen.sentinels == FAMILIES["deepseek-coder"].sentinels and "<|EOT|>" in frozen.end_tokens
    again = manifest("http://127.0.0.1:9/v1", {"mode": "template", "template": "deepseek-coder",
                                               "format": frozen.format, "sentinels": list(frozen.sentinels),
                                               "end_tokens": list(frozen.end_tokens)})
    check_pinned(again.generation, tasks)
    assert json.loads(again.canonical_json())["generation"]["fim"]["format"] == frozen.format   # in the record
    edited = manifest("http://127.0.0.1:9/v1", {"mode": "template", "template": "deepseek-coder",
                                                "format": frozen.format, "sentinels": list(frozen.sentinels),
                                                "end_tokens": ["<|EOT|>"]})
    with pytest.raises(DriftError, match="differ from the deepseek-coder template"):
        check_pinned(edited.generation, tasks)


def test_local_edits_without_a_fim_contract_are_refused(tasks):
    doc = {"name": "edits", "tasks": {"sets": [{"kind": "humaneval-infilling", "path": str(SINGLE)}]},
           "candidates": {"source": "generate"}, "generation": {"endpoint": "http://127.0.0.1:9/v1", "model": "m"}}
    with pytest.raises(ConfigError) as caught:
        check_pinned(parse_manifest(yaml.safe_dump(doc)).generation, tasks)
    assert caught.value.field == "generation.fim"


@pytest.mark.parametrize("fim, extra, field, words", [
    ({"mode": "template"}, {}, "generation.fim.template", "needs a model family"),
    ({"mode": "template", "template": "custom", "format": "<p>{prefix}<s>{suffix}"}, {}, "generation.fim.end_tokens",
     "needs its format and its end_tokens"),
    ({"mode": "template", "template": "custom", "format": "<p>{prefix}", "end_tokens": ["e"]}, {},
     "generation.fim.format", "{suffix} exactly once"),
    ({"mode": "suffix", "template": "starcoder"}, {}, "generation.fim.template", "only with mode: template"),
    ({"mode": "suffix"}, {"api": "chat"}, "generation.fim", "needs the completions API"),
    ({"mode": "template", "template": "starcoder", "format": "<fim_prefix>{prefix}<fim_suffix>{suffix}<fim_middle>",
      "sentinels": ["<MID>"]}, {}, "generation.fim.sentinels", "does not appear in the format"),
    ({"mode": "infill"}, {}, "generation.fim.mode", "must be one of"),
])
def test_a_bad_fim_contract_names_its_line_and_key(fim, extra, field, words):
    with pytest.raises(ConfigError) as caught:
        manifest("http://127.0.0.1:9/v1", fim, **extra)
    assert caught.value.field == field and words in str(caught.value) and caught.value.line
