"""Rich rendering of the report and comparison dicts: tables, text bars and a text histogram.

`cli/commands/report.py` and `compare.py` import this lazily (core never imports rich); the
console can show the same renderables in a Textual `Static`.
"""

from __future__ import annotations

from typing import Any, Mapping

from rich import box
from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from .report_evidence import canary_parts, chained_parts, language_parts, security_parts, tamper_parts

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


NUMERIC = {"k", "micro", "macro", "CI", "gap CI", "public", "protected", "gap", "tasks", "n < k",
           "n/task", "pass@k", "", "attempts", "total", "sandbox CPU-s", "difference", "SE", "baseline",
           "candidate", "change", "CPU-s", "CPU change", "ok", "bin (s)", "n", "c", "flaky", "timeouts", "CPU s"}


def _table(title: str, *columns: str, **kw) -> Table:
    """A report table: numbers and intervals never wrap (an interval reads whole); words fold."""
    table = Table(title=title, title_justify="left", title_style="bold", box=box.SIMPLE_HEAD, pad_edge=False, **kw)
    for col in columns:
        if col in NUMERIC or col.startswith("pass@"):
            table.add_column(col, no_wrap=True)
        else:
            table.add_column(col, overflow="fold", ratio=1 if col in ("note", "reason", "classes", "saw",
                                                                    "value") else None)
    return table


def _n(count: int, noun: str) -> str:
    """`1 task`, `2 tasks`: a count with its noun in the right number."""
    return f"{count} {noun}" + ("" if count == 1 else ("es" if noun.endswith("s") else "s"))


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
    parts += _flaky(report) + _omissions(report)
    parts += language_parts(report)
    parts += security_parts(report) + canary_parts(report) + tamper_parts(report) + chained_parts(report, bar)
    parts += _probes(report)
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
        f"{_n(den['tasks'], 'task')} × {_spread(den['candidates_per_task'])} "
        f"{'candidate' if den['candidates_per_task'].get('max') == 1 else 'candidates'}, k = {head['k']}, "
        f"verifier: {scores['verifier']} tests, not estimable: {den['not_estimable_tasks']}\n",
        (f"run {run['run_id']} ", "dim"), f"{run.get('name') or ''} · {run.get('model') or ''} · {run['status']}")
    if run.get("error"):
        text.append(f"\nrun error: {run['error']}", style="red")
    return Panel(text, title="passgate report", title_align="left")


def _words(value: Any) -> str:
    """A setting as words: `key value` pairs for a mapping, items joined for a list; never JSON."""
    if isinstance(value, Mapping):
        return ", ".join(f"{k} {_words(v)}" for k, v in sorted(value.items())) or "—"
    if isinstance(value, (list, tuple)):
        return ", ".join(_words(v) for v in value) or "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return "—" if value is None else str(value)


def _benchmark(b: Mapping) -> str:
    sha = (b.get("sha256") or "")[:12]
    pinned = "" if not sha or sha in str(b.get("revision") or "") else f" {sha}"
    return f"{b['set_id']}@{b['revision']}{pinned} ({b['tasks']} tasks)"


def _config(report: Mapping) -> Table:
    cfg, scores = report["config"], report["scores"]
    spec, tp = scores["interval"], cfg["timeout_policy"]
    table = _table("Configuration", "item", "value", show_header=False)
    limit = tp["task_cpu_limit_s"]
    rows = [
        ("model", cfg.get("model")),
        ("decoding", _words(cfg.get("decoding"))),
        ("benchmarks", "; ".join(_benchmark(b) for b in cfg["benchmarks"])),
        ("test policy", f"protected suite decides; public tests on {cfg['test_policy']['tasks_with_public_tests']} "
                        f"tasks, none on {cfg['test_policy']['tasks_without_public_tests']}"),
        ("timeout policy", _words(tp.get("timeout"))),
        ("task CPU limit", f"{_p(limit['min'], 2)}–{_p(limit['max'], 2)} s"),
        ("sandbox", f"{cfg['sandbox'].get('runtime')} · {cfg['sandbox'].get('image_digest')}"),
        ("packages", cfg["package_policy"]["rule"]),
        ("interval", f"{spec['method']}, {spec['resamples']} resamples, seed {spec['seed']}, "
                     f"candidate level {spec.get('candidate_level')}"),
        ("aggregation", f"{scores['aggregation']}, weights {_words(scores['weights'])}"),
    ]
    for name, value in rows:
        table.add_row(name, str(value))
    return table


