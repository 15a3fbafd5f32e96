"""Load a manifest's inputs and refuse drift: task sets, candidates, and their pinned hashes."""

from __future__ import annotations

import dataclasses
import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from passgate.core.errors import ConfigError, DriftError
from passgate.core.manifest import Manifest, grader_of, load_manifest, resolve_path, uses_languages
from passgate.core.model import CANARY_PREFIX, Candidate, PostprocessSpec, Task, is_canary


@dataclass
class Inputs:
    tasks: list[Task]
    candidates: list[Candidate]
    model_label: str
    notes: list[str] = field(default_factory=list)
    not_imported: list[dict] = field(default_factory=list)    # samples lines that became no candidate, with why


def load_inputs(manifest: Manifest, manifest_path: str | Path | None, *, check_only: bool = False) -> Inputs:
    """Tasks and candidates as the manifest pins them; DriftError names the input that changed."""
    from passgate.core.tasks.contract import with_contract
    from passgate.core.tasks.io import path_sha256
    from passgate.core.kinds.sets import file_sha256, load_task_set

    tasks: list[Task] = []
    notes: list[str] = []
    seen: set[str] = set()
    for i, spec in enumerate(manifest.tasks.sets):
        path = resolve_path(manifest_path, spec.path)
        ts = load_task_set(spec.kind, str(path) if path else None, slice=spec.slice,
                           task_ids=list(spec.task_ids) if spec.task_ids else None, split=spec.split,
                           exposure=spec.exposure, language=spec.language)
        if spec.sha256 is None:
            raise DriftError(f"tasks.sets[{i}] ({spec.kind}) has no sha256 pin; run `passgate freeze` on the manifest")
        if ts.sha256 != spec.sha256:
            raise DriftError(f"dataset hash differs for tasks.sets[{i}] ({ts.path}): file is {ts.sha256}, "
                             f"manifest pins {spec.sha256}")
        if spec.revision and ts.revision and spec.revision != ts.revision:
            raise DriftError(f"dataset revision differs for tasks.sets[{i}]: file is {ts.revision}, "
                             f"manifest pins {spec.revision}")
        for t in ts.tasks:
            if is_canary(t.task_id):
                raise ConfigError(f"task id {t.task_id}: the prefix {CANARY_PREFIX} is reserved for passgate's "
                                  "canary tasks", field=f"tasks.sets[{i}]")
            if t.task_id in seen:
                raise ConfigError(f"task id {t.task_id} appears in two task sets", field=f"tasks.sets[{i}]")
            seen.add(t.task_id)
            t, contract_notes = with_contract(t, spec.imports)
            tasks.append(t)
            notes += contract_notes
        notes += [f"{ts.set_id}: {n}" for n in ts.notes]
    if manifest.tasks.canaries:
        from passgate.core.tasks.canaries import canary_tasks
        tasks += canary_tasks(manifest.tasks.canaries, manifest.execution.seeds.random_seed)
    c = manifest.candidates
    if uses_languages(manifest):                 # each language's image is pinned instead of Python's
        from .language_samples import check_language_pins
        check_language_pins(manifest, tasks)
    elif manifest.execution.image_digest is None:
        raise DriftError("execution.image_digest is not pinned; run `passgate freeze` on the manifest")
    model_label = c.model.name if c.source != "generate" else manifest.generation.model
    if c.source == "generate":
        from .fim import check_pinned
        check_pinned(manifest.generation, tasks)        # local edits: how they are asked for, frozen
    if c.source == "import":
        spec = c.import_
        path = resolve_path(manifest_path, spec.path)
        if spec.sha256 is None:
            raise DriftError("candidates.import has no sha256 pin; run `passgate freeze` on the manifest")
        actual = path_sha256(path)        # a directory (MultiPL-E's completions) hashes as its listing
        if actual != spec.sha256:
            raise DriftError(f"samples-file hash differs ({path}): file is {actual}, manifest pins {spec.sha256}")
        if spec.prompt_map:
            pm = resolve_path(manifest_path, spec.prompt_map)
            if spec.prompt_map_sha256 and file_sha256(pm) != spec.prompt_map_sha256:
                raise DriftError(f"prompt-map hash differs ({pm}): manifest pins {spec.prompt_map_sha256}")
    if check_only:
        return Inputs(tasks, [], model_label, notes)
    not_imported: list[dict] = []
    candidates = load_candidates(manifest, manifest_path, tasks, notes, not_imported)
    return Inputs(tasks, candidates, model_label, notes, not_imported)


def postprocess_spec(manifest: Manifest) -> PostprocessSpec:
    pp = manifest.candidates.postprocess
    return PostprocessSpec(stop=tuple(pp.stop), extract_fence=pp.extract_fence, style=pp.style,
                           prompt_context=pp.prompt_context, dataset_stop_tokens=pp.dataset_stop_tokens)


