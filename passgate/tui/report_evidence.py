"""Rich tables for the report's evidence sections beside pass@k (security findings, verdict integrity, ...)."""

from __future__ import annotations

from typing import Any, Mapping

from rich.table import Table
from rich.text import Text

from passgate.core.export.evidence_md import INTEGRITY_COLUMNS, integrity_rows

from .report_layout import ByWidth, table


def _pct(x: Any) -> str:
    return "—" if x is None else f"{100 * x:.1f}%"


def _table(title: str, *columns: str) -> Table:
    """Figures whole, words wrapped between words (report_layout.table)."""
    return table(title, *columns, numeric=FIGURES)


FIGURES = {"candidates", "n", "≥ low", "≥ medium", "high", "passing", "cand", "line", "passed", "with events",
           "rate", "depth", "tasks", "pass rate", "fitted", ""}


def _rates(group: Mapping) -> list[str]:
    return [str(group["candidates"])] + [f"{group['with_findings'][s]} ({_pct(group['rate'][s])})"
                                         for s in ("low", "medium", "high")]


def security_parts(report: Mapping) -> list:
    """The rates table (passing and failing apart), the top rules and examples (passing ones first)."""
    sec = report.get("security")
    if not sec or not sec.get("scanned"):
        return [Text(f"Security scan: {(sec or {}).get('reason', 'not in the record')}", style="yellow")]
    scanners = ", ".join(f"{k} {v}" for k, v in sorted(sec["scanners"].items()))
    title = (f"Security findings ({scanners}; {sec['distinct_programs']} distinct programs, "
             f"{sec['unparsed']} unparsed): candidates with a finding at or above")

    def build(with_model: bool) -> Table:
        rates = _table(title, "slice", *(("model",) if with_model else ()), "candidates", "n", "≥ low", "≥ medium",
                       "high")
        for which in ("passing", "failing"):
            rates.add_row("all", *(("",) if with_model else ()), which, *_rates(sec["overall"][which]),
                          style="bold" if which == "passing" else "")
        for g in sec["groups"]:
            for which in ("passing", "failing"):
                rates.add_row(g["slice"], *((g["model"],) if with_model else ()), which, *_rates(g[which]))
        return rates
    rates = ByWidth(lambda: build(True), lambda: build(False))
    parts: list = [rates]
    if sec["top_rules"]:
        rules = _table("Top security rules", "rule", "name", "severity", "scanner", "candidates", "passing")
        for r in sec["top_rules"]:
            rules.add_row(r["rule_id"], r["rule"], r["severity"], r["scanner"], str(r["candidates"]),
                          str(r["passing"]))
        parts.append(rules)
    if sec["examples"]:
        ex = _table("Candidates with findings (passing first, then by severity)", "task", "cand", "outcome", "rule",
                    "severity", "line", "code")
        for e in sec["examples"]:
            ex.add_row(e["task_id"], str(e["candidate_index"]), str(e["outcome"]), e["rule_id"], e["severity"],
                       str(e["line"]), e["code"])
        parts.append(ex)
    return parts


def canary_parts(report: Mapping) -> list:
    """Canary tasks (never in pass@k): candidates and passes per task, then each pass."""
    can = report.get("canaries")
    if not can or not can.get("enabled"):
        return []
    style = "bold red" if can["passed"] else ""
    table = _table(f"Canary tasks: {can['passed']} of {can['candidates']} candidates passed an impossible task",
                   "canary", "impossible because", "candidates", "passed")
    for t in can["per_task"]:
        table.add_row(t["task_id"], t["impossible_because"], str(t["candidates"]),
                      Text(str(t["passed"]), style=style if t["passed"] else ""))
    parts: list = [table]
    if can["findings"]:
        found = _table("Candidates that passed a canary", "canary", "cand", "completion (first line)")
        for f in can["findings"]:
            found.add_row(f["task_id"], str(f["candidate_index"]),
                          (f["completion"].strip().splitlines() or [""])[0][:120])
        parts.append(found)
    return parts


def tamper_parts(report: Mapping) -> list:
    """Tamper tripwires per slice, by kind, and the candidates that tripped them (verdicts unchanged)."""
    tam = report.get("tamper")
    if not tam or not tam.get("recorded"):
        return []
    def build(with_model: bool) -> Table:
        out = _table(f"Tamper tripwires (telemetry): {tam['with_events']} of {tam['candidates']} candidates",
                     "slice", *(("model",) if with_model else ()), "candidates", "with events", "rate")
        for g in tam["groups"]:
            out.add_row(g["slice"], *((g["model"],) if with_model else ()), str(g["candidates"]),
                        str(g["with_events"]), _pct(g["rate"]))
        return out
    table = ByWidth(lambda: build(True), lambda: build(False))
    parts: list = [table]
    if tam["kinds"]:
        kinds = _table("Tripwires by kind", "tripwire", "candidates")
        for k in tam["kinds"]:
            kinds.add_row(k["kind"], str(k["candidates"]))
        parts.append(kinds)
    if tam["examples"]:
        ex = _table("Candidates with tripwire events", "task", "cand", "outcome", "events")
        for e in tam["examples"]:
            ex.add_row(e["task_id"], str(e["candidate_index"]), str(e["outcome"]), "; ".join(e["events"])[:200])
        parts.append(ex)
    return parts


