"""Rich rendering of the report and comparison dicts: tables, text bars and a text histogram.

`cli/commands/report.py` and `compare.py` import this lazily (core never imports rich); the
console can show the same renderables in a Textual `Static`.
"""

from __future__ import annotations

import json
from typing import Any, Mapping

from rich import box
from rich.console import Console, Group
from rich.json import JSON
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

LIST_LIMIT = 20
_EIGHTHS = " ▏▎▍▌▋▊▉█"


def bar(value: float | None, width: int = 24) -> str:
    """A horizontal bar for a value in [0, 1], in eighths of a character."""
    if value is None:
        return ""
    cells = max(0.0, min(1.0, value)) * width
    full = int(cells)
    part = _EIGHTHS[int(round((cells - full) * 8))] if full < width else ""
    return ("█" * full + part.strip()).ljust(width)


def _p(x: Any, digits: int = 3) -> str:
    return "—" if x is None else f"{x:.{digits}f}"


def _ci(e: Mapping) -> str:
    return "—" if e.get("ci_low") is None else f"[{_p(e['ci_low'])}, {_p(e['ci_high'])}]"


def _table(title: str, *columns: str, **kw) -> Table:
    table = Table(title=title, title_justify="left", title_style="bold", box=box.SIMPLE_HEAD, **kw)
    for col in columns:
        table.add_column(col, overflow="fold")
    return table


def _spread(d: Mapping) -> str:
    if d.get("min") is None:
        return "—"
    return str(d["min"]) if d["min"] == d["max"] else f"{d['min']}–{d['max']}"


def render_report(report: Mapping, *, tasks: bool = False) -> Group:
    """Every section of the report as rich renderables, headline first."""
    parts: list = [_header(report), _config(report), _scores(report), _groups(report), _public(report),
                   _selection(report), _execution(report), _histogram(report), _classes(report), _cost(report)]
    from .report_repository import repository_tables
    parts += repository_tables(report)
    if report.get("generation"):
        parts.append(_generation(report))
    parts += _flaky(report) + _omissions(report) + _probes(report)
    if report.get("whatif"):
        parts.append(_whatif(report))
    if tasks:
        parts.append(_tasks(report))
    return Group(*parts)


def print_report(report: Mapping, console: Console | None = None, *, tasks: bool = False) -> None:
    (console or Console()).print(render_report(report, tasks=tasks))


def _header(report: Mapping) -> Panel:
    run, head, scores = report["run"], report["scores"]["headline"], report["scores"]
    spec = scores["interval"]
    den = head["denominator"]
    text = Text.assemble(
        (f"pass@{head['k']} ({head['aggregation']}) = {_p(head.get('value'))}  ", "bold"),
        f"{_ci(head)} at {int(spec['level'] * 100)}%, SE {_p(head.get('se'), 4)}\n",
        f"{den['tasks']} tasks × {_spread(den['candidates_per_task'])} candidates, k = {head['k']}, "
        f"verifier: {scores['verifier']} tests, not estimable: {den['not_estimable_tasks']}\n",
        (f"run {run['run_id']} ", "dim"), f"{run.get('name') or ''} · {run.get('model') or ''} · {run['status']}")
    if run.get("error"):
        text.append(f"\nrun error: {run['error']}", style="red")
    return Panel(text, title="passgate report", title_align="left")


def _config(report: Mapping) -> Table:
    cfg, scores = report["config"], report["scores"]
    spec, tp = scores["interval"], cfg["timeout_policy"]
    table = _table("Configuration", "item", "value", show_header=False)
    rows = [
        ("model", cfg.get("model")),
        ("decoding", json.dumps(cfg.get("decoding"), sort_keys=True, default=str)),
        ("benchmarks", "; ".join(f"{b['set_id']}@{b['revision']} {(b['sha256'] or '')[:12]} ({b['tasks']})"
                                 for b in cfg["benchmarks"])),
        ("test policy", f"protected suite decides; public tests on {cfg['test_policy']['tasks_with_public_tests']} "
                        f"tasks, none on {cfg['test_policy']['tasks_without_public_tests']}"),
        ("timeout policy", f"{json.dumps(tp.get('timeout'), default=str)}; task CPU limit "
                           f"{_p(tp['task_cpu_limit_s']['min'], 2)}–{_p(tp['task_cpu_limit_s']['max'], 2)} s"),
        ("sandbox", f"{cfg['sandbox'].get('runtime')} · {cfg['sandbox'].get('image_digest')}"),
        ("packages", cfg["package_policy"]["rule"]),
        ("interval", f"{spec['method']}, {spec['resamples']} resamples, seed {spec['seed']}, "
                     f"candidate level {spec.get('candidate_level')}"),
        ("aggregation", f"{scores['aggregation']}, weights {json.dumps(scores['weights'])}"),
    ]
    for name, value in rows:
        table.add_row(name, str(value))
    return table