def load_candidates(manifest: Manifest, manifest_path, tasks: list[Task], notes: list[str],
                    not_imported: list[dict] | None = None) -> list[Candidate]:
    """The manifest's candidates; every samples line left out goes to `not_imported` (line, reason)."""
    c = manifest.candidates
    by_id = {t.task_id: t for t in tasks}
    if c.source == "reference":
        out = []
        for t in tasks:
            if not t.reference_solution:
                out.append(Candidate(t.task_id, 0, "", "", gen_status="excluded",
                                     excluded_reason="task has no reference solution", source="reference"))
                continue
            prog = t.reference_solution
            out.append(Candidate(t.task_id, 0, prog, prog, program=prog,
                                 program_sha256=hashlib.sha256(prog.encode()).hexdigest(), source="reference",
                                 source_ref=f"{t.set_id}:{t.task_id}", model_id="reference"))
        return out
    if c.source == "import":
        path = resolve_path(manifest_path, c.import_.path)
        candidates, rejected = _IMPORTERS[grader_of(manifest)](manifest, manifest_path, path, by_id)
        notes += [f"samples line {r.get('line')}: not imported: {r.get('reason')}" for r in rejected]
        if not_imported is not None:
            not_imported += rejected
        return candidates
    return []  # generated candidates arrive during the run


Imported = tuple[list[Candidate], list[dict]]    # the candidates, and each line left out (file, line, reason)


def _import_patches(manifest, manifest_path, path, by_id) -> Imported:
    from .patches import import_patches
    return import_patches(path, by_id), []


def _import_language_samples(manifest, manifest_path, path, by_id) -> Imported:
    """HumanEval-X / MultiPL-E samples files: each rejected line already names its file (name.jsonl:3)."""
    from .language_samples import import_language_samples
    c = manifest.candidates
    result = import_language_samples(path, by_id, fmt=c.import_.format, postprocess=c.postprocess)
    return list(result.candidates), [dict(r) for r in result.rejected]


def _import_function_samples(manifest, manifest_path, path, by_id) -> Imported:
    from .samples import import_samples
    spec = manifest.candidates.import_
    result = import_samples(path, by_id, fmt=spec.format, postprocess=postprocess_spec(manifest),
                            prompt_map=resolve_path(manifest_path, spec.prompt_map))
    return list(result.candidates), [{"file": Path(result.path).name, **r} for r in result.rejected]


# how a samples file becomes candidates, per grader the manifest's kinds name (core/kinds)
_IMPORTERS = {"python": _import_function_samples, "language": _import_language_samples,
              "repository": _import_patches}


def freeze(path: str) -> Manifest:
    """The manifest at `path` with its dataset and samples sha256 and its image digest pinned."""
    from passgate.core.tasks.io import path_sha256
    from passgate.core.kinds.sets import file_sha256, load_task_set
    manifest, _text = load_manifest(path)
    from .language_samples import language_set_of, pin_language_images
    sets = []
    languages: set[str] = set()
    for spec in manifest.tasks.sets:
        p = resolve_path(path, spec.path)
        ts = load_task_set(spec.kind, str(p) if p else None, slice=spec.slice,
                           task_ids=list(spec.task_ids) if spec.task_ids else None, split=spec.split,
                           exposure=spec.exposure, language=spec.language)
        languages |= language_set_of(ts)
        sets.append(dataclasses.replace(spec, sha256=ts.sha256, revision=spec.revision or ts.revision))
    manifest = dataclasses.replace(manifest, tasks=dataclasses.replace(manifest.tasks, sets=tuple(sets)))
    cand = manifest.candidates
    if cand.import_ is not None:
        imp = dataclasses.replace(cand.import_, sha256=path_sha256(resolve_path(path, cand.import_.path)))
        if imp.prompt_map:
            imp = dataclasses.replace(imp, prompt_map_sha256=file_sha256(resolve_path(path, imp.prompt_map)))
        manifest = dataclasses.replace(manifest, candidates=dataclasses.replace(cand, import_=imp))
    gen = manifest.generation
    if gen is not None and gen.fim is not None:
        from .fim import pinned
        manifest = dataclasses.replace(manifest, generation=dataclasses.replace(gen, fim=pinned(gen.fim)))
    from passgate.core.sandbox.docker_runner import docker_client
    if languages:             # tasks in other languages run in their languages' images only
        return pin_language_images(manifest, languages, docker_client(), path)
    digest = docker_client().images.get(manifest.execution.image).id
    manifest = dataclasses.replace(manifest, execution=dataclasses.replace(manifest.execution, image_digest=digest))
    return manifest
