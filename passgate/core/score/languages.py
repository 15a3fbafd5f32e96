"""The report's `languages` section: per language, pass@1 with its denominator and interval, where
the verdicts were decided (integrity), whether a self-check could cover it, its failure classes and
its compile and run time apart.

A task's language, dataset and protected-suite integrity are its tags (core/tasks/languages.py);
the time of each attempt is in its execution's evidence (`language.compile_s`, `run_s`).
Integrity `outside`: the expected values stayed with the grader and the candidate's process only
reported values; `in_process`: the dataset's own program decided by its exit status, which a
candidate can forge; such verdicts are weaker evidence (the gate says so).
"""

from __future__ import annotations

import json
from collections import defaultdict

import numpy as np

from passgate.core.languages.names import title
from passgate.core.record.queries import sections as q

from .report_types import LanguageRate, LanguagesSection, LanguageTiming


def _tag(tags, prefix: str) -> str | None:
    return next((t[len(prefix):] for t in tags or () if isinstance(t, str) and t.startswith(prefix)), None)


def languages_section(store, run_id: str, recs, spec) -> LanguagesSection | None:
    """Per language, or None when the run has no task in another language."""
    langs = np.array([_tag(t, "language:") or "" for t in recs.tags])
    if not (langs != "").any():
        return None
    integrity = np.array([_tag(t, "integrity:") or "" for t in recs.tags])
    datasets = [_tag(t, "dataset:") or "" for t in recs.tags]
    refs = q.tasks_with_reference(store, run_id)
    classes = _classes(store, run_id)
    timing = _timing(store, run_id)
    rows = []
    for lang in sorted(set(langs.tolist()) - {""}):
        at = langs == lang
        ids = recs.task_ids[at].tolist()
        row = {"language": lang, "title": title(lang),
               "datasets": sorted({datasets[i] for i in np.flatnonzero(at)}),
               **_rate(recs, at, spec, seed=len(rows)),
               "integrity": {level: _rate(recs, at & (integrity == level), spec, seed=len(rows))
                             for level in ("outside", "in_process")},
               "with_reference": sum(1 for t in ids if t in refs),
               "classes": dict(sorted(_sum(classes, ids).items())),
               "timing": _time_summary([timing[t] for t in ids if t in timing])}
        row["in_process_fraction"] = row["integrity"]["in_process"]["tasks"] / row["tasks"] if row["tasks"] else None
        rows.append(row)
    return {"per_language": rows, "level": spec.level,
            "integrity_words": {"outside": "expected values stayed with the grader; the candidate's process only "
                                           "reported its answers",
                                "in_process": "the dataset's own program decided by its exit status (forgeable)"}}


def _rate(recs, at: np.ndarray, spec, *, seed: int) -> LanguageRate:
    """pass@1 (the mean over counted tasks of c/n) with a bootstrap interval over those tasks."""
    counted = at & (recs.n > 0)
    tasks = int(at.sum())
    out = {"tasks": tasks, "counted_tasks": int(counted.sum()), "candidates": int(recs.n[at].sum()),
           "passed": int(recs.c[at].sum()), "pass_at_1": None, "ci_low": None, "ci_high": None}
    if not counted.any():
        return out
    values = recs.c[counted] / recs.n[counted]
    rng = np.random.default_rng([spec.seed, 2100 + seed])
    reps = values[rng.integers(0, values.size, size=(spec.resamples, values.size))].mean(axis=1)
    alpha = (1 - spec.level) / 2
    lo, hi = np.quantile(reps, [alpha, 1 - alpha])
    out.update(pass_at_1=float(values.mean()), ci_low=float(lo), ci_high=float(hi))
    return out


def _classes(store, run_id: str) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = defaultdict(dict)
    for r in q.failed_class_counts(store, run_id):
        out[r.task_id][r.failure_class or "failed"] = r.n
    return out


def _sum(classes: dict[str, dict[str, int]], ids: list[str]) -> dict[str, int]:
    total: dict[str, int] = defaultdict(int)
    for t in ids:
        for cls, n in classes.get(t, {}).items():
            total[cls] += n
    return total


def _timing(store, run_id: str) -> dict[str, list[tuple[float, float, float, float]]]:
    """Per task, each graded attempt's (compile wall, run wall, compile CPU, run CPU) in seconds."""
    out: dict[str, list] = defaultdict(list)
    for r in q.language_attempt_evidence(store, run_id):
        lang = (json.loads(r.evidence_json or "{}") or {}).get("language") or {}
        out[r.task_id].append((float(lang.get("compile_s") or 0), float(lang.get("run_s") or 0),
                               float(lang.get("compile_cpu_s") or 0), float(lang.get("run_cpu_s") or 0)))
    return out


def _time_summary(per_task: list[list[tuple]]) -> LanguageTiming:
    attempts = np.array([a for rows in per_task for a in rows], dtype=float).reshape(-1, 4)
    if not len(attempts):
        return {"attempts": 0}
    out: LanguageTiming = {"attempts": int(len(attempts))}
    for j, name in enumerate(("compile_s", "run_s", "compile_cpu_s", "run_cpu_s")):
        col = attempts[:, j]
        out[name] = {"total": round(float(col.sum()), 3), "median": round(float(np.median(col)), 4),
                     "p95": round(float(np.quantile(col, 0.95)), 4)}
    return out
