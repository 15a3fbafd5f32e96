"""Rich rendering of a comparison of two runs (`passgate compare`, the console's Compare screen).

A k that no paired task can estimate (fewer candidates than k in either run) is said in words,
not printed as a row of dashes.
"""

from __future__ import annotations

from typing import Any, Mapping

from rich.console import Group
from rich.panel import Panel
from rich.text import Text

from .report_edits import edits_comparison_parts
from .report_layout import table as _table
from .report_sections import LIST_LIMIT


def _p(x: Any, digits: int = 3) -> str:
    return "—" if x is None else f"{x:.{digits}f}"


def _ci(e: Mapping) -> str:
    return "—" if e.get("ci_low") is None else f"[{_p(e['ci_low'])}, {_p(e['ci_high'])}]"


def render_comparison(comp: Mapping) -> Group:
    a, b = comp["baseline"], comp["candidate"]
    tasks = comp["tasks"]
    head = Panel(Text.assemble(("baseline  ", "bold"), f"{a['run_id']}  {a.get('model') or ''}\n",
                               ("candidate ", "bold"), f"{b['run_id']}  {b.get('model') or ''}\n",
                               f"{tasks['paired']} paired tasks ({len(tasks['only_baseline'])} only in baseline, "
                               f"{len(tasks['only_candidate'])} only in candidate, "
                               f"{len(tasks['not_counted_in_one'])} not counted in one run)"),
                 title="passgate compare", title_align="left")
    level = int(comp["interval"]["level"] * 100)
    table = _table(f"pass@k difference, candidate − baseline ({comp['aggregation']}, paired {level}% interval)",
                   "k", "baseline", "candidate", "difference", "CI", "SE", "tasks")
    estimable = [r for r in comp["pass_at_k"] if r["tasks"]]
    for r in estimable:
        d = r["difference"]
        table.add_row(str(r["k"]), _p(r["baseline"]), _p(r["candidate"]),
                      Text("—" if d is None else f"{d:+.3f}", style="" if not d else ("green" if d > 0 else "red")),
                      _ci(r), _p(r["se"], 4), str(r["tasks"]))
    parts: list = [head, table, *_not_estimable(comp["pass_at_k"])]
    slices = _table("By slice", "slice", "k", "baseline", "candidate", "difference", "tasks")
    for r in comp["by_slice"]:
        if r["tasks"]:
            slices.add_row(r["slice"], str(r["k"]), _p(r["baseline"]), _p(r["candidate"]),
                           "—" if r["difference"] is None else f"{r['difference']:+.3f}", str(r["tasks"]))
    parts.append(slices)
    ch = comp["changed"]
    moved = _table(f"Tasks that changed ({ch['rule']})", "direction", "task", "baseline", "candidate")
    for direction in ("pass_to_fail", "fail_to_pass"):
        for r in ch[direction][:LIST_LIMIT]:
            moved.add_row(direction.replace("_", " "), r["task_id"], r["baseline"], r["candidate"])
    counts = Text(", ".join(f"{k.replace('_', ' ')} {v}" for k, v in ch["counts"].items()))
    return Group(*parts, *edits_comparison_parts(comp), moved, counts, *_chained_comparison(comp.get("chained")))


def _not_estimable(rows: list) -> list:
    """The k no paired task can estimate, in words instead of a row of dashes."""
    missing = [r["k"] for r in rows if not r["tasks"]]
    if not missing:
        return []
    ks = ", ".join(f"pass@{k}" for k in missing)
    return [Text(f"{ks}: not estimable, no paired task has at least {min(missing)} counted candidates in both "
                 "runs.", style="yellow")]


def _chained_comparison(chained: Mapping | None) -> list:
    if not chained:
        return []
    table = _table("Chained operations: pass rate per depth", "depth", "baseline", "candidate", "difference")
    for r in chained["per_depth"]:
        table.add_row(str(r["depth"]), _p(r["baseline"]), _p(r["candidate"]),
                      "—" if r["difference"] is None else f"{r['difference']:+.3f}")
    factor = {side: (d or {}).get("factor") for side, d in chained["decay"].items()}
    return [table, Text(f"decay factor per extra block: baseline {_p(factor['baseline'])}, "
                        f"candidate {_p(factor['candidate'])}")]
