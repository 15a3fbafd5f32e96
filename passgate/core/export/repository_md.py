"""The report's repository section as Markdown tables (the JSON report carries every field)."""

from __future__ import annotations

from typing import Any, Mapping

from .markdown_table import table as _shared_table

LIMIT = 60


def _table(header: list[str], rows: list[list[Any]]) -> list[str]:
    """A table whose empty cells read as a dash."""
    return _shared_table(header, rows, blank="—")


def _yes(value) -> str:
    return "—" if value is None else "yes" if value else "no"


def repository_md(repo: Mapping) -> list[str]:
    t = repo["totals"]
    out = ["## Repository tasks", ""]
    out += _table(["item", "value"], [
        ["patches graded", t["candidates"]], ["passed (protected tests, no finding)", t["passed"]],
        ["apply cleanly", t["applies"]], ["build passed", t["build_passed"]],
        ["rollback restores the snapshot", t["rollback_restores"]],
        ["touch tests or test configuration", f"{t['test_edits']} ({t['refused']} with hunks refused)"],
        ["change dependency files", t["dependency_changes"]], ["add a secret", t["secrets"]],
        ["tampering findings", t["tampering"]],
        ["failure classes", ", ".join(f"{k} {v}" for k, v in t["failure_classes"].items()) or "none"]])
    out += ["### Per task (diff size and reviewer burden: medians over the task's patches)", ""]
    out += _table(["task", "slice", "patches", "passed", "apply", "files", "+lines", "-lines", "burden", "rollback ok"],
                  [[e["task_id"], e["slice"], e["candidates"], e["passed"], e["applies"], e["median_files_changed"],
                    e["median_lines_added"], e["median_lines_removed"], e["median_reviewer_burden"],
                    e["rollback_restores"]] for e in repo["tasks"]])
    out += ["### Per patch", ""]
    out += _table(["task", "#", "candidate", "verdict", "applies", "files", "+/-", "tests touched", "deps", "secrets",
                   "build", "public", "protected", "rollback"], [_patch_row(e) for e in repo["candidates"][:LIMIT]])
    if len(repo["candidates"]) > LIMIT:
        out += [f"… and {len(repo['candidates']) - LIMIT} more patches (all in the JSON report).", ""]
    if repo["tampering"]:
        out += ["### Tampering", ""]
        out += _table(["task", "#", "candidate", "verdict", "findings"],
                      [[e["task_id"], e["candidate_index"], e["label"], e["failure_class"] or "passed",
                        "; ".join(e["findings"]) or e["failure_class"]] for e in repo["tampering"]])
    return out


def _patch_row(e: Mapping) -> list[Any]:
    return [e["task_id"], e["candidate_index"], e["label"], e["failure_class"] or "passed", _yes(e["applies"]),
            e["files_changed"], f"+{e['lines_added']}/-{e['lines_removed']}",
            ", ".join(e["test_files_touched"]) + (" (refused)" if e["refused"] else ""),
            ", ".join(e["dependency_files"]), len(e["secrets"]) or "", e["build"],
            f"{e['public']['passed']}/{e['public']['total']}", f"{e['protected']['passed']}/{e['protected']['total']}",
            _yes(e["rollback"]["restores"])]
