"""What-if lab: re-score a run from its record under other settings, executing nothing again.

A scenario is one string of `key=value` settings separated by `;` or spaces:

    k=1,5                   other k values
    aggregation=micro       micro | macro
    slices=humaneval        only these slices (equal weights), or slices=humaneval:2,mbpp:1 (weights)
    timeout=1.5             a stricter CPU limit in seconds for every task; timeout=0.5x scales each
                            task's calibrated limit. A pass whose deciding attempt used more CPU
                            becomes a timeout failure; an attempt's cost is capped at the limit.
    verifier=public         public tests only as the verdict (or protected, the default)
    candidates=10           only the first N candidates (by candidate_index) of each task
    secure=high             secure pass@k: a pass whose program has a security finding of this
                            severity or above (low | medium | high) counts as a failure

A limit can only tighten the record: a failure recorded at the run's own limit stays a failure.
Each scenario reports pass@k beside the run's own figure at the same k, and the execution cost.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Mapping, Sequence

import numpy as np

from passgate.core.errors import ConfigError
from passgate.core.record.queries import report as queries

from .data import Rescore, RunRecords, load_records
from .points import point_scores
from .report_types import WhatIf, WhatIfCost, WhatIfRow, WhatIfSettings, WhatIfTimeouts
from .scoring import AGGREGATIONS
from .security import SEVERITIES, insecure_passes

KEYS = ("k", "aggregation", "slices", "timeout", "verifier", "candidates", "secure")
_ALIASES = {"agg": "aggregation", "n": "candidates", "slice": "slices", "limit": "timeout"}


@dataclass(frozen=True)
class Scenario:
    """One what-if: every field left None keeps the run's own setting."""

    label: str
    k: tuple[int, ...] | None = None
    aggregation: str | None = None
    slices: Mapping[str, float] | None = None
    cpu_limit_s: float | None = None
    cpu_limit_factor: float | None = None
    verifier: str | None = None
    candidates: int | None = None
    secure: str | None = None          # severity floor of findings that turn a pass into a failure

    def rescore(self) -> Rescore:
        return Rescore(cpu_limit_s=self.cpu_limit_s, cpu_limit_factor=self.cpu_limit_factor,
                       max_candidates=self.candidates, verifier=self.verifier or "protected")

    def settings(self) -> WhatIfSettings:
        return {k: (dict(v) if isinstance(v, Mapping) else list(v) if isinstance(v, tuple) else v)
                for k, v in self.__dict__.items() if k != "label" and v is not None}


def _bad(text: str, why: str) -> ConfigError:
    return ConfigError(f"{why} (in {text!r}); settings are {', '.join(KEYS)}, e.g. 'k=1,5' or 'timeout=1.5'",
                       field="--whatif")


def parse_scenario(text: str) -> Scenario:
    """Parse `key=value` settings; raises ConfigError naming the bad setting."""
    items = [p for p in re.split(r"[;\s]+", text.strip()) if p]
    if not items:
        raise _bad(text, "empty scenario")
    fields: dict = {}
    for item in items:
        key, sep, value = item.partition("=")
        key = _ALIASES.get(key.strip().lower(), key.strip().lower())
        if not sep or key not in KEYS or not value:
            raise _bad(text, f"unknown setting {item!r}")
        if key in fields or (key == "timeout" and ("cpu_limit_s" in fields or "cpu_limit_factor" in fields)):
            raise _bad(text, f"{key} given twice")
        fields.update(_parse_value(text, key, value.strip()))
    return Scenario(label=" ".join(items), **fields)


def _parse_value(text: str, key: str, value: str) -> dict:
    try:
        if key == "k":
            ks = tuple(sorted({int(v) for v in value.split(",") if v}))
            if not ks or min(ks) < 1:
                raise ValueError
            return {"k": ks}
        if key == "aggregation":
            if value not in AGGREGATIONS:
                raise ValueError
            return {"aggregation": value}
        if key == "verifier":
            if value not in ("public", "protected"):
                raise ValueError
            return {"verifier": value}
        if key == "secure":
            if value not in SEVERITIES:
                raise ValueError
            return {"secure": value}
        if key == "candidates":
            if int(value) < 1:
                raise ValueError
            return {"candidates": int(value)}
        if key == "timeout":
            if value.endswith("x"):
                factor = float(value[:-1])
                if factor <= 0:
                    raise ValueError
                return {"cpu_limit_factor": factor}
            seconds = float(value[:-1] if value.endswith("s") else value)
            if seconds <= 0:
                raise ValueError
            return {"cpu_limit_s": seconds}
        weights = {}
        for part in value.split(","):
            name, _, weight = part.partition(":")
            weights[name] = float(weight) if weight else 1.0
            if weights[name] < 0:
                raise ValueError
        return {"slices": weights}
    except ValueError:
        raise _bad(text, f"bad value {value!r} for {key}") from None


