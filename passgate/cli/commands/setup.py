"""`passgate setup`: install and start what the sandbox needs, build the image when absent; with
`--manifest`, also build the manifest's package-allowlist image (execution.packages) from its
pinned base, or the image of each language its tasks use (HumanEval-X, MultiPL-E), and check that
each has the digest the manifest pins."""

from passgate.core.sandbox.image import DEFAULT_IMAGE


def register(sub) -> None:
    p = sub.add_parser("setup", help="install/start Docker + gVisor and build the sandbox image (idempotent)")
    p.add_argument("--image", default=DEFAULT_IMAGE)
    p.add_argument("--mirror", default=None, help="Debian mirror (default: the one in the apt sources)")
    p.add_argument("--manifest", metavar="MANIFEST",
                   help="also build this manifest's package-allowlist image (execution.packages), or the "
                        "images of the languages its tasks use")
    p.set_defaults(func=_run)


def _run(args) -> int:
    from passgate.core.sandbox.setup import setup
    if not args.manifest:
        setup(args.image, mirror=args.mirror)
        return 0
    from passgate.core.errors import DriftError
    from passgate.core.manifest import load_manifest, uses_languages
    from passgate.core.sandbox.docker_runner import docker_client
    from passgate.core.sandbox.packages import build_allowlist_image
    manifest, _ = load_manifest(args.manifest)
    ex = manifest.execution
    if uses_languages(manifest):        # only the images of the languages this manifest uses
        from passgate.core.run.languages import setup_language_images
        setup(args.image, mirror=args.mirror)
        setup_language_images(manifest, args.manifest, client=docker_client(timeout=900), mirror=args.mirror)
        return 0
    base = ex.base_image or args.image
    setup(base, mirror=args.mirror)
    tag, digest = build_allowlist_image(docker_client(), base, ex.packages, expected_base=ex.base_image_digest,
                                        tag=ex.image)
    if ex.image_digest and digest != ex.image_digest:
        raise DriftError(f"built {tag} as {digest}, but {args.manifest} pins {ex.image_digest}")
    print(f"{tag} {digest}")
    return 0