def _scores(report: Mapping) -> Table:
    scores = report["scores"]
    rule = scores["aggregation"]
    table = _table(f"pass@k (headline: {rule})", "k", "micro", "CI", "macro", "CI", "tasks",
                   "n/task", "n < k")
    for r in scores["pass_at_k"]:
        d = r["denominator"]
        table.add_row(str(r["k"]), _p(r["micro"]["value"]), _ci(r["micro"]), _p(r["macro"]["value"]),
                      _ci(r["macro"]), str(d["tasks"]), _spread(d["candidates_per_task"]),
                      str(d["not_estimable_tasks"]))
    return table


def _groups(report: Mapping) -> Table:
    table = _table("By slice, set and tag", "group", "k", "pass@k", "CI", "", "tasks", "n < k")
    for g in report["scores"]["groups"]:
        weight = f" ×{g['weight']:g}" if "weight" in g else ""
        for e in g["pass_at_k"]:
            table.add_row(f"{g['kind']}: {g['name']}{weight}", str(e["k"]), _p(e["value"]), _ci(e), bar(e["value"], 12),
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
                  f"no public pass on {_n(f['no_public_pass_tasks'], 'task')} ({_p(f['no_public_pass_share'])})")
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
    table.add_row("infra errors", f"{_n(ex['infra_errors']['candidates'], 'candidate')}, "
                                  f"{_n(ex['infra_errors']['attempts'], 'attempt')}")
    return table


CPU_GRAIN_S = 0.01      # the sandbox's CPU clock ticks in 10 ms: narrower bins only split one tick
HISTOGRAM_ROWS = 10


def histogram_rows(edges: list[float], counts: list[int], grain: float = CPU_GRAIN_S,
                   rows: int = HISTOGRAM_ROWS) -> list[tuple[float, float, int]]:
    """The report's bins merged so none but the last is narrower than the clock's grain, from the first bin
    with an attempt to the last, and at most `rows` of them (neighbours merged two by two)."""
    nonzero = [i for i, n in enumerate(counts) if n]
    if not nonzero:
        return []
    merged: list[list] = []
    for i in range(nonzero[0], nonzero[-1] + 1):
        if merged and merged[-1][1] - merged[-1][0] < grain:
            merged[-1][1], merged[-1][2] = edges[i + 1], merged[-1][2] + counts[i]
        else:
            merged.append([edges[i], edges[i + 1], counts[i]])
    while len(merged) > rows:
        merged = [[a[0], (b or a)[1], a[2] + (b[2] if b else 0)]
                  for a, b in zip(merged[::2], merged[1::2] + [None])]
    return [(lo, hi, n) for lo, hi, n in merged]


def _histogram(report: Mapping, width: int = 30) -> Table:
    hist = report["execution"]["histogram"]
    table = _table("CPU seconds per attempt", "bin (s)", "", "attempts", show_header=False)
    rows = histogram_rows(hist["edges"], hist["counts"])
    top = max([n for _, _, n in rows] or [0]) or 1
    for lo, hi, count in rows:
        table.add_row(f"{lo:.3g}–{hi:.3g}", bar(count / top, width), str(count))
    return table


def _classes(report: Mapping) -> Table:
    table = _table("Failure classes (counted failures)", "category", "classes", "total")
    for cat, d in report["execution"]["failure_categories"].items():
        table.add_row(cat, ", ".join(f"{k} {v}" for k, v in d.items() if k != "total" and v), str(d["total"]))
    return table


def _cost(report: Mapping) -> Group:
    cost = report["cost"]
    table = _table("Evaluator cost", "slice", "sandbox CPU-s", "attempts")
    for name, d in cost["by_slice"].items():
        table.add_row(name, f"{d['sandbox_cpu_s']:.1f}", str(d["attempts"]))
    table.add_row(Text("all", style="bold"), f"{cost['sandbox_cpu_s']:.1f}", str(cost["attempts"]))
    return Group(table, Text(f"wall {cost['sandbox_wall_s']:.1f} s; tokens {cost['prompt_tokens']} prompt, "
                             f"{cost['completion_tokens']} completion"))


def _generation(report: Mapping) -> Group:
    from passgate.core.score.generation import generation_lines
    lines = generation_lines(report["generation"])
    return Group(Text("Generation", style="bold"), *(Text(line) for line in lines))


