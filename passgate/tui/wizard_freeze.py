"""Freezing the wizard's manifest, or a manifest file opened for review, into the console's working
folder (`manifests/`), never next to a file the user opened. No Textual here.

A copy written elsewhere keeps working: its relative paths (datasets, samples, prompt map,
contamination corpus) are made absolute against the folder of the file it came from.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from rich.markup import escape

from passgate.core.allowed_imports import imports_words
from passgate.core.manifest import Manifest, resolve_path


@dataclasses.dataclass(frozen=True)
class Frozen:
    """A frozen manifest on disk, ready to launch."""

    path: str
    manifest_id: str
    yaml_text: str
    relaxations: tuple
    policy: str
    imports: tuple = ()             # (set, allowed imports in effect) per task set


def frozen_target(workdir: Path, opened: str) -> Path:
    """Where the frozen copy of an opened manifest goes: the working folder's manifests/, not its own folder."""
    stem = Path(opened).name.removesuffix(".yaml").removesuffix(".yml").removesuffix(".frozen")
    return Path(workdir) / "manifests" / f"{stem}.frozen.yaml"


def freeze_to_file(_store, text: str | None, source: str | None, target: str, policy: str | None = None) -> Frozen:
    """Write the wizard's YAML (or take an opened file), pin its inputs, write the frozen manifest.

    `policy` gates the frozen copy under another policy than the one its source names."""
    from passgate.core.candidates.inputs import freeze
    from passgate.core.manifest import dump_manifest
    out = Path(target)
    out.parent.mkdir(parents=True, exist_ok=True)
    if text is not None:
        out.write_text(text)
        source = str(out)
    manifest = absolute_paths(freeze(source), source)
    if policy:
        manifest = dataclasses.replace(manifest, gate=dataclasses.replace(manifest.gate, policy=policy))
    frozen = f"# frozen by passgate: manifest id {manifest.manifest_id}\n" + dump_manifest(manifest)
    out.write_text(frozen)
    imports = tuple((s.slice or s.kind, imports_words(s.imports)) for s in manifest.tasks.sets)
    return Frozen(str(out), manifest.manifest_id, frozen, manifest.gate.relaxations, manifest.gate.policy, imports)


def absolute_paths(m: Manifest, source: str) -> Manifest:
    """The manifest with every file it names resolved against `source`'s folder."""
    def absolute(path: str | None) -> str | None:
        found = resolve_path(source, path)
        return str(Path(found).resolve()) if found else path

    sets = tuple(dataclasses.replace(s, path=absolute(s.path)) for s in m.tasks.sets)
    m = dataclasses.replace(m, tasks=dataclasses.replace(m.tasks, sets=sets))
    imp = m.candidates.import_
    if imp is not None:
        imp = dataclasses.replace(imp, path=absolute(imp.path), prompt_map=absolute(imp.prompt_map))
        m = dataclasses.replace(m, candidates=dataclasses.replace(m.candidates, import_=imp))
    if m.gate.contamination_corpus:
        m = dataclasses.replace(m, gate=dataclasses.replace(m.gate, contamination_corpus=absolute(
            m.gate.contamination_corpus)))
    return m


def samples_note(text: str) -> str:
    """A line on the samples path as typed: missing, not a file, or how many lines it holds."""
    if not text.strip():
        return ""
    path = Path(text.strip()).expanduser()
    if not path.exists():
        return f"[red]No file at {escape(str(path))}[/red]"
    if not path.is_file():
        return f"[red]{escape(str(path))} is not a file[/red]"
    with path.open("rb") as f:
        lines = sum(1 for line in f if line.strip())
    return f"[green]{escape(str(path))}: {lines} sample line{'s' if lines != 1 else ''}[/green]"
