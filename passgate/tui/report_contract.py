"""Rich tables for the report's `contract` section: disallowed imports and signature findings.

Drawn through `report_layout` like every report table: figures whole, words wrapped between words, and
narrower layouts of the same figures where the widest one cannot fit whole (without the model column,
then its columns in two tables)."""

from __future__ import annotations

from typing import Mapping

from rich.console import Group
from rich.table import Table
from rich.text import Text

from .report_layout import ByWidth, table

FIGURES = {"candidates", "disallowed_import", "cand", "line"}


def _table(title: str, *columns: str) -> Table:
    """Figures whole, words wrapped between words (report_layout.table)."""
    return table(title, *columns, numeric=FIGURES)


def _modules(counts: Mapping) -> str:
    return ", ".join(f"{m} {n}" for m, n in counts.items()) or "—"


def _signature(g: Mapping) -> str:
    return str(g["signature_changed"]) + (f" ({g['signature_unknown']} unknown)" if g["signature_unknown"] else "")


def contract_parts(report: Mapping) -> list:
    """Per slice and model: disallowed imports (counted in pass@k) with the modules, what the text
    names, signature findings; then examples of each."""
    con = report.get("contract")
    if not con or not con.get("recorded"):
        return []
    title = "Task contract: imports and entry-point signature"

    def build(with_model: bool) -> Table:
        out = _table(title, "slice", *(("model",) if with_model else ()), "allowed", "candidates",
                     "disallowed_import", "modules (run)", "named in text", "modules (text)", "signature changed")
        for g in con["groups"]:
            style = "bold red" if g["disallowed_import"] else ""
            out.add_row(g["slice"], *((g["model"],) if with_model else ()), g["allowed_imports"],
                        str(g["candidates"]), Text(str(g["disallowed_import"]), style=style), _modules(g["modules"]),
                        f"{g['named']} ({g['named_not_run']} never refused)", _modules(g["named_modules"]),
                        _signature(g))
        return out

    def split() -> Group:
        """The same columns in two tables, the slice in both: what the sandbox refused; then what the
        contract allows, what the text names and the signature."""
        refused = _table(title, "slice", "candidates", "disallowed_import", "modules (run)")
        named = _table("", "slice", "allowed", "named in text", "modules (text)", "signature changed")
        for g in con["groups"]:
            style = "bold red" if g["disallowed_import"] else ""
            refused.add_row(g["slice"], str(g["candidates"]), Text(str(g["disallowed_import"]), style=style),
                            _modules(g["modules"]))
            named.add_row(g["slice"], g["allowed_imports"], f"{g['named']} ({g['named_not_run']} never refused)",
                          _modules(g["named_modules"]), _signature(g))
        return Group(refused, named)
    parts: list = [ByWidth(lambda: build(True), lambda: build(False), split)]
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
