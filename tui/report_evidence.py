"""Rich tables for the report's evidence sections beside pass@k (security findings, ...)."""

from __future__ import annotations

from typing import Any, Mapping

from rich import box
from rich.table import Table
from rich.text import Text


def _pct(x: Any) -> str:
    return "—" if x is None else f"{100 * x:.1f}%"


def _table(title: str, *columns: str) -> Table:
    table = Table(title=title, title_justify="left", title_style="bold", box=box.SIMPLE_HEAD)
    for col in columns:
        table.add_column(col, overflow="fold")
    return table


def _rates(group: Mapping) -> list[str]:
    return [str(group["candidates"])] + [f"{group['with_findings'][s]} ({_pct(group['rate'][s])})"
                                         for s in ("low", "medium", "high")]


def security_parts(report: Mapping) -> list:
    """The rates table (passing and failing apart), the top rules and the worst passing examples."""
    sec = report.get("security")
    if not sec or not sec.get("scanned"):
        return [Text(f"Security scan: {(sec or {}).get('reason', 'not in the record')}", style="yellow")]
    scanners = ", ".join(f"{k} {v}" for k, v in sorted(sec["scanners"].items()))
    rates = _table(f"Security findings ({scanners}; {sec['distinct_programs']} distinct programs, "
                   f"{sec['unparsed']} unparsed): candidates with a finding at or above",
                   "slice", "model", "candidates", "n", "≥ low", "≥ medium", "high")
    for which in ("passing", "failing"):
        rates.add_row("all", "", which, *_rates(sec["overall"][which]),
                      style="bold" if which == "passing" else "")
    for g in sec["groups"]:
        for which in ("passing", "failing"):
            rates.add_row(g["slice"], g["model"], which, *_rates(g[which]))
    parts: list = [rates]
    if sec["top_rules"]:
        rules = _table("Top security rules", "rule", "name", "severity", "scanner", "candidates", "passing")
        for r in sec["top_rules"]:
            rules.add_row(r["rule_id"], r["rule"], r["severity"], r["scanner"], str(r["candidates"]),
                          str(r["passing"]))
        parts.append(rules)
    if sec["examples"]:
        ex = _table("Passing candidates with findings (worst first)", "task", "cand", "rule", "severity", "line",
                    "code")
        for e in sec["examples"]:
            ex.add_row(e["task_id"], str(e["candidate_index"]), e["rule_id"], e["severity"], str(e["line"]),
                       e["code"])
        parts.append(ex)
    return parts
