"""Loading repository task sets and patch candidates: pins, and errors naming file, line and field."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from passgate.core.candidates.patches import import_patches
from passgate.core.errors import ConfigError
from passgate.core.kinds.sets import load_task_set

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "repo"


def test_the_examples_load_pinned():
    ts = load_task_set("repo", EXAMPLES / "tasks.jsonl")
    assert len(ts.tasks) == 12 and len({t.slice for t in ts.tasks}) == 8
    for t in ts.tasks:
        spec = t.repo
        assert t.completion_style == "patch" and t.reference_solution.startswith("--- a/")
        assert spec.protected_test_ids and set(spec.protected_tests) and spec.snapshot_b64


def _copy(tmp_path: Path) -> Path:
    shutil.copytree(EXAMPLES, tmp_path / "repo")
    return tmp_path / "repo" / "tasks.jsonl"


def _rewrite(path: Path, line: int, **changes) -> None:
    rows = [json.loads(x) for x in path.read_text().splitlines()]
    rows[line - 1].update(changes)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


@pytest.mark.parametrize("change, field", [
    ({"snapshot_sha256": "0" * 64}, "snapshot_sha256"),
    ({"reference_patch_sha256": "0" * 64}, "reference_patch_sha256"),
    ({"protected_test_ids": ["elsewhere.py::test_x"]}, "protected_test_ids"),
    ({"snapshot": "../../etc/passwd"}, "snapshot"),
    ({"colour": "blue"}, "colour"),
    ({"public_tests": "tests/"}, "public_tests"),
    ({"timeout_s": "fast"}, "timeout_s"),
])
def test_bad_lines_name_file_line_and_field(tmp_path, change, field):
    path = _copy(tmp_path)
    _rewrite(path, 3, **change)
    with pytest.raises(ConfigError) as info:
        load_task_set("repo", path)
    assert (info.value.line, info.value.field) == (3, field) and str(path) in str(info.value)


def test_a_changed_protected_file_is_refused(tmp_path):
    path = _copy(tmp_path)
    target = next((tmp_path / "repo" / "protected" / "six-iteritems-values").rglob("test_six.py"))
    target.write_text(target.read_text() + "\n")
    with pytest.raises(ConfigError, match="sha256"):
        load_task_set("repo", path)


def test_patch_candidates_keep_their_raw_text(tmp_path):
    tasks = {t.task_id: t for t in load_task_set("repo", EXAMPLES / "tasks.jsonl").tasks}
    cands = import_patches(EXAMPLES / "candidates.jsonl", tasks)
    assert len(cands) == 20 and all(c.raw_text == c.processed_text == c.program for c in cands)
    bad = tmp_path / "c.jsonl"
    bad.write_text(json.dumps({"task_id": "nope", "patch": "x"}) + "\n")
    with pytest.raises(ConfigError) as info:
        import_patches(bad, tasks)
    assert (info.value.line, info.value.field) == (1, "task_id")