def _scores(report: Mapping) -> Table:
    scores = report["scores"]
    rule = scores["aggregation"]
    table = _table(f"pass@k (headline: {rule})", "k", "micro", "CI", "macro", "CI", "", "tasks",
                   "cand./task", "n < k")
    for r in scores["pass_at_k"]:
        d = r["denominator"]
        table.add_row(str(r["k"]), _p(r["micro"]["value"]), _ci(r["micro"]), _p(r["macro"]["value"]),
                      _ci(r["macro"]), bar(r[rule]["value"]), str(d["tasks"]), _spread(d["candidates_per_task"]),
                      str(d["not_estimable_tasks"]))
    return table


def _groups(report: Mapping) -> Table:
    table = _table("By slice, set and tag", "group", "k", "pass@k", "CI", "", "tasks", "n < k")
    for g in report["scores"]["groups"]:
        weight = f" ×{g['weight']:g}" if "weight" in g else ""
        for e in g["pass_at_k"]:
            table.add_row(f"{g['kind']}: {g['name']}{weight}", str(e["k"]), _p(e["value"]), _ci(e), bar(e["value"]),
                          str(e["denominator"]["tasks"]), str(e["denominator"]["not_estimable_tasks"]))
    return table


def _public(report: Mapping) -> Table:
    pvp = report["public_vs_protected"]
    table = _table(f"Public vs protected tests ({pvp['tasks']} tasks with public tests)",
                   "k", "public", "CI", "protected", "gap", "gap CI")
    for r in pvp["pass_at_k"]:
        table.add_row(str(r["k"]), _p(r["public"]["value"]), _ci(r["public"]), _p(r["protected"]["value"]),
                      _p(r["gap"]["value"]), _ci(r["gap"]))
    return table


def _selection(report: Mapping) -> Table:
    f, r = report["filtered_pass_at_1"], report["ranked_pass_at_1"]
    table = _table("Selecting one candidate", "figure", "value", "CI", "tasks", "note")
    table.add_row("filtered pass@1", _p(f["value"]), _ci(f), str(f["tasks"]),
                  f"no public pass on {f['no_public_pass_tasks']} tasks ({_p(f['no_public_pass_share'])})")
    if r["available"]:
        table.add_row("ranked pass@1", _p(r["value"]), _ci(r), str(r["tasks"]),
                      f"random choice {_p(r['random_pass_at_1'])}")
    else:
        table.add_row("ranked pass@1", "—", "", "0", r["reason"])
    return table


def _execution(report: Mapping) -> Table:
    ex = report["execution"]
    cpu = ex["cpu_s"]
    table = _table("Execution", "item", "value", show_header=False)
    table.add_row("attempts", f"{ex['attempts']} "
                  f"({', '.join(f'{k} {v}' for k, v in ex['attempts_by_purpose'].items())})")
    table.add_row("CPU s / attempt", f"median {_p(cpu['median'], 4)}  p95 {_p(cpu['p95'], 4)}  max {_p(cpu['max'], 4)}")
    table.add_row("timeouts", f"{ex['timeouts']} (rate {_p(ex['timeout_rate'], 4)})")
    table.add_row("infra errors", f"{ex['infra_errors']['candidates']} candidates, "
                                  f"{ex['infra_errors']['attempts']} attempts")
    return table


def _histogram(report: Mapping, width: int = 40) -> Table:
    hist = report["execution"]["histogram"]
    table = _table("CPU seconds per attempt", "bin (s)", "", "attempts", show_header=False)
    top = max(hist["counts"] or [0]) or 1
    for i, count in enumerate(hist["counts"]):
        if count or any(hist["counts"][:i]) and any(hist["counts"][i:]):
            edges = hist["edges"]
            table.add_row(f"{edges[i]:.3g}–{edges[i + 1]:.3g}", bar(count / top, width), str(count))
    return table


def _classes(report: Mapping) -> Table:
    table = _table("Failure classes (counted failures)", "category", "classes", "total")
    for cat, d in report["execution"]["failure_categories"].items():
        table.add_row(cat, ", ".join(f"{k} {v}" for k, v in d.items() if k != "total" and v), str(d["total"]))
    return table


def _cost(report: Mapping) -> Table:
    cost = report["cost"]
    table = _table("Evaluator cost", "slice", "sandbox CPU-s", "attempts")
    for name, d in cost["by_slice"].items():
        table.add_row(name, f"{d['sandbox_cpu_s']:.1f}", str(d["attempts"]))
    table.add_row(Text("all", style="bold"), f"{cost['sandbox_cpu_s']:.1f}", str(cost["attempts"]))
    table.caption = (f"wall {cost['sandbox_wall_s']:.1f} s; tokens {cost['prompt_tokens']} prompt, "
                     f"{cost['completion_tokens']} completion")
    return table


def _generation(report: Mapping) -> Group:
    from passgate.core.score.generation import generation_lines
    lines = generation_lines(report["generation"])
    return Group(Text("Generation", style="bold"), *(Text(line) for line in lines))


