"""The gate as the new-run wizard sees it before the run: which policies it offers, and what each
would decide on the best record the run can write (`core/gate/prospect.py`). No Textual here.

A policy is offered only when every boundary it relaxes is one this runner can run relaxed: a
policy that relaxes the network to an egress allow-list (product-egress-mirror) describes a
product whose code reaches a package mirror, which the Docker runner cannot give a run (it runs
`network: none` only); gating a wizard run under it would declare a boundary the run never had.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.console import Group
from rich.table import Table
from rich.text import Text

from .wizard_model import BOUNDARY_STEPS

VERDICT_WORDS = {"release": "a RELEASE", "canary": "a CANARY at best", "blocked": "BLOCKED whatever it measures"}


@dataclass(frozen=True)
class PolicyChoice:
    name: str
    description: str
    withheld: str = ""             # why the wizard does not offer it ("" when it does)


def policy_choices() -> list[PolicyChoice]:
    """Every shipped policy with its description, and why the wizard withholds the ones it does."""
    from passgate.core.gate.policy import available_policies, load_policy
    from passgate.core.gate.vocab import SECURE_DEFAULT
    runnable = {s.boundary: s.applicable for s in BOUNDARY_STEPS}
    out = []
    for name in available_policies():
        policy = load_policy(name)
        beyond = [f"{b} to {policy.setting(b)}" for b in SECURE_DEFAULT
                  if policy.setting(b) != SECURE_DEFAULT[b] and policy.setting(b) not in runnable[b]]
        why = f"it relaxes {', '.join(beyond)}, which this runner cannot run" if beyond else ""
        out.append(PolicyChoice(name, " ".join(policy.description.split()), why))
    return out


def offered(choices: list[PolicyChoice]) -> list[PolicyChoice]:
    return [c for c in choices if not c.withheld]


def prospects_for(_store, manifest_text: str, source: str | None, operator: str, policies: list[str]) -> list:
    """The gate's verdicts on the best record of this manifest, under its own policy and each offered one."""
    from passgate.core.gate.prospect import prospects, task_stats
    from passgate.core.manifest import parse_manifest
    manifest = parse_manifest(manifest_text, source or "<wizard>")
    return prospects(manifest, task_stats(manifest, source), policies, operator)


def prospect_renderable(prospects: list, operator: str) -> Group:
    """What the gate will say, for the manifest's policy first, then the best other offered policy."""
    if not prospects:
        return Group()
    own, others = prospects[0], prospects[1:]
    parts: list = [Text.from_markup("[b]The gate[/b] on the best record this run can write (every candidate "
                                    "passes, nothing flaky, no timeouts, every check passes):")]
    parts += _one(own, operator, "this manifest's policy")
    better = better_than(own, others)
    if better is not None:
        parts += _one(better, operator, "offered")
        parts.append(Text.from_markup(f"  [b cyan]p[/b cyan]: gate this run under {better.policy} instead"))
    elif own.best != "release" and others:
        parts.append(Text("  No offered policy does better for this run."))
    return Group(*parts)


RANK = {"release": 0, "canary": 1, "blocked": 2}


def better_than(own, others: list):
    """The offered policy this run does best under, when that is better than its own; else None."""
    better = [p for p in others if RANK[p.best] < RANK[own.best]]
    return min(better, key=lambda p: RANK[p.best]) if better else None


def _one(p, operator: str, role: str) -> list:
    style = {"release": "green", "canary": "yellow", "blocked": "red"}[p.best]
    head = Text.from_markup(f"Under [b]{p.policy}[/b] ({role}): [{style}]{VERDICT_WORDS[p.best]}[/{style}]")
    if p.signoffs and p.best != "blocked":
        head.append(f", once a reviewer other than you ({operator}) signs off {', '.join(p.signoffs)}")
    return [head, bullets(p.blockers)] if p.blockers else [head]


def bullets(items) -> Table:
    """Sentences as a list whose wrapped lines stay indented under their bullet."""
    grid = Table.grid(padding=(0, 1))
    grid.add_column(width=3, justify="right")
    grid.add_column(ratio=1)
    for item in items:
        grid.add_row("•", item)
    return grid


def boundary_lines(prospect) -> Group:
    """Each boundary as the gate will see it at launch: secure, or relaxed with what it needs."""
    words = {"exceeds_policy": "the policy does not allow it", "unsigned": "needs a sign-off by a second person",
             "unjustified": "needs a justification", "signed": "signed", "refused": "refused",
             "unverified": "the record will show it"}
    lines = [Text.assemble("  ", (b.boundary, "yellow"), f" {b.effective}: {words.get(b.status, b.status)}")
             for b in prospect.at_launch.boundaries if b.status != "secure"]
    return Group(*(lines or [Text("  every boundary at its secure default, and the policy allows nothing more")]))
