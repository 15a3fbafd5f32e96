"""Evidence quality: how far the record can be trusted as a measurement, condition by condition.

Each condition grades the run strong / adequate / weak / invalid with a sentence saying what it
measured against which threshold; the run's evidence is its worst condition. Thresholds come
from the policy's `evidence` section; `invalid` is reserved for records that cannot be a
measurement at all (run not completed, records altered, boundary unproven, nothing counted).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from statistics import NormalDist

from .facts import GateFacts
from .policy import CountBand, Policy, RateBand
from .vocab import worst_evidence


@dataclass(frozen=True)
class Condition:
    name: str
    level: str           # strong | adequate | weak | invalid
    measured: str
    threshold: str
    sentence: str

    def as_dict(self) -> dict:
        return asdict(self)


def assess(facts: GateFacts, policy: Policy) -> tuple[str, list[Condition]]:
    """The run's evidence level and every condition behind it (a condition that does not apply to
    the run, such as the languages' for a Python run, is left out)."""
    conditions = [c for c in (check(facts, policy) for check in CHECKS) if c is not None]
    return worst_evidence(c.level for c in conditions), conditions


def _rate(value: float | None, band: RateBand) -> str:
    if value is None:
        return "weak"
    return "strong" if value <= band.strong else "adequate" if value <= band.adequate else "weak"


def _count(value: int, band: CountBand) -> str:
    return "strong" if value >= band.strong else "adequate" if value >= band.adequate else "weak"


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.1f}%"


def _ratio(num: int, den: int) -> float | None:
    return num / den if den else None


def _band_words(band: RateBand) -> str:
    return f"strong at most {_pct(band.strong)}, adequate at most {_pct(band.adequate)}"


def _width_words(band: RateBand) -> str:
    """Interval widths are in pass@1's own unit (0 to 1), like the width they grade."""
    return f"strong at most {band.strong:.3f} wide, adequate at most {band.adequate:.3f}"


def rerun_words(policy: str, count: int) -> str:
    """`none`, or `failures, 2 attempts`: the manifest's rerun setting in words."""
    return "none" if policy in ("none", "") else f"{policy}, {count} attempt{'s' if count != 1 else ''}"


def run_completed(f: GateFacts, p: Policy) -> Condition:
    if f.status == "completed":
        return Condition("run_completed", "strong", "completed", "completed", "The run completed.")
    why = f": {f.error}" if f.error else ""
    return Condition("run_completed", "invalid", f.status, "completed",
                     f"The run is {f.status}, not completed{why}; its outcomes are not a measurement.")


def records_intact(f: GateFacts, p: Policy) -> Condition:
    if not f.chain_findings:
        return Condition("records_intact", "strong", "chain intact", "chain intact",
                         "Every chained record row matches its hash.")
    return Condition("records_intact", "invalid", f"{_where(f.chain_findings[0])} altered", "chain intact",
                     altered_sentence(f))


def altered_sentence(f: GateFacts) -> str:
    """What an altered record says first: which row, and the command that names every one."""
    from passgate.core.record.verify import finding_words
    more = len(f.chain_findings) - 1
    return (f"The record was altered: {finding_words(f.chain_findings[0])}"
            + (f" (and {more} more finding{'s' if more != 1 else ''})" if more else "")
            + f"; nothing in it can be trusted as a measurement; `passgate verify {f.run_id}` names every one.")


def _where(finding: dict) -> str:
    return finding["table"] + (f" row {finding['rowid']}" if finding.get("rowid") is not None else "")


def ground_truth_selfcheck(f: GateFacts, p: Policy) -> Condition:
    """Strong only when every reference that fails its own tests is a listed known defect."""
    band = p.evidence.selfcheck_failed_fraction
    sc = f.selfcheck or {}
    if not sc:
        return Condition("ground_truth_selfcheck", "weak", "not recorded", _band_words(band),
                         "No ground-truth self-check is recorded: the grader was never shown to pass correct code.")
    if not sc.get("ran"):
        reason = sc.get("reason", "not run")
        if reason.startswith("the candidates are the references"):
            return Condition("ground_truth_selfcheck", "weak", "reference run not summarised", _band_words(band),
                             "The candidates are the reference solutions, but the run ended before their "
                             "results were summarised.")
        return Condition("ground_truth_selfcheck", "adequate", reason, _band_words(band),
                         f"The grader was not checked against reference solutions ({reason}).")
    refs = int(sc.get("references") or 0)
    bad = sc.get("failed") or []
    unexplained = [x for x in bad if not x.get("known_defect")]
    frac = _ratio(len(unexplained), refs)
    level = _rate(frac, band) if refs else "weak"
    if unexplained and level == "strong":
        level = "adequate"
    what = "reference run" if sc.get("reference_run") else "self-check"
    detail = ""
    if unexplained:
        detail += "; failing with no known defect to explain it: " + ", ".join(
            f"{x.get('task_id', '?')} ({x.get('class')}: {str(x.get('detail') or '')[:80]})" for x in unexplained[:5])
        detail += " ..." if len(unexplained) > 5 else ""
    if len(bad) > len(unexplained):
        detail += "; known defects: " + ", ".join(x.get("task_id", "?") for x in bad if x.get("known_defect"))[:200]
    saw = f"{len(bad)}/{refs} references fail ({len(unexplained)} unexplained)"
    return Condition("ground_truth_selfcheck", level, saw, _band_words(band),
                     f"{refs - len(bad)} of {refs} reference solutions pass their own protected tests ({what}){detail}.")


