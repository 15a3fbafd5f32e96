"""The language images the tests need: built once when absent (the Docker engine keeps them across
sessions), then reused; a build takes one to a few minutes per language (docs/languages.md)."""

from __future__ import annotations

import fcntl
from pathlib import Path

from passgate.core.languages.images import ensure_image
from passgate.core.languages.registry import spec_for

LOCK = Path("/var/tmp/passgate-language-images.lock")


# the languages graded in-process, whose images (R, Racket, Mono, Scala, ...) take the longest to build:
# the suite builds them only when asked, and otherwise grades them only where they are already built
IN_PROCESS = ("rb", "php", "pl", "r", "rkt", "d", "cs", "scala")
BUILD_ALL = "PASSGATE_TEST_BUILD_ALL_LANGUAGES"


def language_image(client, language: str) -> str:
    """The language's image id, building it first when this engine does not have it (an in-process
    language's only with PASSGATE_TEST_BUILD_ALL_LANGUAGES=1; the test is skipped otherwise)."""
    import os

    import docker.errors
    import pytest
    toolchain = spec_for(language).toolchain
    if language in IN_PROCESS and not os.environ.get(BUILD_ALL):
        try:
            return client.images.get(toolchain.tag).id
        except docker.errors.ImageNotFound:
            pytest.skip(f"{toolchain.tag} is not built; set {BUILD_ALL}=1 to build it")
    with open(LOCK, "w") as lock:          # two test sessions never build the same image at once
        fcntl.flock(lock, fcntl.LOCK_EX)
        return ensure_image(client, toolchain, workdir="/var/tmp", log=lambda *_: None)
