"""The report's types say what the builders write: real reports from SQLite records are walked against
`Report` key by key, in order, value type by value type, and docs/report-schema.md lists its keys."""

from __future__ import annotations

import re
import types
import typing
from pathlib import Path

import numpy as np
import pytest

from passgate.core.manifest import IntervalSpec
from passgate.core.record.store import Store
from passgate.core.score import report_types as rt
from passgate.core.score.chained import chained_section
from passgate.core.score.fidelity import fidelity_summary
from passgate.core.score.generation import CONTRACT_KEYS
from passgate.core.score.report import build_report
from tests.core import integrity_kit, report_kit
from tests.tui import fixture_db, fixture_edits, language_db

DOCS = Path(__file__).resolve().parents[2] / "docs" / "report-schema.md"
WHATIFS = ["timeout=0.5", "verifier=public", "k=1,2;aggregation=macro", "candidates=2",
           "slices=humaneval:2,mbpp:1", "timeout=0.5x"]


def shape_errors(value, hint, path: str = "report") -> list[str]:
    """Every place where `value` is not what `hint` declares: a TypedDict's keys exactly (its optional
    keys may be absent) and in declared order, and each value's type, recursively. Empty when it fits."""
    if hint is typing.Any:
        return []
    if typing.is_typeddict(hint):
        return _dict_errors(value, hint, path)
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        tried = [shape_errors(value, member, path) for member in args]
        return [] if [] in tried else [e for errors in tried for e in errors]
    if origin is typing.Literal:
        return [] if value in args and type(value) is type(args[0]) else [f"{path}: {value!r} is not one of {args}"]
    if origin is list:
        if not isinstance(value, list):
            return [f"{path}: {type(value).__name__}, not a list"]
        return [e for i, item in enumerate(value) for e in shape_errors(item, args[0], f"{path}[{i}]")]
    if origin is dict:
        if not isinstance(value, dict):
            return [f"{path}: {type(value).__name__}, not an object"]
        return [e for key, item in value.items() for e in
                (shape_errors(key, args[0], f"{path} key") + shape_errors(item, args[1], f"{path}.{key}"))]
    return _scalar_errors(value, hint, path)


def _dict_errors(value, hint, path: str) -> list[str]:
    if not isinstance(value, dict):
        return [f"{path}: {type(value).__name__}, not {hint.__name__}"]
    hints = typing.get_type_hints(hint)
    expected = [k for k in hints if k in hint.__required_keys__ or k in value]
    if list(value) != expected:
        return [f"{path}: keys {list(value)} are not {hint.__name__}'s {expected}"]
    return [e for k in expected for e in shape_errors(value[k], hints[k], f"{path}.{k}")]


def _scalar_errors(value, hint, path: str) -> list[str]:
    if hint is type(None):
        fits = value is None
    elif hint is float:                     # an int is a float figure (PEP 484), a bool is not
        fits = isinstance(value, (int, float)) and not isinstance(value, bool)
    elif hint is int:
        fits = isinstance(value, int) and not isinstance(value, bool)
    else:
        fits = isinstance(value, hint)
    return [] if fits else [f"{path}: {repr(value)[:80]} is not {getattr(hint, '__name__', hint)}"]


@pytest.fixture(scope="module")
def reports(tmp_path_factory) -> dict[str, dict]:
    """Reports of the test kits' records and the console's fixed records: between them every section
    filled, and the null and not-recorded variants."""
    tmp = tmp_path_factory.mktemp("reports")
    out = {}
    store = Store(tmp / "kit.db")
    report_kit.standard_run(store, k=(1, 3), weights={})
    out["kit"] = build_report(store, "run-kit", whatif=WHATIFS)
    report_kit.standard_run(store, "findings")
    report_kit.record_findings(store, "findings")
    out["findings"] = build_report(store, "findings")
    report_kit.record(store, "empty", [report_kit.TaskSpec("E/0", "x")], [])
    out["empty"] = build_report(store, "empty", parallel=False)
    store.close()
    store = Store(tmp / "integrity.db")
    out["integrity"] = build_report(store, integrity_kit.record_integrity_run(store), parallel=False)
    store.close()
    for name, fixture in (("console", fixture_db), ("edits", fixture_edits), ("languages", language_db)):
        store = Store(fixture.build(tmp / f"{name}.db"))
        out[name] = build_report(store, fixture.RUN)
        store.close()
    return out


def test_a_built_report_has_the_report_types_keys_in_order(reports):
    for name, report in reports.items():
        assert list(report) == list(typing.get_type_hints(rt.Report)), name


def test_every_section_of_a_built_report_is_what_its_type_declares(reports):
    for name, report in reports.items():
        assert shape_errors(report, rt.Report) == [], name