def verdict_fidelity(f: GateFacts, p: Policy) -> Condition:
    """The isolated verdicts agree with the reference harness's one-process program, or the record
    explains each time they do not."""
    fid = f.fidelity or {}
    checked = int(fid.get("checked") or 0)
    if not checked:
        why = ("the manifest turned the cross-check off" if f.crosscheck == "none" and fid
               else "no cross-check is recorded (the run's grading protocol had none, or it was off)")
        return Condition("verdict_fidelity", "adequate", "not cross-checked", "every disagreement explained",
                         f"Nothing shows the isolated grader gives the reference harness's verdicts: {why}.")
    bad = [d for d in fid.get("disagreements") or [] if not d.get("explained")]
    saw = f"{fid.get('agreed', 0)}/{checked} agree, {len(bad)} unexplained"
    if bad:
        listed = "; ".join(f"{d['task_id']}#{d['candidate_index']}: isolated {_side(d['isolated'])}, "
                           f"one process {_side(d['classic'])}" for d in bad[:3])
        return Condition("verdict_fidelity", "weak", saw, "every disagreement explained",
                         f"The isolated grader and the one-process program disagree where nothing explains it: "
                         f"{listed}{' ...' if len(bad) > 3 else ''}.")
    explained = len(fid.get("disagreements") or [])
    return Condition("verdict_fidelity", "strong", saw, "every disagreement explained",
                     f"{fid.get('agreed', 0)} of {checked} cross-checked attempts agree with the reference harness's "
                     f"one-process program" + (f"; {explained} disagreements are explained by the design" if explained
                                               else "") + ".")


def _side(v: dict) -> str:
    return v["status"] if v["status"] == "passed" else f"{v.get('class')}" + (
        f" ({str(v.get('detail'))[:80]})" if v.get("detail") else "")


def verdict_integrity(f: GateFacts, p: Policy) -> Condition | None:
    """Verdicts the grader decided are stronger evidence than verdicts the candidate's own process
    decided: graded on the slice whose decided assertions ran most in the candidate's process. Tasks
    in other languages record no assertion sites; `language_verdicts` weighs where theirs were decided."""
    if f.languages:
        return None
    band, g = p.evidence.verdict_integrity, f.integrity
    threshold = _band_words(band)          # of the in-process share, slice by slice
    if not g.recorded:
        return Condition("verdict_integrity", "adequate", "not recorded", threshold,
                         f"The run was graded under protocol {g.protocol or 1}, which does not record whether "
                         "assertions were decided outside the candidate's process or in it.")
    decided = [s for s in g.slices if s.decided]
    if not decided:
        counted = sum(s.candidates for s in g.slices)
        return Condition("verdict_integrity", "adequate", "no assertion decided", threshold,
                         f"None of the {counted} counted candidates' verdicts recorded a decided assertion, so "
                         "nothing shows where they were decided.")
    worst = max(decided, key=lambda s: (s.weakest_share, s.name))
    level = _rate(worst.weakest_share, band)
    saw = f"{worst.name}: {worst.in_process}/{worst.decided} in-process ({_pct(worst.in_process_share)})"
    if worst.process_control_share > (worst.in_process_share or 0.0):
        saw = (f"{worst.name}: {worst.process_control}/{worst.candidates} verdicts ended by the candidate's process "
               f"({_pct(worst.process_control_share)})")
    return Condition("verdict_integrity", level, saw, threshold, _integrity_sentence(worst, decided, g.slices))


