"""The chained-operation slice: a stable seeded generator, references that pass, the per-depth report."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from passgate.core.errors import ConfigError
from passgate.core.export.formats import to_markdown
from passgate.core.export.svg import write_svgs
from passgate.core.score.chained import chained_section
from passgate.core.score.intervals import IntervalSpec
from passgate.core.score.report import build_report
from passgate.core.tasks.chained import BLOCKS, dumps, generate
from passgate.core.kinds.sets import load_task_set

from .enginekit import run
from .openai_stub import OpenAIStub, product_answers

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "chained-s0-d6.jsonl"


def test_the_generator_is_stable_for_a_seed_and_the_example_is_its_output():
    text = dumps(generate(0, 6, 10))
    assert hashlib.sha256(text.encode()).hexdigest() == \
        "aeaeabd3f3563c647e809257a595f5ad2b1ddee2bc376f97d774051ade0da4f0"
    assert EXAMPLE.read_text() == text
    assert dumps(generate(1, 6, 10)) != text
    assert len(BLOCKS) == 13


def test_every_reference_passes_its_own_hidden_tests_and_docstrings_number_the_steps():
    for task in generate(3, 8, 5):
        exec(task["reference_solution"] + "\ncandidate = transform\n" + task["protected_tests"], {})
        depth = int(task["tags"][1].split(":")[1])
        assert f"    {depth}. " in task["prompt"] and f"    {depth + 1}. " not in task["prompt"]
        assert task["reference_solution"].count("\n    s = ") == depth


def test_a_chained_set_loads_with_its_depths_and_a_task_without_one_names_file_and_line(tmp_path):
    ts = load_task_set("chained", EXAMPLE)
    assert len(ts.tasks) == 60 and ts.tasks[0].slice == "chained"
    rows = [json.loads(line) for line in EXAMPLE.read_text().splitlines()[:3]]
    rows[1]["tags"] = ["chained"]
    bad = tmp_path / "bad.jsonl"
    bad.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(ConfigError, match="depth:D") as err:
        load_task_set("chained", bad)
    assert err.value.line == 2 and err.value.field == "tags"


def _records(rates_by_depth: dict[int, list[float]]):
    tags, n, c = [], [], []
    for depth, rates in rates_by_depth.items():
        for r in rates:
            tags.append(("chained", f"depth:{depth}"))
            n.append(10)
            c.append(int(round(10 * r)))
    return SimpleNamespace(tags=tags, n=np.array(n), c=np.array(c))


def test_the_fitted_decay_factor_finds_the_factor_the_rates_fall_by():
    truth = {d: [0.8 ** (d - 1)] * 20 for d in range(1, 7)}
    ch = chained_section(_records(truth), IntervalSpec(resamples=300))
    assert [r["depth"] for r in ch["per_depth"]] == [1, 2, 3, 4, 5, 6]
    assert ch["decay"]["factor"] == pytest.approx(0.8, abs=0.02)
    assert ch["decay"]["ci_low"] <= ch["decay"]["factor"] <= ch["decay"]["ci_high"]
    assert chained_section(SimpleNamespace(tags=[()], n=np.array([3]), c=np.array([1])), IntervalSpec()) is None


def _manifest(tmp_path: Path, image_digest: str, source: str, endpoint: str | None = None) -> Path:
    text = dumps(generate(0, 4, 3))
    (tmp_path / "chained.jsonl").write_text(text)
    sha = hashlib.sha256(text.encode()).hexdigest()
    m = {"version": 1, "name": f"chained-{source}",
         "tasks": {"sets": [{"kind": "chained", "path": "chained.jsonl", "sha256": sha}]},
         "candidates": {"source": source, "postprocess": {"style": "body"}},
         "execution": {"image_digest": image_digest, "workers": 2, "timeout": {"calibrate": False}}}
    if endpoint:
        m["generation"] = {"endpoint": endpoint, "model": "stub-coder-1b", "n_per_task": 4, "seed_base": 0,
                           "stop": ["\ndef "]}
    path = tmp_path / f"{source}.yaml"
    path.write_text(json.dumps(m))
    return path


@pytest.mark.docker
def test_a_reference_run_passes_every_depth_and_a_forgetful_model_decays(tmp_path, image_digest):
    store, ref = run(tmp_path, _manifest(tmp_path, image_digest, "reference"), db_name="ch.db")
    ch = build_report(store, ref)["chained"]
    assert [r["pass_rate"] for r in ch["per_depth"]] == [1.0, 1.0, 1.0, 1.0]
    assert ch["decay"]["factor"] == pytest.approx(1.0, abs=0.01)
    stub = OpenAIStub(product_answers(tmp_path / "chained.jsonl"))
    stub.forget = 0.3
    stub.start()
    try:
        store, gen = run(tmp_path, _manifest(tmp_path, image_digest, "generate", stub.base_url), db_name="ch.db")
    finally:
        stub.stop()
    report = build_report(store, gen)
    ch = report["chained"]
    rates = [r["pass_rate"] for r in ch["per_depth"]]
    assert rates[0] > rates[-1] and ch["decay"]["factor"] < 0.95
    assert "Chained operations: pass rate per chain depth" in to_markdown(report)
    assert any(p.name == "chained.svg" for p in write_svgs(report, tmp_path / "svg"))
    from passgate.core.score.compare import build_comparison
    comp = build_comparison(store, ref, gen)["chained"]
    assert [r["baseline"] for r in comp["per_depth"]] == [1.0] * 4
    assert comp["per_depth"][-1]["difference"] == pytest.approx(rates[-1] - 1.0)
    assert comp["decay"]["candidate"]["factor"] == ch["decay"]["factor"]