def test_the_fixtures_fill_the_sections_variants(reports):
    """The walk above covers the filled variants, not only the null and not-recorded ones."""
    filled = {key for report in reports.values() for key, value in report.items() if value not in (None, [])}
    assert {"edits", "latency", "generation", "languages", "whatif", "selfcheck"} <= filled
    assert any(r["integrity"]["recorded"] for r in reports.values())
    assert any(r["canaries"]["enabled"] for r in reports.values())
    assert any(r["ranked_pass_at_1"]["available"] for r in reports.values())
    assert any(r["edits"] and r["edits"]["acceptance"] for r in reports.values())
    assert any(r["omissions"]["not_imported"] for r in reports.values())
    findings = reports["findings"]
    assert findings["security"]["scanned"] and findings["security"]["examples"] and findings["repository"]
    assert findings["tamper"]["examples"] and findings["contract"]["examples"]
    assert findings["contract"]["signature_examples"]


def test_the_chained_section_is_what_its_type_declares():
    tags = [[f"depth:{d}"] for d in (1, 1, 2, 2, 3)]
    recs = types.SimpleNamespace(tags=tags, n=np.array([4, 4, 4, 4, 4]), c=np.array([4, 3, 2, 2, 1]))
    section = chained_section(recs, IntervalSpec(resamples=50, seed=1))
    assert shape_errors(section, rt.ChainedSection, "chained") == []


def test_a_fidelity_disagreement_is_what_its_type_declares():
    row = {"classic_status": "passed", "classic_class": None, "protected_status": "failed",
           "protected_class": "premature_exit", "evidence_json": "{}", "task_id": "T/0", "candidate_index": 0,
           "attempt": 1, "purpose": "grade", "detail": "exit 0"}
    summary = fidelity_summary([row])
    assert summary["disagreements"] and shape_errors(summary, rt.FidelitySummary, "fidelity") == []


def test_the_generation_contract_type_names_the_contract_keys():
    assert tuple(typing.get_type_hints(rt.GenerationContract)) == CONTRACT_KEYS


def test_the_walk_finds_an_extra_a_missing_a_moved_and_a_mistyped_key(reports):
    report = reports["kit"]
    counts = dict(report["counts"])
    assert shape_errors({**report, "counts": {**counts, "extra": 1}}, rt.Report)
    assert shape_errors({**report, "counts": {k: v for k, v in counts.items() if k != "pending"}}, rt.Report)
    assert shape_errors({**report, "counts": dict(reversed(counts.items()))}, rt.Report)
    assert shape_errors({**report, "counts": {**counts, "pending": "1"}}, rt.Report)
    assert shape_errors({**report, "tasks": [{**report["tasks"][0], "n": True}]}, rt.Report)


def doc_section(heading: str) -> str:
    """The text under `## heading` of docs/report-schema.md, up to the next heading ("" when absent)."""
    parts = DOCS.read_text().split(f"\n## {heading}\n", 1)
    return parts[1].split("\n## ", 1)[0] if len(parts) == 2 else ""


def doc_table_keys(heading: str) -> list[str]:
    """The keys named in the first column of the `| key | content |` table under `## heading`."""
    rows = [line for line in doc_section(heading).splitlines() if line.startswith("| `")]
    return [key.removesuffix("[]") for row in rows for key in re.findall(r"`([^`]+)`", row.split("|")[1])]


def declared_keys(hint) -> set[str]:
    """Every key a section of this type can have: over its variants, and of a list's items."""
    if typing.is_typeddict(hint):
        return set(typing.get_type_hints(hint))
    return {key for member in typing.get_args(hint) for key in declared_keys(member)}


def test_the_schema_docs_top_level_table_lists_the_report_keys_in_order():
    assert doc_table_keys("Top-level keys") == list(typing.get_type_hints(rt.Report))


def test_each_section_table_of_the_schema_doc_lists_exactly_its_types_keys():
    tabled = {name: hint for name, hint in typing.get_type_hints(rt.Report).items() if doc_table_keys(f"`{name}`")}
    assert len(tabled) >= 13
    for name, hint in tabled.items():
        assert set(doc_table_keys(f"`{name}`")) == declared_keys(hint), name


def test_each_section_the_schema_doc_describes_in_prose_names_its_types_keys():
    prose = {name: hint for name, hint in typing.get_type_hints(rt.Report).items()
             if doc_section(f"`{name}`") and not doc_table_keys(f"`{name}`")}
    assert {"config", "public_vs_protected", "filtered_pass_at_1", "ranked_pass_at_1", "cost", "tasks",
            "whatif"} <= set(prose)
    for name, hint in prose.items():
        text = doc_section(f"`{name}`")
        assert [k for k in sorted(declared_keys(hint)) if f"`{k}`" not in text and f'"{k}"' not in text] == [], name


def test_the_doc_checks_can_fail():
    assert doc_table_keys("Top-level keys")[:2] == ["schema", "generated_at"]
    assert doc_table_keys("no such heading") == [] and doc_section("no such heading") == ""
    assert set(doc_table_keys("`scores`")) != declared_keys(rt.ExecutionSection)
    assert {"recorded", "reason", "headline"} <= declared_keys(typing.get_type_hints(rt.Report)["integrity"])
