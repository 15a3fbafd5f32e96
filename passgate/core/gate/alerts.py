"""Alerts against a baseline run on the same tasks; thresholds and caps come from the policy.

Each alert compares one measure of the run with the baseline's. A raised alert caps the release
consequence at the policy's `cap` for it (release: reported only). pass@1 alerts need the paired
bootstrap interval of the change to exclude zero, so noise alone never raises them.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from ..errors import PassgateError
from .facts import GateFacts
from .policy import AlertRule, Policy
from .stats import paired_delta


class BaselineMismatch(PassgateError):
    """The baseline is not on the same task set as the run."""
    title = "baseline is not comparable"


@dataclass(frozen=True)
class Alert:
    name: str
    raised: bool
    run: float | None
    baseline: float | None
    change: float | None
    threshold: float
    cap: str
    sentence: str
    interval: tuple | None = None

    def as_dict(self) -> dict:
        return asdict(self)


def _ratio(num: int, den: int) -> float | None:
    return num / den if den else None


def measures(f: GateFacts) -> dict[str, float | None]:
    """The per-run measures alerts compare."""
    c = f.counts
    gap = None
    if c.public_graded:
        gap = (c.public_passed - c.protected_passed_of_public) / c.public_graded
    return {
        "timeout_rate": _ratio(c.timeouts, c.counted),
        "protected_test_gap": gap,
        "sandbox_violations": _ratio(c.sandbox_violations, c.executed),
        "contamination_findings": float(len(f.contamination.findings)),
        "evaluator_flakiness": _ratio(c.flaky + c.infra_error, c.executed),
        "security_findings": f.security.passing_rate,
        "tamper_events": None if f.tamper_candidates is None else
        _ratio(f.tamper_candidates, c.counted + f.canaries.candidates),
        "disallowed_imports": _ratio(f.contract.disallowed_imports, f.contract.counted) if f.contract.recorded
        else None,
    }


_WORDS = {
    "timeout_rate": "timeout rate",
    "protected_test_gap": "protected-test gap (public minus protected pass rate)",
    "sandbox_violations": "sandbox-violation rate",
    "contamination_findings": "contamination findings",
    "evaluator_flakiness": "evaluator flakiness (flaky + infra-error rate)",
    "security_findings": "share of passing candidates with a security finding",
    "tamper_events": "share of candidates that tripped a tamper tripwire",
    "disallowed_imports": "share of candidates that imported a module their task does not allow",
}


def check_same_tasks(run: GateFacts, base: GateFacts) -> None:
    only_run = sorted(set(run.per_task) - set(base.per_task))
    only_base = sorted(set(base.per_task) - set(run.per_task))
    if only_run or only_base:
        def some(ids):
            return f" ({', '.join(ids[:3])}{' ...' if len(ids) > 3 else ''})" if ids else ""
        raise BaselineMismatch(
            f"baseline {base.run_id} is on a different task set: {len(only_run)} tasks only in {run.run_id}"
            f"{some(only_run)}, {len(only_base)} only in the baseline{some(only_base)}; "
            "compare runs of the same task sets")
    changed = sorted(t for t in run.per_task if run.per_task[t][3:] != base.per_task[t][3:])
    if changed:
        raise BaselineMismatch(f"{len(changed)} tasks differ in content between {run.run_id} and baseline "
                               f"{base.run_id} (e.g. {changed[0]}): a different dataset revision is not a baseline")


def compare(run: GateFacts, base: GateFacts, policy: Policy) -> list[Alert]:
    """Every alert the policy defines, raised or not, each with its sentence."""
    check_same_tasks(run, base)
    alerts = _pass_at_1(run, base, policy)
    now, then = measures(run), measures(base)
    for name, words in _WORDS.items():
        rule: AlertRule = getattr(policy.alerts, name)
        a, b = now[name], then[name]
        if a is None or b is None:
            alerts.append(Alert(name, False, a, b, None, rule.threshold, rule.cap,
                                f"The {words} cannot be compared: one of the runs has nothing to measure."))
            continue
        change = a - b
        raised = change > rule.threshold
        fmt = (lambda x: f"{x:g}") if name == "contamination_findings" else (lambda x: f"{100 * x:.1f}%")
        what = f"The {words} went from {fmt(b)} to {fmt(a)}"
        sentence = (f"{what}, up by more than {fmt(rule.threshold)}: at best {rule.cap}." if raised
                    else f"{what}: within the threshold ({fmt(rule.threshold)}).")
        alerts.append(Alert(name, raised, a, b, change, rule.threshold, rule.cap, sentence))
    if run.contamination.corpus != base.contamination.corpus:
        note = " (the runs were checked against different corpora)"
        alerts = [Alert(**{**x.as_dict(), "sentence": x.sentence + note}) if x.name == "contamination_findings"
                  else x for x in alerts]
    return alerts


def _pass_at_1(run: GateFacts, base: GateFacts, policy: Policy) -> list[Alert]:
    d = paired_delta(base.per_task, run.per_task, run.interval)
    drop, rise = policy.alerts.pass_at_1_drop, policy.alerts.pass_at_1_rise
    a, b = run.score.pass_at_1, base.score.pass_at_1
    if d["delta"] is None or d["ci_low"] is None:
        sentence = "pass@1 cannot be compared: no task has counted candidates in both runs."
        return [Alert("pass_at_1_drop", False, a, b, None, drop.threshold, drop.cap, sentence),
                Alert("pass_at_1_rise", False, a, b, None, rise.threshold, rise.cap, sentence)]
    delta, lo, hi = d["delta"], d["ci_low"], d["ci_high"]
    pct = int(round(100 * d["level"]))
    where = (f"pass@1 changed by {delta:+.3f} over {d['tasks']} paired tasks "
             f"({pct}% paired interval [{lo:+.3f}, {hi:+.3f}]")
    fell = hi < 0 and -delta > drop.threshold
    rose = lo > 0 and delta > rise.threshold
    excl = "excludes zero)" if (hi < 0 or lo > 0) else "includes zero)"
    out = [
        Alert("pass_at_1_drop", fell, a, b, delta, drop.threshold, drop.cap,
              f"{where}, {excl}" + (f": a real drop, at best {drop.cap}." if fell else ": no significant drop."),
              (lo, hi)),
        Alert("pass_at_1_rise", rose, a, b, delta, rise.threshold, rise.cap,
              f"{where}, {excl}" + (f": a real rise; check contamination (at best {rise.cap})." if rose
                                   else ": no significant rise."), (lo, hi)),
    ]
    return out
