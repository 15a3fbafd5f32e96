"""The gate's `verdict_integrity` condition: graded on the slice decided most in the candidate's own
process, from facts and from a real SQLite record; runs graded before protocol 3 are adequate, never strong."""

from __future__ import annotations

import dataclasses

import pytest

from passgate.core.gate import evaluate
from passgate.core.gate.evidence import verdict_integrity
from passgate.core.gate.facts import IntegrityFacts, SliceIntegrity
from passgate.core.gate.policy import parse_policy, policies_dir
from passgate.core.record.store import Store
from tests.core.gate_kit import facts, secure
from tests.core.integrity_kit import record_integrity_run


def graded(*slices: SliceIntegrity, recorded: bool = True, protocol: int | None = 3):
    return verdict_integrity(facts(integrity=IntegrityFacts(recorded, protocol, slices)), secure())


@pytest.mark.parametrize("in_process, level", [(0, "strong"), (10, "strong"), (11, "adequate"), (50, "adequate"),
                                               (51, "weak"), (100, "weak")])
def test_the_in_process_share_falls_in_the_policy_bands(in_process, level):
    cond = graded(SliceIntegrity("strings", 40, outside=100 - in_process, in_process=in_process))
    assert cond.level == level
    assert f"{in_process} of 100 decided assertions ({in_process:.1f}%)" in cond.sentence and "strings" in cond.sentence


def test_the_worst_slice_grades_the_run_and_the_sentence_names_it_with_numbers():
    cond = graded(SliceIntegrity("strings", 40, outside=200), SliceIntegrity("parsing", 12, outside=6, in_process=14,
                                                                             process_control=3),
                  SliceIntegrity("empty", 2))
    assert cond.level == "weak" and cond.measured == "parsing: 14/20 in-process (70.0%)"
    assert cond.sentence == ("In slice parsing, 14 of 20 decided assertions (70.0%) were decided in the candidate's "
                             "process and 6 outside it; other slices: strings 0.0%; in 3 verdicts the test's own "
                             "control flow, in the candidate's process, decided which assertions had to run, so the "
                             "process could have ended the test early (counted like an in-process decision); no "
                             "assertion was decided in empty.")


def test_verdicts_the_process_could_have_ended_weigh_like_in_process_decisions():
    """Where the test's control flow ran in the candidate's process, a forged end could not be told
    from the test's own: such verdicts weaken the slice even when every assertion was decided outside."""
    cond = graded(SliceIntegrity("parsing", 10, outside=40, process_control=6))
    assert cond.level == "weak" and cond.measured == "parsing: 6/10 verdicts ended by the candidate's process (60.0%)"
    assert graded(SliceIntegrity("parsing", 100, outside=400, process_control=5)).level == "strong"


def test_not_recorded_is_adequate_with_its_reason_never_strong():
    cond = graded(recorded=False, protocol=2)
    assert (cond.level, cond.measured) == ("adequate", "not recorded")
    assert "protocol 2" in cond.sentence
    lenient = dataclasses.replace(secure(), evidence=dataclasses.replace(
        secure().evidence, verdict_integrity=dataclasses.replace(secure().evidence.verdict_integrity, strong=1.0)))
    assert verdict_integrity(facts(integrity=IntegrityFacts()), lenient).level == "adequate"
    assert graded(SliceIntegrity("strings", 3)).level == "adequate"       # recorded, but nothing decided


def test_a_policy_file_sets_the_bands_and_older_files_take_the_default(tmp_path):
    text = (policies_dir() / "secure-default.yaml").read_text()
    assert "verdict_integrity:" in text
    assert parse_policy(text).evidence.verdict_integrity.adequate == 0.5
    stricter = text.replace("    adequate: 0.50              # at most: adequate; more: weak",
                            "    adequate: 0.20              # at most: adequate; more: weak")
    assert parse_policy(stricter).evidence.verdict_integrity.adequate == 0.2
    start = text.index("  verdict_integrity:")
    older = text[:start] + text[text.index("\ncontamination:", start) + 1:]
    assert parse_policy(older).evidence.verdict_integrity == secure().evidence.verdict_integrity


def test_the_gate_reads_integrity_from_a_real_record(tmp_path):
    store = Store(tmp_path / "gate.db")
    new, old = record_integrity_run(store, "r-new"), record_integrity_run(store, "r-old", protocol=2)
    cond = next(c for c in evaluate(store, new).conditions if c.name == "verdict_integrity")
    assert cond.level == "weak" and cond.sentence.startswith("In slice parsing, 4 of 6 decided assertions (66.7%)")
    v = evaluate(store, old)
    cond = next(c for c in v.conditions if c.name == "verdict_integrity")
    assert (cond.level, cond.measured) == ("adequate", "not recorded")
    assert any(n.subject == "verdict_integrity" for n in v.needs)        # a release needs it recorded
