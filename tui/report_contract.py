"""Rich tables for the report's `contract` section: disallowed imports and signature findings."""

from __future__ import annotations

from typing import Mapping

from rich import box
from rich.table import Table
from rich.text import Text


def _table(title: str, *columns: str) -> Table:
    table = Table(title=title, title_justify="left", title_style="bold", box=box.SIMPLE_HEAD)
    for col in columns:
        table.add_column(col, overflow="fold")
    return table


def _modules(counts: Mapping) -> str:
    return ", ".join(f"{m} {n}" for m, n in counts.items()) or "—"


def contract_parts(report: Mapping) -> list:
    """Per slice and model: disallowed imports (counted in pass@k) with the modules, what the text
    names, signature findings; then examples of each."""
    con = report.get("contract")
    if not con or not con.get("recorded"):
        return []
    table = _table("Task contract: imports and entry-point signature", "slice", "model", "allowed", "candidates",
                   "disallowed_import", "modules (run)", "named in text", "modules (text)", "signature changed")
    for g in con["groups"]:
        style = "bold red" if g["disallowed_import"] else ""
        table.add_row(g["slice"], g["model"], g["allowed_imports"], str(g["candidates"]),
                      Text(str(g["disallowed_import"]), style=style), _modules(g["modules"]),
                      f"{g['named']} ({g['named_not_run']} never refused)", _modules(g["named_modules"]),
                      str(g["signature_changed"]) + (f" ({g['signature_unknown']} unknown)"
                                                     if g["signature_unknown"] else ""))
    parts: list = [table]
    if con["examples"]:
        ex = _table("Disallowed imports the sandbox refused", "task", "cand", "outcome", "module", "line", "how",
                    "code")
        for e in con["examples"]:
            ex.add_row(e["task_id"], str(e["candidate_index"]), str(e["outcome"]), e["module"],
                       "—" if e["line"] is None else str(e["line"]), (e["how"] + " " + e["in"]).strip(), e["code"])
        parts.append(ex)
    if con["signature_examples"]:
        sig = _table("Entry points whose signature differs from the task's (a finding; the tests decide)",
                     "task", "cand", "outcome", "changes")
        for e in con["signature_examples"]:
            sig.add_row(e["task_id"], str(e["candidate_index"]), str(e["outcome"]), "; ".join(e["changes"])[:200])
        parts.append(sig)
    return parts


def import_policy_words(report: Mapping) -> str:
    """`humaneval: stdlib; product: any` for the header."""
    return "; ".join(f"{p['set']}: {p['allowed_imports']}" for p in report["config"].get("import_policy") or []) \
        or "—"