def _integrity_sentence(worst, decided, slices) -> str:
    """The slice that grades the condition in numbers, then the others and what else weakens them."""
    text = (f"In slice {worst.name}, {worst.in_process} of {worst.decided} decided assertions "
            f"({_pct(worst.in_process_share)}) were decided in the candidate's process and {worst.outside} outside "
            f"it" + (f", {worst.visible} with the expected value visible to it" if worst.visible else ""))
    others = [s for s in decided if s is not worst]
    if others:
        text += "; other slices: " + ", ".join(f"{s.name} {_pct(s.in_process_share)}" for s in others)
    steered = sum(s.process_control for s in slices)
    if steered:
        text += (f"; in {steered} verdict{'s' if steered != 1 else ''} the test's own control flow, in the "
                 "candidate's process, decided which assertions had to run, so the process could have ended the "
                 "test early (counted like an in-process decision)")
    empty = [s.name for s in slices if not s.decided]
    if empty:
        text += "; no assertion was decided in " + ", ".join(empty)
    return text + "."


def boundary_self_probe(f: GateFacts, p: Policy) -> Condition:
    checks = f.probe + f.preflight
    if not f.probe:
        return Condition("boundary_self_probe", "invalid", "no self-probe", "all checks pass",
                         "No boundary self-probe is recorded: nothing shows the sandbox was closed.")
    bad = [c for c in checks if not c.ok]
    if bad:
        listed = "; ".join(f"{c.name} ({c.saw})" for c in bad)
        return Condition("boundary_self_probe", "invalid", f"{len(bad)} of {len(checks)} checks failed",
                         "all checks pass", f"Boundary checks failed: {listed}.")
    return Condition("boundary_self_probe", "strong", f"{len(checks)} checks passed", "all checks pass",
                     f"All {len(f.probe)} self-probe checks inside the sandbox and {len(f.preflight)} container "
                     "checks passed.")


def protected_tests(f: GateFacts, p: Policy) -> Condition:
    if not f.tasks:
        return Condition("protected_tests", "invalid", "no tasks", "every task", "The run recorded no tasks.")
    missing = f.tasks - f.tasks_with_protected
    if missing:
        return Condition("protected_tests", "adequate", f"{f.tasks_with_protected}/{f.tasks} tasks", "every task",
                         f"{missing} of {f.tasks} tasks have no protected tests: they are graded on tests the model saw.")
    return Condition("protected_tests", "strong", f"{f.tasks}/{f.tasks} tasks", "every task",
                     f"All {f.tasks} tasks are graded on protected tests the model never saw.")


def rerun_stability(f: GateFacts, p: Policy) -> Condition:
    need = p.boundaries.rerun_stability.min_attempts
    measured = rerun_words(f.rerun_policy, f.rerun_count)
    wanted = f"failures or all, at least {need} attempts"
    if f.rerun_policy in ("failures", "all") and f.rerun_count >= 2:
        return Condition("rerun_stability", "strong", measured, wanted,
                         f"{'Failing' if f.rerun_policy == 'failures' else 'All'} candidates were run "
                         f"{f.rerun_count} times; disagreeing attempts are counted as flaky, never as passes.")
    return Condition("rerun_stability", "adequate", measured, wanted,
                     "Each candidate was run once: flakiness was not measured.")


def flaky_rate(f: GateFacts, p: Policy) -> Condition:
    band = p.evidence.flaky_rate
    rate = _ratio(f.counts.flaky, f.counts.counted)
    return Condition("flaky_rate", _rate(rate, band), f"{f.counts.flaky}/{f.counts.counted} ({_pct(rate)})",
                     _band_words(band), f"{_pct(rate)} of counted candidates were flaky (attempts disagreed).")


def timeout_rate(f: GateFacts, p: Policy) -> Condition:
    band = p.evidence.timeout_rate
    rate = _ratio(f.counts.timeouts, f.counts.counted)
    return Condition("timeout_rate", _rate(rate, band), f"{f.counts.timeouts}/{f.counts.counted} ({_pct(rate)})",
                     _band_words(band), f"{_pct(rate)} of counted candidates failed by timeout.")


def infra_error_rate(f: GateFacts, p: Policy) -> Condition:
    band = p.evidence.infra_error_rate
    rate = _ratio(f.counts.infra_error, f.counts.executed)
    return Condition("infra_error_rate", _rate(rate, band),
                     f"{f.counts.infra_error}/{f.counts.executed} ({_pct(rate)})", _band_words(band),
                     f"The evaluator failed on {_pct(rate)} of executed candidates (left out of the score).")


