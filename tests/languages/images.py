"""The language images the tests need: built once when absent (the Docker engine keeps them across
sessions), then reused; a build takes one to a few minutes per language (docs/languages.md)."""

from __future__ import annotations

import fcntl
from pathlib import Path

from passgate.core.languages.images import ensure_image
from passgate.core.languages.registry import spec_for

LOCK = Path("/var/tmp/passgate-language-images.lock")


def language_image(client, language: str) -> str:
    """The language's image id, building it first when this engine does not have it."""
    toolchain = spec_for(language).toolchain
    with open(LOCK, "w") as lock:          # two test sessions never build the same image at once
        fcntl.flock(lock, fcntl.LOCK_EX)
        return ensure_image(client, toolchain, workdir="/var/tmp", log=lambda *_: None)
