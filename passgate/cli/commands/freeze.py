"""`passgate freeze`: pin a manifest's inputs (dataset and samples sha256, image digest) and print its id."""

from __future__ import annotations

from pathlib import Path


def register(sub) -> None:
    p = sub.add_parser("freeze", help="pin dataset/samples hashes and the image digest into a manifest")
    p.add_argument("manifest")
    p.add_argument("-o", "--output", help="write the frozen manifest here (default: print it)")
    p.add_argument("--in-place", action="store_true", help="rewrite the manifest file")
    p.set_defaults(func=_run)


def _run(args) -> int:
    from passgate.core.candidates.inputs import freeze
    from passgate.core.manifest import dump_manifest
    manifest = freeze(args.manifest)
    text = f"# frozen by passgate: manifest id {manifest.manifest_id}\n" + dump_manifest(manifest)
    target = args.manifest if args.in_place else args.output
    if target:
        Path(target).write_text(text)
        print(f"{manifest.manifest_id}  {target}")
    else:
        print(text, end="")
    return 0
