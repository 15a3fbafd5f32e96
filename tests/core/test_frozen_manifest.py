"""The manifest a run froze, read back as the typed model by the report and the gate.

A record written by today's passgate reads back to the very manifest it froze, and the report quotes
its sections exactly as the record holds them. A record written by an older passgate lacks the keys
added since: they take the model's defaults. A frozen manifest that today's checks would refuse (one
that mixes graders) is history and still reads. One that cannot be rebuilt at all reads as no
manifest: the report shows the default scoring contract and an empty configuration, as for a record
whose manifest row is missing.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from passgate.core.errors import ConfigError
from passgate.core.gate import gather_facts
from passgate.core.gate.facts import DeclaredRelaxation
from passgate.core.manifest import (
    ExecutionContract,
    GateSection,
    IntervalSpec,
    Relaxation,
    RerunSpec,
    ScoringContract,
    TaskSetSpec,
    dump_manifest,
    frozen_manifest,
    parse_manifest,
)
from passgate.core.record.store import Store
from passgate.core.score.generation import CONTRACT_KEYS
from passgate.core.score.report import build_report, load_manifest, scoring_contract
from tests.core import report_kit
from tests.core.gate_kit import DIGEST, MANIFEST, record_run, secure

ROOT = Path(__file__).resolve().parents[2]
MANIFESTS = sorted(ROOT.glob("examples/*.yaml")) + sorted(ROOT.glob("tests/tui/fixtures/*-manifest.yaml"))
PACKAGE = "pandas==2.2.2 --hash=sha256:" + "a" * 64


@pytest.fixture()
def store(tmp_path):
    s = Store(tmp_path / "r.db")
    yield s
    s.close()


def gate_kit_manifest():
    return parse_manifest(MANIFEST.format(digest=DIGEST, policy="secure-default", extra=""),
                          "/tmp/gate-test/manifest.yaml")


def frozen_json(store, run_id: str) -> str:
    return store.manifest(store.run(run_id)["manifest_id"])["canonical_json"]


@pytest.mark.parametrize("path", MANIFESTS, ids=lambda p: p.name)
def test_a_frozen_manifest_reads_back_to_the_manifest_it_froze(path):
    m = parse_manifest(path.read_text(), str(path))
    again = frozen_manifest(m.canonical_json())
    assert again == m and again.canonical_json() == m.canonical_json() and again.manifest_id == m.manifest_id


def test_keys_an_older_passgate_never_wrote_take_the_models_defaults():
    old = json.loads(gate_kit_manifest().canonical_json())
    for section, key in (("scoring", "interval"), ("execution", "reruns"), ("execution", "limits"),
                         ("candidates", "postprocess"), ("gate", "relaxations")):
        del old[section][key]
    del old["gate"]["policy"], old["description"]
    m = frozen_manifest(json.dumps(old))
    assert m.scoring.interval == IntervalSpec() and m.execution.reruns == RerunSpec()
    assert m.execution.limits == ExecutionContract().limits and m.gate == GateSection()
    assert m.execution.crosscheck == "sample" and m.tasks.canaries == 0 and m.description == ""


def test_a_frozen_manifest_that_mixes_graders_still_reads(store):
    m = gate_kit_manifest()
    mixed = dataclasses.replace(m, tasks=dataclasses.replace(
        m.tasks, sets=m.tasks.sets + (TaskSetSpec("humaneval-x", path="x.jsonl", language="js"),)))
    with pytest.raises(ConfigError, match="grades one sort of program"):
        parse_manifest(dump_manifest(mixed))                        # today's checks refuse it as a new request
    record_run(store, "r-mixed", manifest=mixed)
    assert frozen_manifest(frozen_json(store, "r-mixed")) == mixed
    report = build_report(store, "r-mixed", parallel=False)
    assert [p["kind"] for p in report["config"]["import_policy"]] == ["product"]   # humaneval-x has no import contract
    assert report["config"]["tasks_contract"] == json.loads(mixed.canonical_json())["tasks"]
    assert gather_facts(store, "r-mixed", secure(), check_contamination=False).slices[0].kind == "product"


UNREADABLE = {
    "not JSON": "{not json",
    "not a mapping": "[1, 2]",
    "an unknown key": json.dumps({**report_kit.manifest().canonical(), "tasks": {"sets": [{"id": "humaneval"}]}}),
    "a required key missing": json.dumps({k: v for k, v in report_kit.manifest().canonical().items() if k != "name"}),
    "a value of the wrong type": json.dumps({**report_kit.manifest().canonical(), "scoring": {"k": "one"}}),
    "a section's own rule broken": json.dumps({**report_kit.manifest().canonical(),
                                               "scoring": {"interval": {"level": 2}}}),
}


@pytest.mark.parametrize("text", UNREADABLE.values(), ids=UNREADABLE.keys())
def test_a_frozen_manifest_that_cannot_be_rebuilt_is_refused_naming_what(text):
    with pytest.raises(ConfigError, match="the run's frozen manifest"):
        frozen_manifest(text)
    assert frozen_manifest(None) is None and frozen_manifest("") is None


EMPTY_CONFIG = {"candidates_source": None, "decoding": None, "tasks_contract": None, "import_policy": [],
                "scoring": None}


def _unreadable_manifest(store, run_id):
    report_kit.standard_run(store, run_id, k=(1, 3), seed=9)
    store.db.execute("UPDATE manifests SET canonical_json = ? WHERE manifest_id = ?",
                     [UNREADABLE["an unknown key"], "m-" + run_id])


def _missing_manifest(store, run_id):
    report_kit.standard_run(store, run_id, k=(1, 3), seed=9)
    store.db.execute("DELETE FROM manifests WHERE manifest_id = ?", ["m-" + run_id])


def test_a_report_whose_frozen_manifest_cannot_be_rebuilt_is_refused_naming_the_key(store):
    _unreadable_manifest(store, "r-bad")
    with pytest.raises(ConfigError, match=r"the run's frozen manifest: tasks\.sets\.0\.id: unknown key"):
        build_report(store, "r-bad", parallel=False)


def test_a_report_without_its_manifest_shows_the_defaults_and_an_empty_configuration(store):
    _missing_manifest(store, "r-old")
    assert load_manifest(store, store.run("r-old")) is None
    report = build_report(store, "r-old", parallel=False)
    cfg = report["config"]
    assert {k: cfg[k] for k in EMPTY_CONFIG} == EMPTY_CONFIG and cfg["model"] == "kit-model"   # the run row's
    assert cfg["timeout_policy"]["timeout"] is None and cfg["timeout_policy"]["reruns"] is None
    assert cfg["package_policy"]["packages"] == [] and cfg["sandbox"]["network"] is None
    scores = report["scores"]
    assert scores["k"] == [1] and scores["aggregation"] == "micro"                   # not the frozen (1, 3)
    assert (scores["interval"]["seed"], scores["interval"]["resamples"]) == (0, 2000)
    assert report["generation"] is None


def test_the_gate_refuses_a_frozen_manifest_it_cannot_read(store):
    record_run(store, "r-unreadable")
    store.db.execute("UPDATE manifests SET canonical_json = '{not json'")
    with pytest.raises(ConfigError, match="the run's frozen manifest: not JSON"):
        gather_facts(store, "r-unreadable", secure(), check_contamination=False)


def test_the_gate_reads_each_sections_defaults_without_a_manifest(store):
    record_run(store, "r-unreadable")
    store.db.execute("UPDATE manifests SET canonical_json = ''")
    f = gather_facts(store, "r-unreadable", secure(), check_contamination=False)
    assert (f.manifest_policy, f.candidate_source, f.runner, f.crosscheck) == ("secure-default", "", "docker", "none")
    assert (f.declared, f.packages, f.base_image_digest, f.pinned_digest) == ((), (), "", "")
    assert (f.rerun_policy, f.rerun_count) == ("none", RerunSpec().count)
    assert f.interval == {"level": 0.95, "method": "bootstrap", "resamples": 2000, "seed": 0,
                          "aggregation": "micro", "weights": {}}
    assert [(s.name, s.kind) for s in f.slices] == [("product", "product")]


def test_a_scoring_contract_the_report_cannot_apply_is_refused_with_its_key(store):
    report_kit.record(store, "r-k0", report_kit.TASKS, report_kit.CANDS, scoring=report_kit.manifest(k=(0, 1)))
    with pytest.raises(ConfigError, match="every k must be >= 1"):
        build_report(store, "r-k0", parallel=False)
    assert scoring_contract(None) == ScoringContract()                  # no manifest: the model's defaults


def test_the_report_quotes_the_frozen_sections_exactly_as_the_record_holds_them(store):
    generated = parse_manifest((ROOT / "examples/edits-stub-generate-codellama.yaml").read_text(), "x.yaml")
    for run_id, m in (("r-import", _rich_manifest("/corpus")), ("r-generated", generated)):
        record_run(store, run_id, manifest=m)
        frozen = json.loads(frozen_json(store, run_id))
        report = build_report(store, run_id, parallel=False)
        cfg, ex = report["config"], frozen["execution"]
        quoted = {"tasks_contract": frozen["tasks"], "scoring": frozen["scoring"],
                  "decoding": frozen["generation"] or frozen["candidates"]["model"]}
        assert json.dumps({k: cfg[k] for k in quoted}) == json.dumps(quoted)          # key order included
        timeout = cfg["timeout_policy"]
        assert json.dumps([timeout["timeout"], timeout["reruns"], timeout["cpu_limit_s"], timeout["wall_factor"]]) \
            == json.dumps([ex["timeout"], ex["reruns"], ex["limits"]["cpu_s"], ex["limits"]["wall_factor"]])
        assert cfg["package_policy"]["packages"] == ex["packages"]
        assert [cfg["sandbox"][k] for k in ("network", "filesystem", "isolation")] == \
            [ex["network"], ex["filesystem"], ex["isolation"]]
    gen = report["generation"]
    assert json.dumps(gen["contract"]) == json.dumps({k: frozen["generation"].get(k) for k in CONTRACT_KEYS})
    assert json.dumps(gen["postprocess"]) == json.dumps(frozen["candidates"]["postprocess"])
    assert gen["prompt_template"] == frozen["tasks"]["prompt_template"]


def _rich_manifest(corpus: str):
    """The gate kit's manifest with every section the gate reads set away from its default."""
    m = gate_kit_manifest()
    return dataclasses.replace(
        m, execution=dataclasses.replace(m.execution, packages=(PACKAGE,), base_image="python:3.11",
                                         base_image_digest="sha256:" + "b" * 64, crosscheck="all",
                                         reruns=RerunSpec("all", 3)),
        scoring=dataclasses.replace(m.scoring, aggregation="macro", weights={"product": 2.0},
                                    interval=IntervalSpec(level=0.9, resamples=300, seed=7)),
        gate=dataclasses.replace(m.gate, policy="product-egress-mirror", contamination_corpus=corpus,
                                 relaxations=(Relaxation("dependencies", "allowlist[pandas==2.2.2]", "needed"),)))


