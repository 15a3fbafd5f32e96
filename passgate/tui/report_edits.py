"""Rich tables for the report's local-edit sections: text match beside pass@1, latency percentiles
with intervals, and acceptance from a suggestion log (shown only when the run has them)."""

from __future__ import annotations

from typing import Any, Mapping

from rich import box
from rich.table import Table
from rich.text import Text

MEASURE_WORDS = {"first_token_ms": "first ms", "total_ms": "total ms", "tokens_per_s": "tok/s"}


def _p(x: Any, digits: int = 3) -> str:
    return "—" if x is None else f"{x:.{digits}f}"


def _ms(x: Any) -> str:
    return "—" if x is None else (f"{x:.0f}" if x >= 10 else f"{x:.1f}")


def _table(title: str, *columns: str) -> Table:
    table = Table(title=title, title_justify="left", title_style="bold", box=box.SIMPLE_HEAD, pad_edge=False)
    for col in columns:
        table.add_column(col, no_wrap=col != "slice", overflow="fold")
    return table


def pass_cell(p1: Mapping | None) -> str:
    if not p1 or p1.get("value") is None:
        return "—"
    if p1.get("ci_low") is None:
        return _p(p1["value"])
    return f"{p1['value']:.3f} [{p1['ci_low']:.2f}, {p1['ci_high']:.2f}]"


def quantile_cell(q: Mapping) -> str:
    """`123 [110, 140]`; an open bound (too few completions) shows as `?`."""
    if q.get("value") is None:
        return "—"
    low = "?" if q.get("ci_low") is None else _ms(q["ci_low"])
    high = "?" if q.get("ci_high") is None else _ms(q["ci_high"])
    return f"{_ms(q['value'])} [{low}, {high}]"


def edits_parts(report: Mapping) -> list:
    """Local edits, latency and acceptance, in that order; [] for a run without them."""
    return _edits(report.get("edits")) + latency_parts(report.get("latency")) + \
        _acceptance((report.get("edits") or {}).get("acceptance"))


def _edits(ed: Mapping | None) -> list:
    if not ed:
        return []
    table = _table("Local edits: pass@1 beside text match of the middle", "slice", "pass@1", "exact",
                   "similar", "inexact ✓", "exact ✗")
    for g in ed["slices"] + ([ed["overall"]] if len(ed["slices"]) > 1 else []):
        agree = g["agreement"]
        table.add_row(g["slice"], pass_cell(g["pass_at_1"]), _p(g["exact_match"]), _p(g["edit_similarity"]),
                      str(agree["inexact_passed"]), str(agree["exact_failed"]),
                      style="bold" if g["slice"] == "all" else "")
    o = ed["overall"]
    note = Text(f"exact = same characters as the canonical middle; similar = 1 − edit distance / length. "
                f"Similarity of passing middles {_p(o['similarity_of_passed'])}, of failing ones "
                f"{_p(o['similarity_of_failed'])}; {o['agreement']['inexact_passed']} candidates pass without "
                f"matching, {o['agreement']['inexact_failed']} fail without matching.", style="dim")
    return [table, note]


def latency_parts(lat: Mapping | None) -> list:
    if not lat:
        return []
    level = int(round(lat["level"] * 100))
    table = _table(f"Latency per completion ({level}% interval; ? = too few to bound)",
                   "slice", "measure", "n", "p50", "p90", "p99")
    groups = lat["slices"] + ([lat["overall"]] if len(lat["slices"]) > 1 else [])
    for g in groups:
        first = True
        for m, words in MEASURE_WORDS.items():
            s = g[m]
            if not s["n"]:
                continue
            table.add_row(g["slice"] if first else "", words, str(s["n"]), quantile_cell(s["p50"]),
                          quantile_cell(s["p90"]), quantile_cell(s["p99"]), style="bold" if g["slice"] == "all" else "")
            first = False
    missing = sum(g["candidates"] - g["with_latency"] for g in lat["slices"])
    note = Text(("; ".join(f"{k}: {v}" for k, v in lat["overall"]["sources"].items()))
                + (f"; {missing} candidates without a recorded latency (left out)" if missing else ""), style="dim")
    return [table, note]


def _acceptance(acc: Mapping | None) -> list:
    if not acc:
        return []
    table = _table("Acceptance (suggestion log): accepted of shown, edited after, pass rate if accepted / not",
                   "slice", "shown", "accepted", "edited", "pass acc.", "pass rej.")
    for g in acc["slices"] + ([acc["overall"]] if len(acc["slices"]) > 1 else []):
        table.add_row(g["slice"], str(g["shown"]), f"{g['accepted']} ({_p(g['acceptance'])})",
                      f"{g['edited_after']} ({_p(g['edited_after_rate'])})", _p(g["pass_rate_accepted"]),
                      _p(g["pass_rate_rejected"]))
    return [table]


def edits_comparison_parts(comp: Mapping) -> list:
    """Per slice, the two runs' exact match, similarity and p90 latencies side by side."""
    parts: list = []
    ed = comp.get("edits")
    if ed:
        table = _table("Local edits: text match", "slice", "exact base", "exact cand", "similar base",
                       "similar cand")
        for r in ed:
            table.add_row(r["slice"], _p(r["baseline"]["exact_match"]), _p(r["candidate"]["exact_match"]),
                          _p(r["baseline"]["edit_similarity"]), _p(r["candidate"]["edit_similarity"]))
        parts.append(table)
    lat = comp.get("latency")
    if lat:
        table = _table("Latency p90 (interval)", "slice", "measure", "baseline", "candidate")
        for r in lat:
            table.add_row(r["slice"], MEASURE_WORDS[r["measure"]], quantile_cell(r["baseline"]),
                          quantile_cell(r["candidate"]))
        parts.append(table)
    return parts
