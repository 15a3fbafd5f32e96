"""Latency as release evidence: the policy's budgets as conditions, and the alert on a slower run.

A budget (policy `latency.budgets`) names a measure, a percentile, a limit and optionally a slice.
Its condition is strong when the percentile's whole interval lies within the budget, adequate when
only the point does (the interval reaches past it, or is open for want of completions), weak when
the point is past it or the run recorded no such latency: a suggestion that comes too late is worth
nothing, and an unmeasured one proves nothing. The alert compares the p90 of the first token (the
whole answer where nothing was streamed) with the baseline's: raised when it rose by more than the
threshold's fraction and the two intervals do not overlap, so noise alone never raises it.
"""

from __future__ import annotations

from passgate.core.score.latency import budget_value

from .alerts import Alert
from .evidence import Condition
from .facts import GateFacts
from .policy import LatencyBudget, Policy

_LEVELS = ("weak", "adequate", "strong")
_WORDS = {"first_token_ms": "time to first token", "total_ms": "total latency", "tokens_per_s": "tokens per second"}


def latency_conditions(facts: GateFacts, policy: Policy) -> list[Condition]:
    """One condition over every budget of the policy (none when it sets no budget)."""
    budgets = policy.latency.budgets
    if not budgets:
        return []
    graded = [_grade(facts.latency, b) for b in budgets]
    level = min((g[0] for g in graded), key=_LEVELS.index)
    return [Condition("latency_budget", level, "; ".join(g[1] for g in graded),
                      "; ".join(_threshold(b) for b in budgets), " ".join(g[2] for g in graded))]


def _unit(measure: str) -> str:
    return " tokens/s" if measure == "tokens_per_s" else " ms"


def _threshold(b: LatencyBudget) -> str:
    where = f" ({b.slice})" if b.slice else ""
    return f"p{b.percentile} {b.measure}{where} {'>=' if b.measure == 'tokens_per_s' else '<='} {b.limit:g}"


def _grade(section: dict, b: LatencyBudget) -> tuple[str, str, str]:
    what = f"p{b.percentile} {_WORDS[b.measure]}" + (f" on {b.slice}" if b.slice else "")
    v = budget_value(section, b.measure, b.percentile, b.slice)
    if v is None or not v.get("n"):
        return "weak", f"{what}: not recorded", (f"No {_WORDS[b.measure]} was recorded" + (
            f" for slice {b.slice}" if b.slice else "") + f": the budget {_threshold(b)} cannot be checked.")
    floor = b.measure == "tokens_per_s"
    unit = _unit(b.measure)
    ok = v["value"] >= b.limit if floor else v["value"] <= b.limit
    far = v["ci_low"] if floor else v["ci_high"]
    sure = far is not None and (far >= b.limit if floor else far <= b.limit)
    shown = f"{v['value']:.1f}{unit} [{_bound(v['ci_low'])}, {_bound(v['ci_high'])}]"
    measured = f"{what} {shown} over {v['n']}"
    if not ok:
        return "weak", measured, (f"The {what} is {v['value']:.1f}{unit}, past the budget of {b.limit:g}{unit} "
                                  f"({v['n']} completions).")
    if not sure:
        return "adequate", measured, (f"The {what} is {v['value']:.1f}{unit}, within the budget of {b.limit:g}{unit}, "
                                      f"but its interval {shown} reaches past it or is open ({v['n']} completions).")
    return "strong", measured, (f"The {what} is {v['value']:.1f}{unit} with its interval {shown} within the budget "
                                f"of {b.limit:g}{unit} ({v['n']} completions).")


def _bound(x) -> str:
    return "open" if x is None else f"{x:.1f}"


def headline_p90(section: dict) -> tuple[str, dict] | None:
    """(measure, p90 figure) the alert compares: first token where streamed, else the whole answer."""
    if not section:
        return None
    for measure in ("first_token_ms", "total_ms"):
        summ = section["overall"][measure]
        if summ["n"]:
            return measure, summ["p90"]
    return None


def latency_alerts(run: GateFacts, base: GateFacts, policy: Policy) -> list[Alert]:
    """The latency_p90_rise alert, raised or not, with its sentence."""
    rule = policy.alerts.latency_p90_rise
    now, then = headline_p90(run.latency), headline_p90(base.latency)
    if now is None or then is None or now[0] != then[0]:
        return [Alert("latency_p90_rise", False, None if now is None else now[1]["value"],
                      None if then is None else then[1]["value"], None, rule.threshold, rule.cap,
                      "p90 latency cannot be compared: one of the runs recorded none, or one was streamed and "
                      "the other not.")]
    measure, a, b = now[0], now[1], then[1]
    change = (a["value"] - b["value"]) / b["value"] if b["value"] else None
    apart = a["ci_low"] is not None and b["ci_high"] is not None and a["ci_low"] > b["ci_high"]
    raised = change is not None and change > rule.threshold and apart
    what = (f"p90 {_WORDS[measure]} went from {b['value']:.1f} ms [{_bound(b['ci_low'])}, {_bound(b['ci_high'])}] "
            f"to {a['value']:.1f} ms [{_bound(a['ci_low'])}, {_bound(a['ci_high'])}]")
    if raised:
        sentence = (f"The {what}, up {100 * change:.0f}% (more than {100 * rule.threshold:.0f}%), intervals apart: "
                    f"at best {rule.cap}.")
    else:
        why = "intervals overlap" if not apart else f"within {100 * rule.threshold:.0f}%"
        sentence = f"The {what}: {why}."
    return [Alert("latency_p90_rise", raised, a["value"], b["value"], change, rule.threshold, rule.cap, sentence,
                  (a["ci_low"], a["ci_high"]))]