def test_the_gate_facts_a_recorded_manifest_gives(store, tmp_path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "a.txt").write_text("def f0(x):\n    return x + 0\n" * 3)
    record_run(store, "r-rich", manifest=_rich_manifest(str(corpus)))
    store.update_run("r-rich", grading_protocol=3)
    f = gather_facts(store, "r-rich", secure())
    assert (f.manifest_policy, f.candidate_source, f.runner, f.runtime, f.crosscheck) == \
        ("product-egress-mirror", "import", "docker", "runsc", "all")
    assert f.declared == (DeclaredRelaxation("dependencies", "allowlist[pandas==2.2.2]", "needed"),)
    assert (f.packages, f.base_image_digest, f.pinned_digest) == ((PACKAGE,), "sha256:" + "b" * 64, DIGEST)
    assert (f.rerun_policy, f.rerun_count) == ("all", 3)
    assert list(f.interval.items()) == [("level", 0.9), ("method", "bootstrap"), ("resamples", 300), ("seed", 7),
                                        ("aggregation", "macro"), ("weights", {"product": 2.0})]
    assert f.score.level == 0.9 and f.score.pass_at_1 == 4 / 6
    assert [(s.name, s.set_id, s.kind, s.exposure, s.tasks) for s in f.slices] == \
        [("product", "acme", "product", "holdout", 6)]
    assert f.contamination.corpus_checked and f.contamination.corpus.startswith(f"{corpus} (1 files, sha256 ")
    assert f.contamination.references_checked
    record_run(store, "r-plain")
    plain = gather_facts(store, "r-plain", secure(), check_contamination=False)
    assert (plain.manifest_policy, plain.crosscheck, plain.declared, plain.packages, plain.base_image_digest) == \
        ("secure-default", "none", (), (), "")                  # no grading protocol recorded: no cross-check
    assert (plain.rerun_policy, plain.rerun_count, plain.interval["resamples"]) == ("failures", 2, 300)