def run_whatifs(store, run_id: str, base: RunRecords, config, specs: Sequence[str], *,
                parallel: bool = True) -> list[WhatIf]:
    """Each scenario re-scored from the record, beside the run's own figures."""
    scenarios = [parse_scenario(s) for s in specs]   # all parsed before any work
    return [run_whatif(store, run_id, base, config, s, parallel=parallel) for s in scenarios]


def run_whatif(store, run_id: str, base: RunRecords, config, scenario: Scenario, *, parallel: bool = True) -> WhatIf:

    rescore = scenario.rescore()
    if rescore.limited or rescore.max_candidates is not None:
        recs = load_records(store, run_id, rescore, parallel=parallel)
    else:
        recs = replace(base, rescore=rescore)
    insecure = None
    if scenario.secure is not None:
        recs, insecure = _without_insecure_passes(store, run_id, recs, scenario.secure)
    ks = scenario.k or config.k
    rule = scenario.aggregation or config.aggregation
    weights = dict(scenario.slices) if scenario.slices is not None else dict(config.weights)
    unknown = sorted(set(weights) - set(recs.slices.tolist())) if scenario.slices is not None else []
    if unknown:
        raise ConfigError(f"no slice named {', '.join(unknown)} in this run (it has "
                          f"{', '.join(sorted(set(recs.slices.tolist())))})", field="--whatif slices")
    mask = np.isin(recs.slices, [s for s, w in weights.items() if w > 0]) if scenario.slices is not None \
        else np.ones(recs.task_ids.size, dtype=bool)
    now = point_scores(recs, ks, weights, mask)
    before = point_scores(base, ks, config.weights)
    rows: list[WhatIfRow] = []
    for row, old in zip(now, before):
        value, baseline = row[rule]["value"], old[config.aggregation]["value"]
        rows.append({"k": row["k"], "value": value, "baseline": baseline,
                     "delta": None if value is None or baseline is None else value - baseline,
                     "micro": row["micro"]["value"], "macro": row["macro"]["value"],
                     "denominator": row["denominator"]})
    return {"scenario": scenario.label, "settings": scenario.settings(), "aggregation": rule,
            "baseline_aggregation": config.aggregation, "tasks": int(mask.sum()), "pass_at_k": rows,
            "cost": _cost(recs, base, mask, scenario), "timeouts": _timeouts(recs, mask),
            **({"insecure_passes": int(insecure[mask].sum())} if insecure is not None else {})}


def _without_insecure_passes(store, run_id: str, recs: RunRecords, severity: str) -> tuple[RunRecords, np.ndarray]:
    """The records with every pass whose program has a finding >= severity counted as a failure."""
    if not queries.has_security_scan(store, run_id):
        raise ConfigError("secure= needs the run's security scan, and this run has none "
                          "(scoring.security.scan was off or the record predates it)", field="--whatif secure")
    found = insecure_passes(store, run_id, severity, recs.task_ids.tolist(), recs.rescore.limits,
                            recs.rescore.max_candidates)
    arrays = dict(recs.arrays)
    arrays["c"] = np.maximum(arrays["c"] - found["protected"], 0)
    arrays["c_public"] = np.maximum(arrays["c_public"] - found["public"], 0)
    dropped = found["public"] if recs.rescore.verifier == "public" else found["protected"]
    return replace(recs, arrays=arrays), dropped


def _cost(recs: RunRecords, base: RunRecords, mask: np.ndarray, scenario: Scenario) -> WhatIfCost:
    cpu, before = float(recs["cpu_s"][mask].sum()), float(base["cpu_s"].sum())
    notes = []
    if scenario.cpu_limit_s is not None or scenario.cpu_limit_factor is not None:
        notes.append("each attempt's CPU time capped at the new limit")
    if scenario.verifier == "public":
        notes.append("the record holds one CPU figure per attempt for both suites: public-only cost "
                     "is not separable and is shown unchanged")
    return {"sandbox_cpu_s": cpu, "baseline_sandbox_cpu_s": before, "delta_cpu_s": cpu - before,
            "ratio": cpu / before if before else None, "attempts": int(recs["attempts"][mask].sum()),
            "baseline_attempts": int(base["attempts"].sum()), "notes": notes}


def _timeouts(recs: RunRecords, mask: np.ndarray) -> WhatIfTimeouts:
    counted = int(recs["n"][mask].sum())
    count = int(recs["timeouts"][mask].sum())
    return {"count": count, "rate": count / counted if counted else None,
            "passes_turned_timeouts": int(recs["rescored"][mask].sum())}
