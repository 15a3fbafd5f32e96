"""What one language image is made of: its Debian packages and what to drop from them. Data only, so
that the language specs and the loaders that name a toolchain never import the image builder
(core/languages/images.py) or the sandbox."""

from __future__ import annotations

from dataclasses import dataclass

SUITE = "bookworm"      # the Debian suite of every image, the Python sandbox's too (core/sandbox/image.py)
IMAGE_REPO = "passgate-lang"
# what every language image carries beside its toolchain: the interpreter of the in-sandbox supervisor
# (core/languages/supervisor.py) and of the boundary self-probe
SUPERVISOR_PACKAGES = ("python3",)


@dataclass(frozen=True)
class Toolchain:
    """The Debian packages one image carries, and the build-dependent files to drop from it."""

    name: str
    packages: tuple[str, ...]
    drop: tuple[str, ...] = ()          # paths (relative to the root) whose content varies per build
    env: tuple[str, ...] = ()           # extra image environment, NAME=value
    apt_packages: tuple[str, ...] = ()  # installed by apt inside the new root: packages whose dependencies
                                        # debootstrap cannot resolve (virtual packages)
    prepare: str = ""                   # a shell script run in the new root (offline) before it is packed

    @property
    def tag(self) -> str:
        return f"{IMAGE_REPO}:{self.name}-{SUITE}"

    @property
    def all_packages(self) -> tuple[str, ...]:
        """What debootstrap installs: the supervisor's interpreter, then the toolchain."""
        return (*SUPERVISOR_PACKAGES, *(p for p in self.packages if p not in SUPERVISOR_PACKAGES))
