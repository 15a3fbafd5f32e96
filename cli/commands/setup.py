"""`passgate setup`: install and start what the sandbox needs, build the image when absent."""

from passgate.core.sandbox.image import DEFAULT_IMAGE


def register(sub) -> None:
    p = sub.add_parser("setup", help="install/start Docker + gVisor and build the sandbox image (idempotent)")
    p.add_argument("--image", default=DEFAULT_IMAGE)
    p.add_argument("--mirror", default=None, help="Debian mirror (default: the one in the apt sources)")
    p.set_defaults(func=_run)


def _run(args) -> int:
    from passgate.core.sandbox.setup import setup
    setup(args.image, mirror=args.mirror)
    return 0
