"""`passgate freeze`: pin a manifest's inputs (dataset and samples sha256, image digest) and print its id."""

from __future__ import annotations

import dataclasses
from pathlib import Path


def register(sub) -> None:
    p = sub.add_parser("freeze", help="pin dataset/samples hashes and the image digest into a manifest")
    p.add_argument("manifest")
    p.add_argument("-o", "--output", help="write the frozen manifest here (default: print it)")
    p.add_argument("--in-place", action="store_true", help="rewrite the manifest file")
    p.set_defaults(func=_run)


def freeze(path: str):
    from ..manifest import load_manifest
    from ..tasks import file_sha256, load_task_set
    from ..manifest import resolve_path
    manifest, _text = load_manifest(path)
    sets = []
    for spec in manifest.tasks.sets:
        p = resolve_path(path, spec.path)
        ts = load_task_set(spec.kind, str(p) if p else None, slice=spec.slice,
                           task_ids=list(spec.task_ids) if spec.task_ids else None, split=spec.split,
                           exposure=spec.exposure)
        sets.append(dataclasses.replace(spec, sha256=ts.sha256, revision=spec.revision or ts.revision))
    manifest = dataclasses.replace(manifest, tasks=dataclasses.replace(manifest.tasks, sets=tuple(sets)))
    cand = manifest.candidates
    if cand.import_ is not None:
        imp = dataclasses.replace(cand.import_, sha256=file_sha256(resolve_path(path, cand.import_.path)))
        if imp.prompt_map:
            imp = dataclasses.replace(imp, prompt_map_sha256=file_sha256(resolve_path(path, imp.prompt_map)))
        manifest = dataclasses.replace(manifest, candidates=dataclasses.replace(cand, import_=imp))
    from ..sandbox.docker_runner import docker_client
    digest = docker_client().images.get(manifest.execution.image).id
    manifest = dataclasses.replace(manifest, execution=dataclasses.replace(manifest.execution, image_digest=digest))
    return manifest


def _run(args) -> int:
    from ..manifest import dump_manifest
    manifest = freeze(args.manifest)
    text = f"# frozen by passgate: manifest id {manifest.manifest_id}\n" + dump_manifest(manifest)
    target = args.manifest if args.in_place else args.output
    if target:
        Path(target).write_text(text)
        print(f"{manifest.manifest_id}  {target}")
    else:
        print(text, end="")
    return 0
