"""A kind is one folder and one registration line: the toy `sums` kind (tests/core/toy_kind) loads,
is accepted by the manifest, offered by the wizard, held out by the gate and graded by the engine in
gVisor, with nothing else in passgate changed."""

from __future__ import annotations

import pytest
import yaml

from passgate.core import kinds
from passgate.core.errors import ConfigError
from passgate.core.manifest import grader_of, parse_manifest
from passgate.core.tasks.io import file_sha256
from passgate.core.kinds.sets import load_task_set
from passgate.tui.wizard_model import task_kinds
from tests.core.enginekit import outcomes, run
from tests.core.toy_kind import SUMS


@pytest.fixture
def sums(tmp_path):
    kinds.register(SUMS)                    # the one line a new kind adds (core/kinds/__init__.py)
    path = tmp_path / "sums.csv"
    path.write_text("three,1,2\nten,4,6\n")
    yield path
    kinds.unregister("sums")


def test_the_toy_kind_loads_and_the_manifest_accepts_it(sums):
    ts = load_task_set("sums", sums)
    assert [t.task_id for t in ts.tasks] == ["sums/three", "sums/ten"]
    assert (ts.set_id, ts.revision) == ("sums", f"sha256:{file_sha256(sums)[:12]}")
    assert {t.exposure for t in ts.tasks} == {"holdout"}
    m = parse_manifest(yaml.safe_dump({"version": 1, "name": "toy", "tasks": {"sets": [
        {"kind": "sums", "path": str(sums), "exposure": "holdout"}]}, "candidates": {"source": "reference"}}))
    assert grader_of(m) == "python" and kinds.default_imports("sums") == ("any",)
    assert "sums" in task_kinds()


def test_an_unregistered_kind_is_refused_by_name(tmp_path):
    with pytest.raises(ConfigError, match="tasks.sets.0.kind: must be one of 'humaneval'"):
        parse_manifest(yaml.safe_dump({"version": 1, "name": "toy", "tasks": {"sets": [
            {"kind": "sums", "path": "x.csv"}]}, "candidates": {"source": "reference"}}))
    with pytest.raises(ConfigError, match="unknown task set kind 'sums'"):
        load_task_set("sums", tmp_path / "x.csv")


def test_the_toy_kind_grades_through_the_engine(sums, tmp_path, image_digest):
    manifest = tmp_path / "toy.yaml"
    manifest.write_text(yaml.safe_dump({
        "version": 1, "name": "toy", "operator": "tester",
        "tasks": {"sets": [{"kind": "sums", "path": str(sums), "sha256": file_sha256(sums)}]},
        "candidates": {"source": "reference"},
        "execution": {"image_digest": image_digest, "workers": 1, "timeout": {"calibrate": False, "floor_s": 3.0}}}))
    store, run_id = run(tmp_path, manifest)
    assert store.run(run_id)["status"] == "completed"
    assert {key: o["outcome"] for key, o in outcomes(store, run_id).items()} == {
        ("sums/three", 0): "passed", ("sums/ten", 0): "passed"}
