"""Markdown for the report's evidence sections beside pass@k: security findings (and the slices and
telemetry added after it). Tables only; the JSON export carries every field."""

from __future__ import annotations

from typing import Any, Mapping

from .markdown_table import table as _table


def _pct(x: Any) -> str:
    return "—" if x is None else f"{100 * x:.1f}%"




def rate_cells(group: Mapping) -> list[str]:
    """candidates, then 'count (rate)' at or above each severity."""
    return [str(group["candidates"])] + [f"{group['with_findings'][s]} ({_pct(group['rate'][s])})"
                                         for s in ("low", "medium", "high")]


def security_md(sec: Mapping | None) -> list[str]:
    out = ["## Security findings (static scan of each program, never executed)", ""]
    if not sec or not sec.get("scanned"):
        return out + [f"Not scanned: {(sec or {}).get('reason', 'no scan in the record')}.", ""]
    scanners = ", ".join(f"{k} {v}" for k, v in sorted(sec["scanners"].items()))
    out += [f"{sec['candidates_scanned']} candidates, {sec['distinct_programs']} distinct programs, scanned with "
            f"{scanners}; {sec['unparsed']} programs could not be parsed. A column counts candidates with a "
            "finding at or above that severity; findings on the task's own lines (preamble, prompt) are left out.",
            ""]
    rows = [["all", "", "passing", *rate_cells(sec["overall"]["passing"])],
            ["all", "", "failing", *rate_cells(sec["overall"]["failing"])]]
    for g in sec["groups"]:
        rows += [[g["slice"], g["model"], "passing", *rate_cells(g["passing"])],
                 [g["slice"], g["model"], "failing", *rate_cells(g["failing"])]]
    out += _table(["slice", "model", "candidates", "n", "≥ low", "≥ medium", "high"], rows)
    if sec["top_rules"]:
        out += ["Top rules:", ""]
        out += _table(["rule", "name", "severity", "scanner", "candidates", "of them passing"],
                      [[r["rule_id"], r["rule"], r["severity"], r["scanner"], r["candidates"], r["passing"]]
                       for r in sec["top_rules"]])
    if sec["examples"]:
        out += ["Candidates with findings (passing ones first, then by severity):", ""]
        out += _table(["task", "candidate", "outcome", "rule", "severity", "confidence", "line", "code"],
                      [[e["task_id"], e["candidate_index"], e["outcome"], e["rule_id"], e["severity"], e["confidence"],
                        e["line"],
                        f"`{e['code']}`" if e["code"] else ""] for e in sec["examples"]])
    return out


def canaries_md(can: Mapping | None) -> list[str]:
    out = ["## Canary tasks (impossible by design; never in pass@k)", ""]
    if not can or not can.get("enabled"):
        return out + ["No canary tasks in this run (manifest `tasks.canaries`).", ""]
    out += [f"{can['passed']} of {can['candidates']} candidates passed a canary ({_pct(can['rate'])}); "
            "a pass means the candidate fitted tests that contradict its task.", ""]
    out += _table(["canary", "impossible because", "candidates", "passed"],
                  [[t["task_id"], t["impossible_because"], t["candidates"], t["passed"]] for t in can["per_task"]])
    if can["findings"]:
        out += ["Candidates that passed a canary:", ""]
        out += _table(["canary", "candidate", "completion (first line)"],
                      [[f["task_id"], f["candidate_index"],
                        f"`{(f['completion'].strip().splitlines() or [''])[0][:120]}`"] for f in can["findings"]])
    return out


def tamper_md(tam: Mapping | None) -> list[str]:
    out = ["## Tamper tripwires (telemetry; verdicts unchanged)", ""]
    if not tam or not tam.get("recorded"):
        return out + [f"Not recorded: {(tam or {}).get('reason', 'no tripwire data')}.", ""]
    out += [f"{tam['with_events']} of {tam['candidates']} counted candidates tripped at least one "
            f"tripwire ({_pct(tam['rate'])}).", ""]
    out += _table(["slice", "model", "candidates", "with events", "rate"],
                  [[g["slice"], g["model"], g["candidates"], g["with_events"], _pct(g["rate"])] for g in tam["groups"]])
    if tam["kinds"]:
        out += _table(["tripwire", "candidates"], [[k["kind"], k["candidates"]] for k in tam["kinds"]])
    if tam["examples"]:
        out += _table(["task", "candidate", "outcome", "events"],
                      [[e["task_id"], e["candidate_index"], e["outcome"], "; ".join(e["events"])[:200]]
                       for e in tam["examples"]])
    return out


def chained_md(ch: Mapping | None) -> list[str]:
    if not ch:
        return []
    level = int(round(ch["level"] * 100))
    out = ["## Chained operations: pass rate per chain depth", ""]
    out += _table(["depth", "tasks", "candidates", "passed", "pass rate", f"{level}% interval"],
                  [[r["depth"], r["tasks"], r["candidates"], r["passed"], f"{r['pass_rate']:.3f}",
                    f"[{r['ci_low']:.3f}, {r['ci_high']:.3f}]"] for r in ch["per_depth"]])
    d = ch["decay"]
    if d["factor"] is not None:
        out += [f"Fitted decay: pass rate = {d['a']:.3f} × {d['factor']:.3f}^(depth − 1); each extra block "
                f"multiplies the pass rate by {d['factor']:.3f} ({level}% interval [{d['ci_low']:.3f}, "
                f"{d['ci_high']:.3f}]).", ""]
    return out


INTEGRITY_COLUMNS = ["slice", "candidates", "with a record", "outside", "visible", "in-process", "in-process share",
                     "process control"]


def integrity_rows(integ: Mapping) -> list[list[Any]]:
    """One row per slice and one for every slice together: how the verdicts' assertions were decided."""
    blocks = [(s["slice"], s) for s in integ["slices"]] + [("all slices", integ["headline"])]
    return [[name, b["candidates"], b["with_record"], b["outside"], b["visible"], b["in_process"],
             _pct(b["in_process_share"]), b["process_control"]] for name, b in blocks]


def integrity_md(integ: Mapping | None) -> list[str]:
    out = ["## Verdict integrity (where the protected tests' assertions were decided)", ""]
    if not integ or not integ.get("recorded"):
        return out + [f"Not recorded: {(integ or {}).get('reason') or 'the record predates it'}.", ""]
    out += ["Assertions of the counted candidates' protected tests, summed. Outside: the grader held the expected "
            "value. Visible: the grader decided, the value was also in the candidate's process. In-process: the "
            "candidate's process decided it. With a record: verdicts whose deciding attempt recorded this (a program "
            "that never reached its test has none). Process control: verdicts where the test's own control flow "
            "decided which assertions had to run.", ""]
    return out + _table(INTEGRITY_COLUMNS, integrity_rows(integ))
