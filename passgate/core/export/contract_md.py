"""Markdown for the report's `contract` section: disallowed imports and signature findings."""

from __future__ import annotations

from typing import Mapping

from .markdown_table import table as _table


def _modules(counts: Mapping) -> str:
    return ", ".join(f"{m} {n}" for m, n in counts.items()) or "—"


def contract_md(con: Mapping | None) -> list[str]:
    out = ["## Task contract: allowed imports and the entry point's signature", ""]
    if not con or not con.get("recorded"):
        return out + [f"Not recorded: {(con or {}).get('reason', 'no contract in the record')}.", ""]
    out += ["`disallowed_import` counts candidates the sandbox failed for importing a module their task does not "
            "allow (counted in pass@k); *named in text* counts programs whose text names one, whether or not that "
            "code ran; a changed signature is a finding beside the verdict.", ""]
    out += _table(["slice", "model", "allowed", "candidates", "disallowed_import", "modules (run)", "named in text",
                   "modules (text)", "signature changed"],
                  [[g["slice"], g["model"], g["allowed_imports"], g["candidates"], g["disallowed_import"],
                    _modules(g["modules"]), f"{g['named']} ({g['named_not_run']} never refused)",
                    _modules(g["named_modules"]), g["signature_changed"]] for g in con["groups"]])
    if con["examples"]:
        out += _table(["task", "candidate", "outcome", "module", "line", "how", "code"],
                      [[e["task_id"], e["candidate_index"], e["outcome"], e["module"], e["line"],
                        (e["how"] + " " + e["in"]).strip(), f"`{e['code']}`" if e["code"] else ""]
                       for e in con["examples"]])
    return out
