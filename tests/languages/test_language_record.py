"""A recorded run of tasks in other languages as the report and the gate read it: the sections and
conditions that read Python programs or per-assertion records step aside for the languages' own
(no sandbox: the console's fixed record of a language run)."""

from __future__ import annotations

from passgate.core.gate import evaluate
from passgate.core.gate.evidence import verdict_integrity
from passgate.core.gate.facts import IntegrityFacts, SliceIntegrity
from passgate.core.record.store import Store
from passgate.core.score.report import build_report
from tests.core.gate_kit import facts, secure
from tests.tui import language_db


def test_the_gate_weighs_language_verdicts_and_not_per_assertion_integrity(tmp_path):
    store = Store(language_db.build(tmp_path / "lang.db"))
    names = [c.name for c in evaluate(store, language_db.RUN).conditions]
    assert "language_verdicts" in names and "verdict_integrity" not in names


def test_verdict_integrity_does_not_apply_to_a_run_in_other_languages():
    languages = {"js": {"tasks": 3, "in_process": 1, "with_reference": 3, "counted_tasks": 3}}
    integrity = IntegrityFacts(True, 3, (SliceIntegrity("humaneval-x-js", 3),))
    assert verdict_integrity(facts(integrity=integrity, languages=languages), secure()) is None
    assert verdict_integrity(facts(integrity=integrity), secure()) is not None


def test_the_report_leaves_the_python_only_sections_unrecorded(tmp_path):
    store = Store(language_db.build(tmp_path / "lang.db"))
    report = build_report(store, language_db.RUN)
    assert not report["integrity"]["recorded"] and "other languages" in report["integrity"]["reason"]
    assert not report["contract"]["recorded"] and "other languages" in report["contract"]["reason"]
    assert report["config"]["import_policy"] == []
    assert {r["language"] for r in report["languages"]["per_language"]} == {"cpp", "js", "ts"}
