"""Report plots as hand-written SVG (no plotting library): pass@k against k, per-slice bars at
the headline k, and the distribution of CPU time per attempt."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Mapping, Sequence
from xml.sax.saxutils import escape

PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2")
W, H = 640, 400
LEFT, RIGHT, TOP, BOTTOM = 64, 170, 40, 56


class _Svg:
    def __init__(self, title: str, width: int = W, height: int = H):
        self.width, self.height = width, height
        self.parts = [f'<rect width="{width}" height="{height}" fill="white"/>',
                      self.text(width / 2, 22, title, size=15, anchor="middle", weight="bold")]

    @staticmethod
    def text(x: float, y: float, s: str, *, size: int = 11, anchor: str = "start", weight: str = "normal",
             fill: str = "#222", rotate: float | None = None) -> str:
        rot = f' transform="rotate({rotate} {x:.1f} {y:.1f})"' if rotate is not None else ""
        return (f'<text x="{x:.1f}" y="{y:.1f}" font-family="sans-serif" font-size="{size}" '
                f'text-anchor="{anchor}" font-weight="{weight}" fill="{fill}"{rot}>{escape(str(s))}</text>')

    def add(self, *items: str) -> None:
        self.parts.extend(items)

    def line(self, x1, y1, x2, y2, stroke="#444", width=1.0, dash: str | None = None) -> None:
        d = f' stroke-dasharray="{dash}"' if dash else ""
        self.add(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="{stroke}" '
                 f'stroke-width="{width}"{d}/>')

    def rect(self, x, y, w, h, fill, title: str | None = None) -> None:
        tip = f"<title>{escape(title)}</title>" if title else ""
        self.add(f'<rect x="{x:.1f}" y="{y:.1f}" width="{max(w, 0):.1f}" height="{max(h, 0):.1f}" '
                 f'fill="{fill}">{tip}</rect>')

    def render(self) -> str:
        return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width}" height="{self.height}" '
                f'viewBox="0 0 {self.width} {self.height}">\n' + "\n".join(self.parts) + "\n</svg>\n")


def _y_axis(svg: _Svg, y_of, label: str) -> None:
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        y = y_of(tick)
        svg.line(LEFT, y, W - RIGHT, y, stroke="#ddd")
        svg.add(svg.text(LEFT - 6, y + 4, f"{tick:.2f}", anchor="end"))
    svg.add(svg.text(16, (TOP + H - BOTTOM) / 2, label, anchor="middle", rotate=-90))


def pass_at_k_svg(report: Mapping) -> str:
    """pass@k against k for the headline aggregation (with interval whiskers) and each slice."""
    scores = report["scores"]
    ks = [r["k"] for r in scores["pass_at_k"]]
    svg = _Svg(f"pass@k against k — run {report['run']['run_id']}")
    log = len(ks) > 1 and max(ks) / min(ks) >= 10
    lo_k, hi_k = (math.log10(min(ks)), math.log10(max(ks))) if log else (min(ks), max(ks))
    span = (hi_k - lo_k) or 1.0

    def x_of(k: float) -> float:
        v = math.log10(k) if log else k
        return LEFT + (v - lo_k) / span * (W - LEFT - RIGHT) if len(ks) > 1 else (LEFT + W - RIGHT) / 2

    def y_of(p: float) -> float:
        return H - BOTTOM - p * (H - TOP - BOTTOM)

    _y_axis(svg, y_of, "pass@k")
    for k in ks:
        svg.add(svg.text(x_of(k), H - BOTTOM + 16, str(k), anchor="middle"))
    svg.add(svg.text((LEFT + W - RIGHT) / 2, H - 14, "k" + (" (log scale)" if log else ""), anchor="middle"))
    rule = scores["aggregation"]
    series = [(f"all ({rule})", [(r["k"], r[rule]) for r in scores["pass_at_k"]], "#000", 2.5)]
    slices = [g for g in scores["groups"] if g["kind"] == "slice"]
    for i, g in enumerate(slices):
        series.append((g["name"], [(e["k"], e) for e in g["pass_at_k"]], PALETTE[i % len(PALETTE)], 1.5))
    for j, (name, points, color, width) in enumerate(series):
        pts = [(x_of(k), y_of(e["value"])) for k, e in points if e.get("value") is not None]
        if len(pts) > 1:
            svg.add(f'<polyline fill="none" stroke="{color}" stroke-width="{width}" points="'
                    + " ".join(f"{x:.1f},{y:.1f}" for x, y in pts) + '"/>')
        for k, e in points:
            if e.get("value") is None:
                continue
            x = x_of(k)
            if e.get("ci_low") is not None:
                svg.line(x, y_of(e["ci_low"]), x, y_of(e["ci_high"]), stroke=color, width=1)
            svg.add(f'<circle cx="{x:.1f}" cy="{y_of(e["value"]):.1f}" r="3" fill="{color}">'
                    f'<title>{escape(name)} pass@{k} = {e["value"]:.4f}</title></circle>')
        ly = TOP + 14 + 16 * j
        svg.line(W - RIGHT + 12, ly - 4, W - RIGHT + 30, ly - 4, stroke=color, width=width)
        svg.add(svg.text(W - RIGHT + 34, ly, name))
    return svg.render()


def slices_svg(report: Mapping) -> str:
    """Horizontal bars: headline-k pass@k per slice, set and tag, with interval whiskers."""
    scores = report["scores"]
    k = scores["headline"]["k"]
    rows = [(f"all ({scores['aggregation']})", scores["headline"])]
    for g in scores["groups"]:
        entry = next(e for e in g["pass_at_k"] if e["k"] == k)
        rows.append((f"{g['kind']}: {g['name']}", entry))
    height = TOP + BOTTOM + 24 * len(rows)
    left = 200
    svg = _Svg(f"pass@{k} by slice, set and tag", W, height)
    plot_w = W - left - 40

    def x_of(p: float) -> float:
        return left + p * plot_w

    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        svg.line(x_of(tick), TOP, x_of(tick), height - BOTTOM + 4, stroke="#ddd")
        svg.add(svg.text(x_of(tick), height - BOTTOM + 18, f"{tick:.2f}", anchor="middle"))
    for i, (name, e) in enumerate(rows):
        y = TOP + 24 * i
        value = e.get("value")
        svg.add(svg.text(left - 8, y + 15, name, anchor="end"))
        if value is None:
            svg.add(svg.text(left + 4, y + 15, "not estimable", fill="#888"))
            continue
        svg.rect(left, y + 4, value * plot_w, 16, "#000" if i == 0 else PALETTE[(i - 1) % len(PALETTE)],
                 title=f"{name}: {value:.4f}")
        if e.get("ci_low") is not None:
            svg.line(x_of(e["ci_low"]), y + 12, x_of(e["ci_high"]), y + 12, stroke="#555", width=1.5)
        svg.add(svg.text(x_of(value) + 4, y + 15, f"{value:.3f}", size=10))
    svg.add(svg.text(left + plot_w / 2, height - 12, f"pass@{k}", anchor="middle"))
    return svg.render()


def exec_time_svg(report: Mapping) -> str:
    """Histogram of CPU seconds per attempt (log-spaced bins), median and p95 marked."""
    ex = report["execution"]
    hist = ex["histogram"]
    edges: Sequence[float] = hist["edges"]
    counts: Sequence[int] = hist["counts"]
    svg = _Svg(f"CPU time per attempt — {ex['attempts']} attempts")
    if not counts:
        svg.add(svg.text(W / 2, H / 2, "no executions recorded", anchor="middle"))
        return svg.render()
    lo, hi = math.log10(edges[0]), math.log10(edges[-1])
    top = max(counts) or 1
    right = W - 40

    def x_of(sec: float) -> float:
        return LEFT + (math.log10(max(sec, edges[0])) - lo) / ((hi - lo) or 1) * (right - LEFT)

    def y_of(c: float) -> float:
        return H - BOTTOM - c / top * (H - TOP - BOTTOM)

    for i, c in enumerate(counts):
        x0, x1 = x_of(edges[i]), x_of(edges[i + 1])
        svg.rect(x0 + 0.5, y_of(c), x1 - x0 - 1, H - BOTTOM - y_of(c), "#1f77b4",
                 title=f"{edges[i]:.4g}–{edges[i + 1]:.4g} s: {c}")
    for decade in range(math.ceil(lo), math.floor(hi) + 1):
        x = x_of(10 ** decade)
        svg.line(x, H - BOTTOM, x, H - BOTTOM + 4)
        svg.add(svg.text(x, H - BOTTOM + 16, f"{10 ** decade:g}", anchor="middle"))
    marks = (("median", ex["cpu_s"]["median"], "#2ca02c"), ("p95", ex["cpu_s"]["p95"], "#d62728"))
    for row, (name, value, color) in enumerate(marks):
        if value:
            x = x_of(value)
            svg.line(x, TOP, x, H - BOTTOM, stroke=color, width=1.5, dash="4 3")
            label = svg.text(x + 4, TOP - 4 + 14 * row, f"{name} {value:.3g} s", fill=color, weight="bold")
            svg.add(label.replace("<text ", '<text stroke="white" stroke-width="3" paint-order="stroke" ', 1))
    svg.line(LEFT, H - BOTTOM, right, H - BOTTOM)
    svg.add(svg.text(LEFT - 6, TOP + 4, str(top), anchor="end"))
    svg.add(svg.text(LEFT - 6, H - BOTTOM, "0", anchor="end"))
    svg.add(svg.text((LEFT + right) / 2, H - 14, "CPU seconds per attempt (log scale)", anchor="middle"))
    return svg.render()


def chained_svg(report: Mapping) -> str:
    """Pass rate against chain depth with interval whiskers, and the fitted a * factor^(depth - 1)."""
    ch = report["chained"]
    rows, decay = ch["per_depth"], ch["decay"]
    svg = _Svg(f"pass rate per chain depth — run {report['run']['run_id']}")
    top = max(r["depth"] for r in rows)
    x_of = lambda d: LEFT + (W - RIGHT - LEFT) * ((d - 1) / max(top - 1, 1))   # noqa: E731
    y_of = lambda v: H - BOTTOM - (H - BOTTOM - TOP) * v                        # noqa: E731
    _y_axis(svg, y_of, "pass rate")
    for r in rows:
        x = x_of(r["depth"])
        svg.add(svg.text(x, H - BOTTOM + 16, str(r["depth"]), anchor="middle"))
        svg.line(x, y_of(r["ci_low"]), x, y_of(r["ci_high"]), stroke=PALETTE[0], width=1.5)
        svg.add(f'<circle cx="{x:.1f}" cy="{y_of(r["pass_rate"]):.1f}" r="4" fill="{PALETTE[0]}">'
                f'<title>depth {r["depth"]}: {r["pass_rate"]:.3f} over {r["tasks"]} tasks</title></circle>')
    if decay["factor"] is not None:
        points = [(x_of(1 + i / 10), y_of(min(1.0, decay["a"] * decay["factor"] ** (i / 10))))
                  for i in range(0, 10 * (top - 1) + 1)]
        path = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
        svg.add(f'<polyline points="{path}" fill="none" stroke="{PALETTE[1]}" stroke-width="1.5" '
                f'stroke-dasharray="5,3"/>')
        svg.add(svg.text(W - RIGHT + 8, TOP + 20, f"fit: factor {decay['factor']:.3f}", fill=PALETTE[1]),
                svg.text(W - RIGHT + 8, TOP + 36, f"[{decay['ci_low']:.3f}, {decay['ci_high']:.3f}]",
                         fill=PALETTE[1]))
    svg.add(svg.text((LEFT + W - RIGHT) / 2, H - 16, "chain depth (building blocks)", anchor="middle"))
    return svg.render()


PLOTS = {"pass_at_k.svg": pass_at_k_svg, "slices.svg": slices_svg, "exec_time.svg": exec_time_svg}


def write_svgs(report: Mapping, directory: str | Path) -> list[Path]:
    """Write every plot into `directory` (created if needed); returns the paths written."""
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    plots = dict(PLOTS, **({"chained.svg": chained_svg} if report.get("chained") else {}))
    for name, plot in plots.items():
        path = out / name
        path.write_text(plot(report), encoding="utf-8")
        paths.append(path)
    return paths