def _flaky(report: Mapping) -> list:
    fl = report["flaky"]
    if not fl["tasks"]:
        return [Text("Flaky candidates: none", style="bold")]
    table = _table(f"Flaky candidates: {fl['total']} on {_n(fl['tasks_with_flaky'], 'task')}", "task", "flaky",
                   "counted")
    for t in fl["tasks"][:LIST_LIMIT]:
        table.add_row(t["task_id"], str(t["flaky"]), str(t["counted"]))
    more = len(fl["tasks"]) - LIST_LIMIT
    return [table] + ([Text(f"… {more} more tasks in --json")] if more > 0 else [])


def _omissions(report: Mapping) -> list:
    om = report["omissions"]
    c = om["counts"]
    out: list = [Text(f"Omitted: {c['excluded']} excluded, {c['infra_error']} infra_error, {c['pending']} pending "
                      f"candidates; {_n(c['tasks_without_counted_candidates'], 'task')} without a counted candidate",
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
    """The self-probe and preflight checks as tables, and the self-check in a line."""
    out: list = []
    for name, title in (("probe", "Self-probe (inside the sandbox, as recorded)"),
                        ("preflight", "Preflight (container configuration, as recorded)")):
        value = report.get(name)
        checks = value.get("checks") if isinstance(value, Mapping) else None
        if not checks:
            out.append(Text(f"{title}: not recorded", style="yellow"))
            continue
        table = _table(title, "check", "ok", "boundary", "saw")
        for c in checks:
            ok = Text("ok" if c.get("ok") else "FAIL", style="green" if c.get("ok") else "bold red")
            table.add_row(str(c.get("name", "?")), ok, str(c.get("boundary", "")), _words(c.get("saw")))
        out.append(table)
        out += _readings(name, {k: v for k, v in value.items() if k != "checks"})
    return out + _selfcheck(report.get("selfcheck"))


def _readings(section: str, extra: Mapping) -> list:
    """What a check recorded beside its verdicts: single values as a table; nested readings (the
    probe's raw answers, already summarised in the 'saw' column) are named, and left to --json."""
    flat = {k: v for k, v in extra.items() if not isinstance(v, (Mapping, list, tuple))}
    nested = sorted(k for k in extra if k not in flat)
    out: list = []
    if flat:
        table = _table("", "recorded", "value")
        for k, v in flat.items():
            table.add_row(str(k), _words(v))
        out.append(table)
    if nested:
        where = ", ".join(f"{section}.{k}" for k in nested)
        out.append(Text(f"The {section}'s raw readings are in the JSON report ({where}).", style="dim"))
    return out


def _selfcheck(sc: Any) -> list:
    if not isinstance(sc, Mapping):
        return [Text("Self-check: not recorded", style="yellow")]
    if not sc.get("ran"):
        return [Text(f"Self-check: not run ({sc.get('reason', 'no reason recorded')})")]
    failed = ", ".join(str(f.get("task_id", f)) if isinstance(f, Mapping) else str(f) for f in sc.get("failed") or [])
    return [Text(f"Self-check: {sc.get('passed')} of {sc.get('references')} reference solutions pass their own "
                 f"protected tests" + (f"; failed: {failed}" if failed else ""))]


def _whatif(report: Mapping) -> Table:
    secure = any("insecure_passes" in w for w in report["whatif"])      # the column only when asked for
    table = _table("What-if (from the record, nothing executed)", "scenario", "k", "value", "run", "change",
                   "CPU-s", "CPU change", "passes → timeouts", *(("insecure passes dropped",) if secure else ()))
    for w in report["whatif"]:
        for r in w["pass_at_k"]:
            delta = r["delta"]
            style = "" if not delta else ("green" if delta > 0 else "red")
            table.add_row(w["scenario"], str(r["k"]), _p(r["value"]), _p(r["baseline"]),
                          Text("—" if delta is None else f"{delta:+.3f}", style=style),
                          f"{w['cost']['sandbox_cpu_s']:.1f}", f"{w['cost']['delta_cpu_s']:+.1f}",
                          str(w["timeouts"]["passes_turned_timeouts"]),
                          *((str(w.get("insecure_passes", "—")),) if secure else ()))
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
    return Group(head, table, slices, moved, counts, *_chained_comparison(comp.get("chained")))


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


def print_comparison(comp: Mapping, console: Console | None = None) -> None:
    (console or Console()).print(render_comparison(comp))