def _flaky(report: Mapping) -> list:
    fl = report["flaky"]
    if not fl["tasks"]:
        return [Text("Flaky candidates: none", style="bold")]
    table = _table(f"Flaky candidates: {fl['total']} on {fl['tasks_with_flaky']} tasks", "task", "flaky", "counted")
    for t in fl["tasks"][:LIST_LIMIT]:
        table.add_row(t["task_id"], str(t["flaky"]), str(t["counted"]))
    more = len(fl["tasks"]) - LIST_LIMIT
    return [table] + ([Text(f"… {more} more tasks in --json")] if more > 0 else [])


def _omissions(report: Mapping) -> list:
    om = report["omissions"]
    c = om["counts"]
    out: list = [Text(f"Omitted: {c['excluded']} excluded, {c['infra_error']} infra_error, {c['pending']} pending "
                      f"candidates; {c['tasks_without_counted_candidates']} tasks without a counted candidate",
                      style="bold")]
    for ne in om["not_estimable"]:
        if ne["tasks"]:
            out.append(Text(f"pass@{ne['k']} not estimable on {ne['tasks']} tasks (n < k): "
                            + ", ".join(ne["task_ids"][:LIST_LIMIT]) + (" …" if ne["tasks"] > LIST_LIMIT else "")))
    if om["tasks"] or om["candidates"]:
        table = _table("", "task", "candidate", "outcome", "reason")
        for t in om["tasks"][:LIST_LIMIT]:
            table.add_row(t["task_id"], "all", "—", t["reason"])
        for r in om["candidates"][:LIST_LIMIT]:
            table.add_row(r["task_id"], str(r["candidate_index"]), r["outcome"], r["reason"] or "")
        out.append(table)
        more = len(om["candidates"]) + len(om["tasks"]) - table.row_count
        if more > 0:
            out.append(Text(f"… {more} more in --json"))
    return out


def _probes(report: Mapping) -> list:
    out = []
    for name in ("probe", "preflight"):
        value = report.get(name)
        title = Text(f"{'Self-probe' if name == 'probe' else 'Preflight'} (as recorded)", style="bold")
        body = Text("not recorded", style="yellow") if value is None else JSON(json.dumps(value, default=str))
        out += [title, body]
    return out


def _whatif(report: Mapping) -> Table:
    table = _table("What-if (from the record, nothing executed)", "scenario", "k", "value", "run", "change",
                   "CPU-s", "CPU change", "passes → timeouts")
    for w in report["whatif"]:
        for r in w["pass_at_k"]:
            delta = r["delta"]
            style = "" if not delta else ("green" if delta > 0 else "red")
            table.add_row(w["scenario"], str(r["k"]), _p(r["value"]), _p(r["baseline"]),
                          Text("—" if delta is None else f"{delta:+.3f}", style=style),
                          f"{w['cost']['sandbox_cpu_s']:.1f}", f"{w['cost']['delta_cpu_s']:+.1f}",
                          str(w["timeouts"]["passes_turned_timeouts"]))
    return table


def _tasks(report: Mapping) -> Table:
    ks = report["scores"]["k"]
    table = _table("Tasks", "task", "slice", "n", "c", *[f"pass@{k}" for k in ks], "flaky", "timeouts", "CPU s")
    for t in report["tasks"]:
        table.add_row(t["task_id"], t["slice"], str(t["n"]), str(t["c"]),
                      *[_p(t["pass_at_k"][str(k)]) for k in ks], str(t["flaky"]), str(t["timeouts"]),
                      f"{t['cpu_s']:.3f}")
    return table


# ---- comparison -----------------------------------------------------------------------------

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
    for r in comp["pass_at_k"]:
        d = r["difference"]
        table.add_row(str(r["k"]), _p(r["baseline"]), _p(r["candidate"]),
                      Text("—" if d is None else f"{d:+.3f}", style="" if not d else ("green" if d > 0 else "red")),
                      _ci(r), _p(r["se"], 4), str(r["tasks"]))
    slices = _table("By slice", "slice", "k", "baseline", "candidate", "difference", "tasks")
    for r in comp["by_slice"]:
        slices.add_row(r["slice"], str(r["k"]), _p(r["baseline"]), _p(r["candidate"]),
                       "—" if r["difference"] is None else f"{r['difference']:+.3f}", str(r["tasks"]))
    ch = comp["changed"]
    moved = _table(f"Tasks that changed ({ch['rule']})", "direction", "task", "baseline", "candidate")
    for direction in ("pass_to_fail", "fail_to_pass"):
        for r in ch[direction][:LIST_LIMIT]:
            moved.add_row(direction.replace("_", " "), r["task_id"], r["baseline"], r["candidate"])
    counts = Text(", ".join(f"{k.replace('_', ' ')} {v}" for k, v in ch["counts"].items()))
    return Group(head, table, slices, moved, counts)


def print_comparison(comp: Mapping, console: Console | None = None) -> None:
    (console or Console()).print(render_comparison(comp))