def chained_parts(report: Mapping, bar) -> list:
    """Pass rate per chain depth as bars with intervals, the fitted curve beside it, and the decay factor."""
    ch = report.get("chained")
    if not ch:
        return []
    d = ch["decay"]
    level = int(round(ch["level"] * 100))
    table = _table("Chained operations: pass rate per depth", "depth", "tasks", "pass rate", f"{level}% interval",
                   "", "fitted")
    for r in ch["per_depth"]:
        fitted = d["a"] * d["factor"] ** (r["depth"] - 1) if d["factor"] is not None else None
        table.add_row(str(r["depth"]), str(r["tasks"]), f"{r['pass_rate']:.3f}",
                      f"[{r['ci_low']:.3f}, {r['ci_high']:.3f}]", bar(r["pass_rate"]),
                      "—" if fitted is None else f"{fitted:.3f}")
    parts: list = [table]
    if d["factor"] is not None:
        parts.append(Text(f"Each extra block multiplies the pass rate by {d['factor']:.3f} "
                          f"({level}% interval [{d['ci_low']:.3f}, {d['ci_high']:.3f}]).", style="bold"))
    return parts


def integrity_parts(report: Mapping) -> list:
    """Per slice, where the protected tests' assertions were decided: outside the candidate's process,
    visible to it, or in it; a run graded before protocol 3 says so rather than showing zeros."""
    integ = report.get("integrity")
    if not integ or not integ.get("recorded"):
        why = (integ or {}).get("reason") or "the record predates it"
        return [Text(f"Verdict integrity: not recorded ({why}).", style="yellow")]
    title = "Verdict integrity: where the protected tests' assertions were decided"
    rows = integrity_rows(integ)

    def wide() -> Table:
        out = _table(title, *INTEGRITY_COLUMNS)
        for i, row in enumerate(rows):
            out.add_row(*(str(c) for c in row), style="bold" if i == len(rows) - 1 else "")
        return out

    def narrow() -> Table:
        """The three counts of decided assertions in one column: the eight columns' headings do not fit
        whole in 80 columns ("in-process" twice)."""
        out = _table(title, "slice", "candidates", "with a record", "outside · visible · in-process",
                     "in-process share", "process control")
        for i, (name, cands, with_record, outside, visible, in_process, share, control) in enumerate(rows):
            out.add_row(str(name), str(cands), str(with_record), f"{outside} · {visible} · {in_process}", str(share),
                        str(control), style="bold" if i == len(rows) - 1 else "")
        return out
    return [ByWidth(wide, narrow)]


def _fig(x: Any) -> str:
    return "—" if x is None else f"{x:.3f}"


def language_parts(report: Mapping) -> list:
    """Per language: pass@1 with its denominator and interval, where verdicts were decided, the
    references the self-check had, then compile and run time and the failure classes."""
    lang = report.get("languages")
    if not lang:
        return []
    level = int(round(lang["level"] * 100))
    scores = _table("Languages: pass@1 per language", "language", "passed", "pass@1", f"{level}% interval",
                    "in-process", "refs")
    for r in lang["per_language"]:
        ip = r["integrity"]["in_process"]
        scores.add_row(r["title"], f"{r['passed']}/{r['candidates']}", _fig(r["pass_at_1"]),
                       "—" if r["ci_low"] is None else f"[{r['ci_low']:.3f}, {r['ci_high']:.3f}]",
                       Text(f"{ip['tasks']}/{r['tasks']}", style="yellow" if ip["tasks"] else ""),
                       Text(f"{r['with_reference']}/{r['tasks']}", style="" if r["with_reference"] else "yellow"))
    times = _table("Languages: time per attempt (median, p95) and failures", "language", "compile s", "run s",
                   "failures")
    for r in lang["per_language"]:
        t = r["timing"]

        def spread(name, t=t):
            return "—" if name not in t else f"{t[name]['median']:.2f}, {t[name]['p95']:.2f}"
        times.add_row(r["title"], spread("compile_s"), spread("run_s"),
                      ", ".join(f"{k} {v}" for k, v in r["classes"].items()) or "none")
    note = Text("in-process: the dataset's own program decided by its exit status (a candidate can forge it); "
                "the rest were judged outside the candidate's process. refs: tasks with a reference solution "
                "for the self-check.", style="dim")
    return [scores, times, note]
