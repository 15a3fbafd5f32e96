"""A language image is reproducible: built twice from the mirror, one digest (JavaScript's, the
smallest toolchain that needs packages beyond the base)."""

import pytest

from passgate.core.languages.images import build_image
from passgate.core.languages.javascript import NODE

pytestmark = [pytest.mark.docker, pytest.mark.slow]


def test_the_node_image_built_twice_has_one_digest(docker_client, tmp_path):
    first = build_image(docker_client, NODE, workdir=str(tmp_path), log=lambda *_: None)
    second = build_image(docker_client, NODE, workdir=str(tmp_path), log=lambda *_: None)
    assert first == second
    assert docker_client.images.get(NODE.tag).id == first
