"""What the new-run wizard collects, and the manifest it makes of it (no Textual here).

The wizard's answers become a manifest through the same strict loader as a hand-written file
(`parse_manifest`), then `freeze` pins its inputs. Boundary settings come from the gate's fixed
vocabulary (`core/gate/vocab.py`); a relaxed boundary needs a justification, and is recorded in
`gate.relaxations` (and, where the engine can apply it, in the execution section).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from passgate.core import kinds
from passgate.core.manifest import Manifest, parse_manifest

CANDIDATE_SOURCES = ("reference", "import", "generate")


def task_kinds() -> tuple[str, ...]:
    """The kinds a new manifest may start from (core/kinds)."""
    return kinds.names(in_wizard=True)


@dataclass(frozen=True)
class BoundaryStep:
    """One wizard step: a boundary, its secure default and what relaxing it costs."""

    boundary: str
    title: str
    secure: str                    # what the secure default means, in a sentence
    consequence: str               # what relaxing it means for the evidence, in a sentence
    applicable: tuple[str, ...]    # settings this engine can run (secure default first)
    note: str = ""                 # why other settings are not offered
    short: str = ""                # the step list's title when the page's is too long for 80 columns

    @property
    def step_title(self) -> str:
        return self.short or self.title


BOUNDARY_STEPS: tuple[BoundaryStep, ...] = (
    BoundaryStep("network", "Network",
                 "No network: the sandbox has only a loopback interface, no route and no resolver.",
                 "A candidate could reach hosts: exfiltrate tests, fetch answers, or attack the network.",
                 ("none",), "The Docker runner only runs with `network: none`; the preflight refuses anything else."),
    BoundaryStep("mounts", "Mounts",
                 "No host mounts: the container sees its read-only image and a private scratch tmpfs.",
                 "A candidate could read the tests it is graded on, or host files and credentials.",
                 ("none",), "The Docker runner mounts nothing; the preflight refuses a container with mounts."),
    BoundaryStep("dependencies", "Dependencies",
                 "The pinned sandbox image only: Python's standard library at a recorded digest.",
                 "Third-party code would run inside the sandbox, and results would depend on its versions.",
                 ("pinned-image",), "The pinned image holds the standard library only."),
    BoundaryStep("runtime", "Runtime",
                 "gVisor (runsc): candidate system calls go to a user-space kernel, not the host's.",
                 "With runc the host kernel is the only boundary between a candidate and the machine.",
                 ("runsc", "runc")),
    BoundaryStep("protected_tests", "Protected tests",
                 "The verdict uses the protected suite: the full tests the model never saw.",
                 "Grading on the public examples only hides overfitting to what the model saw.",
                 ("required", "public-only")),
    BoundaryStep("rerun_stability", "Rerun stability",
                 "A failing candidate runs again; attempts that disagree are flaky and never count as a pass.",
                 "Flaky candidates go unmeasured: a lucky pass counts; the evidence is weaker.",
                 ("required", "not-required")),
    BoundaryStep("holdout", "Holdout cleanliness",
                 "Tasks come from a clean holdout, checked for contamination against a corpus.",
                 "Public benchmarks are exposed: memorised answers can inflate the score.",
                 ("clean-required", "public-only"), short="Holdout"),
)


def settings_of(boundary: str) -> tuple[str, ...]:
    """Every setting of a boundary, secure default first (the gate's vocabulary)."""
    from passgate.core.gate.vocab import SETTINGS
    return SETTINGS[boundary]


def risk_of(boundary: str, setting: str) -> str:
    from passgate.core.gate.vocab import RISK
    return RISK.get((boundary, setting), "critical")


@dataclass
class TaskSetChoice:
    kind: str = "humaneval"
    path: str = ""
    task_ids: str = ""             # comma-separated ids; `HumanEval/0-4` expands to 0..4
    slice: str = ""
    split: str = ""
    allowed_imports: str = ""      # `stdlib`, `any` or comma-separated names; empty: the kind's default
    language: str = ""             # humaneval-x: the set's language (multipl-e reads it from its file)

    def imports_words(self) -> str:
        """What the set allows, as the manifest and the review show it."""
        from passgate.core.allowed_imports import imports_words
        declared = [p.strip() for p in self.allowed_imports.split(",") if p.strip()] or None
        return imports_words(kinds.effective_imports(self.kind, declared))


@dataclass
class WizardState:
    """Everything the wizard asks; `manifest()` turns it into a validated Manifest."""

    name: str = "console-run"
    operator: str = ""
    sets: list[TaskSetChoice] = field(default_factory=lambda: [TaskSetChoice()])
    source: str = "reference"
    import_path: str = ""
    model_name: str = ""
    endpoint: str = ""
    gen_model: str = ""
    n_per_task: int = 1
    temperature: float = 0.0
    settings: dict[str, str] = field(default_factory=dict)       # boundary -> setting
    justifications: dict[str, str] = field(default_factory=dict)
    k: str = "1"
    aggregation: str = "micro"
    level: float = 0.95
    resamples: int = 2000
    workers: int = 2
    policy: str = "secure-default"

    def setting(self, boundary: str) -> str:
        return self.settings.get(boundary) or settings_of(boundary)[0]

    def implied(self, boundary: str) -> str | None:
        """The setting the chosen inputs force, whatever is declared (the gate reads it from the record)."""
        if boundary == "holdout" and all(kinds.get(s.kind).public for s in self.sets):
            return "public-only"    # public benchmarks are exposed; only a user's own set can be a holdout
        return None

    def relaxed(self) -> list[str]:
        return [s.boundary for s in BOUNDARY_STEPS if self.setting(s.boundary) != settings_of(s.boundary)[0]]

    def missing_justification(self, boundary: str) -> bool:
        return boundary in self.relaxed() and not self.justifications.get(boundary, "").strip()

    def to_dict(self) -> dict:
        """The manifest as plain data, before validation."""
        ex: dict = {"runtime": self.setting("runtime"), "workers": self.workers,
                    "reruns": {"policy": "failures" if self.setting("rerun_stability") == "required" else "none",
                               "count": 2}}
        doc: dict = {"version": 1, "name": self.name, "operator": self.operator or None,
                     "tasks": {"sets": [_set_dict(s) for s in self.sets]},
                     "candidates": self._candidates(), "execution": ex,
                     "scoring": {"k": parse_ks(self.k), "aggregation": self.aggregation,
                                 "interval": {"level": float(self.level), "resamples": int(self.resamples)}},
                     "gate": {"policy": self.policy,
                              "relaxations": [{"boundary": b, "setting": self.setting(b),
                                               "justification": self.justifications.get(b, "").strip()}
                                              for b in self.relaxed()]}}
        if self.source == "generate":
            doc["generation"] = {"endpoint": self.endpoint, "model": self.gen_model,
                                 "n_per_task": int(self.n_per_task), "temperature": float(self.temperature)}
        return {k: v for k, v in doc.items() if v is not None}

    def _candidates(self) -> dict:
        model = {"name": self.model_name or ("reference" if self.source == "reference" else
                                             self.gen_model or "unknown")}
        out: dict = {"source": self.source, "model": model}
        if self.source == "import":
            out["import"] = {"path": str(Path(self.import_path).expanduser().resolve()) if self.import_path else ""}
        return out

    def yaml_text(self) -> str:
        return yaml.safe_dump(json.loads(json.dumps(self.to_dict())), sort_keys=False, allow_unicode=True, width=100)

    def manifest(self) -> Manifest:
        """Validate through the manifest loader: the same errors a hand-written file gets."""
        return parse_manifest(self.yaml_text(), f"<wizard: {self.name}>")


def _set_dict(s: TaskSetChoice) -> dict:
    out: dict = {"kind": s.kind}
    kind = kinds.get(s.kind)
    if not kind.public:
        out["exposure"] = kind.default_exposure
    if s.path:
        out["path"] = str(Path(s.path).expanduser().resolve())
    ids = expand_ids(s.task_ids)
    if ids:
        out["task_ids"] = ids
    if s.slice:
        out["slice"] = s.slice
    if s.split:
        out["split"] = s.split
    names = [p.strip() for p in s.allowed_imports.split(",") if p.strip()]
    if names:
        out["allowed_imports"] = names
    if s.language and kind.language == "required":
        out["language"] = s.language
    return out


def expand_ids(text: str) -> list[str]:
    """`HumanEval/0-2, HumanEval/7` → HumanEval/0, HumanEval/1, HumanEval/2, HumanEval/7."""
    ids: list[str] = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        head, sep, tail = part.rpartition("/")
        lo, dash, hi = tail.partition("-")
        if dash and lo.isdigit() and hi.isdigit():
            ids += [f"{head}{sep}{i}" for i in range(int(lo), int(hi) + 1)]
        else:
            ids.append(part)
    return ids


def parse_ks(text: str) -> list[int]:
    """`1, 10` → [1, 10]; a bad value is left for the manifest loader to name."""
    out = []
    for part in (p.strip() for p in str(text).split(",")):
        if part:
            out.append(int(part) if part.lstrip("-").isdigit() else part)
    return out

