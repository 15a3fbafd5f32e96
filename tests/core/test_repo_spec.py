"""A repository task's spec (core/model.py RepoSpec): parsed once, stored in the record as the same
JSON text it always was, and refused with the field named when the stored text is not a spec."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from passgate.core.errors import StoreError
from passgate.core.kinds.sets import load_task_set
from passgate.core.model import RepoSpec
from passgate.core.run.rows import task_of, task_rows

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "repo"
# a tasks.repo_json cell as records written before the spec was typed hold it
STORED = ('{"project": {"name": "demo", "url": "https://example.org/demo"}, "protected_test_ids": '
          '["tests/test_a.py::test_one"], "protected_tests": {"tests/test_a.py": "def test_one():\\n    pass\\n"}, '
          '"public_tests": ["tests/test_b.py"], "pythonpath": ["src"], "setup_command": "", "snapshot": '
          '"snapshots/demo.tar.gz", "snapshot_b64": "H4sIAAAAAAAA", "snapshot_sha256": "' + "ab" * 32 + '", '
          '"timeout_s": 120.0}')


def _tasks():
    return load_task_set("repo", EXAMPLES / "tasks.jsonl").tasks


def test_a_stored_spec_reads_back_to_the_same_bytes():
    spec = RepoSpec.from_json(STORED)
    assert spec.to_json() == STORED
    assert spec.pythonpath == ("src",) and spec.protected_tests["tests/test_a.py"].startswith("def test_one")


def test_every_example_spec_round_trips_through_the_record_row():
    for task in _tasks():
        (row,) = task_rows([task])
        assert row["repo_json"] == task.repo.to_json()
        assert RepoSpec.from_json(row["repo_json"]).to_json() == row["repo_json"]
        assert task_of("run", row).repo == task.repo


def test_a_task_without_a_spec_stores_none_and_reads_back_none():
    assert RepoSpec.from_record(None) is None and RepoSpec.from_record("") is None


def test_the_spec_cannot_be_changed_and_its_task_stays_hashable():
    task = _tasks()[0]
    with pytest.raises(TypeError):
        task.repo.protected_tests["tests/new.py"] = ""      # type: ignore[index]
    assert hash(task) == hash(_tasks()[0])


@pytest.mark.parametrize("change, words", [
    ({"timeout_s": "fast"}, "timeout_s: 'fast' is not a number"),
    ({"pythonpath": "src"}, "pythonpath: 'src' is not a list of text"),
    ({"protected_tests": {"tests/test_a.py": 1}}, "protected_tests: .* is not an object of path: text"),
    ({"colour": "blue"}, "colour: unknown"),
])
def test_a_malformed_stored_spec_names_its_field(change, words):
    with pytest.raises(ValueError, match=f"repository spec: {words}"):
        RepoSpec.from_json(json.dumps({**json.loads(STORED), **change}))


def test_a_missing_field_or_text_that_is_not_a_spec_is_named():
    data = json.loads(STORED)
    del data["snapshot_b64"]
    with pytest.raises(ValueError, match="repository spec: snapshot_b64: missing"):
        RepoSpec.from_json(json.dumps(data))
    for text in ("{not json", "[]"):
        with pytest.raises(ValueError, match="repository spec: not a JSON object"):
            RepoSpec.from_json(text)


def test_a_broken_spec_in_the_record_is_a_record_error_naming_run_and_task():
    (row,) = task_rows(_tasks()[:1])
    row = {**row, "task_id": "t1", "repo_json": STORED.replace('"pythonpath"', '"python_path"')}
    with pytest.raises(StoreError, match="run r1, task t1: repo_json: repository spec: python_path: unknown"):
        task_of("r1", row)