def holdout_cleanliness(f: GateFacts, p: Policy) -> Condition:
    held = [s for s in f.slices if s.exposure == "holdout"]
    c = f.contamination
    if not held:
        names = ", ".join(s.name for s in f.slices) or "none"
        return Condition("holdout_cleanliness", "adequate", "no holdout", "clean holdout",
                         f"Every slice is a public benchmark and exposed ({names}): scores may include memorisation.")
    names = {s.name for s in held}
    dirty = [x for x in c.findings if x.slice in names]
    if dirty:
        tasks = sorted({x.task_id for x in dirty})
        kinds = sorted({x.kind for x in dirty})
        return Condition("holdout_cleanliness", "weak", f"{len(tasks)} holdout tasks with findings", "clean holdout",
                         f"The holdout is not clean: {len(tasks)} tasks have contamination findings "
                         f"({', '.join(kinds)}): {', '.join(tasks[:5])}{' ...' if len(tasks) > 5 else ''}.")
    if not c.corpus_checked:
        return Condition("holdout_cleanliness", "adequate", "holdout not checked against a corpus", "clean holdout",
                         "The holdout was not compared with a training or prompt corpus (set gate.contamination_corpus "
                         "or pass --corpus), so its cleanliness is unproven.")
    return Condition("holdout_cleanliness", "strong", "clean", "clean holdout",
                     f"The holdout ({', '.join(sorted(names))}) shows no {c.ngram}-gram overlap with {c.corpus} "
                     "and no candidate reproduces a reference solution.")


def sample_size(f: GateFacts, p: Policy) -> Condition:
    band = p.evidence.tasks
    n = f.score.tasks
    level = "invalid" if n == 0 else _count(n, band)
    return Condition("sample_size", level, f"{n} tasks", f"strong at least {band.strong}, adequate at least {band.adequate}",
                     f"{n} tasks have at least one counted candidate." if n else "No candidate was counted.")


def _wilson_width(p: float, n: int, level: float) -> float:
    z = NormalDist().inv_cdf(0.5 + level / 2)
    return 2 * z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)


def interval_width(f: GateFacts, p: Policy) -> Condition:
    band = p.evidence.interval_width
    s = f.score
    w = s.width
    if w is None or s.pass_at_1 is None:
        return Condition("interval_width", "weak", "no interval", _width_words(band),
                         "No pass@1 interval could be computed.")
    sentence = (f"pass@1 is {s.pass_at_1:.3f} with a {int(round(100 * s.level))}% interval "
                f"[{s.ci_low:.3f}, {s.ci_high:.3f}] (width {w:.3f}).")
    if w == 0 and s.tasks:
        # a bootstrap interval collapses when every task passed (or none did); the Wilson interval over
        # tasks does not, and it is what a sample of this size can support
        w = _wilson_width(s.pass_at_1, s.tasks, s.level)
        sentence += f" The bootstrap collapses at {s.pass_at_1:.0f}; over {s.tasks} tasks the Wilson interval is {w:.3f} wide."
    return Condition("interval_width", _rate(w, band), f"{w:.3f} wide", _width_words(band), sentence)


def language_verdicts(f: GateFacts, p: Policy) -> Condition | None:
    """Tasks in other languages: verdicts decided in-process are forgeable, and a task without a
    reference solution (MultiPL-E) was never shown to pass correct code."""
    if not f.languages:
        return None
    band = p.evidence.in_process_fraction
    tasks = sum(r["tasks"] for r in f.languages.values())
    in_process = sum(r["in_process"] for r in f.languages.values())
    no_reference = tasks - sum(r["with_reference"] for r in f.languages.values())
    frac = _ratio(in_process, tasks)
    level = _rate(frac, band)
    if no_reference and level == "strong":
        level = "adequate"
    per = "; ".join(f"{lang}: {r['in_process']}/{r['tasks']} in-process, {r['with_reference']}/{r['tasks']} with a "
                    f"reference" for lang, r in sorted(f.languages.items()))
    sentence = (f"{in_process} of {tasks} tasks in other languages ({_pct(frac)}) have their protected verdict "
                "decided by the program's own exit status, which a candidate can forge; the rest were judged "
                f"outside the candidate's process ({per})")
    if no_reference:
        sentence += (f". {no_reference} tasks have no reference solution (MultiPL-E gives none): no self-check "
                     "shows the grader passes correct code on them")
    return Condition("language_verdicts", level, f"{in_process}/{tasks} in-process, {no_reference} without a "
                     "reference", _band_words(band), sentence + ".")


CHECKS = (run_completed, records_intact, ground_truth_selfcheck, verdict_fidelity, verdict_integrity,
          boundary_self_probe, protected_tests, rerun_stability, flaky_rate, timeout_rate, infra_error_rate,
          holdout_cleanliness, sample_size, interval_width, language_verdicts)
