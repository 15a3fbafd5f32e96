"""The grader's strict patch application (core/sandbox/repo_program/apply.py), on in-memory trees."""

import importlib.util
from pathlib import Path

import pytest

SPEC = importlib.util.spec_from_file_location(
    "repo_apply", Path(__file__).resolve().parents[2] / "passgate" / "core" / "sandbox" / "repo_program" / "apply.py")
apply = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(apply)

TREE = {"pkg/a.py": b"one\ntwo\nthree\n", "pkg/b.py": b"x = 1\n"}
PATCH = ("--- a/pkg/a.py\n+++ b/pkg/a.py\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n"
         "--- /dev/null\n+++ b/pkg/c.py\n@@ -0,0 +1 @@\n+new\n"
         "--- a/pkg/b.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-x = 1\n")


def test_applies_and_reverses_to_the_same_tree():
    patched, touched = apply.apply_patch(TREE, PATCH)
    assert patched == {"pkg/a.py": b"one\nTWO\nthree\n", "pkg/c.py": b"new\n"}
    assert touched == ["pkg/a.py", "pkg/c.py", "pkg/b.py"]
    restored, _ = apply.apply_patch(patched, PATCH, reverse=True)
    assert restored == TREE


def test_a_context_mismatch_names_file_hunk_and_line():
    stale = PATCH.replace(" three\n", " THREE\n", 1)
    with pytest.raises(apply.PatchError, match=r"pkg/a.py: hunk 1 does not match at line 3"):
        apply.apply_patch(TREE, stale)


def test_no_offset_is_tried():
    """GNU patch would find the hunk one line further down; a strict apply refuses."""
    moved = {"pkg/a.py": b"zero\none\ntwo\nthree\n", "pkg/b.py": b"x = 1\n"}
    with pytest.raises(apply.PatchError, match="hunk 1 does not match at line 1"):
        apply.apply_patch(moved, PATCH)


def test_missing_file_existing_target_and_escaping_paths():
    with pytest.raises(apply.PatchError, match="no such file"):
        apply.apply_patch({"pkg/b.py": b"x = 1\n"}, PATCH)
    with pytest.raises(apply.PatchError, match="already exists"):
        apply.apply_patch({**TREE, "pkg/c.py": b""}, PATCH)
    with pytest.raises(apply.PatchError, match="not inside the repository"):
        apply.apply_patch(TREE, "--- a/../etc/passwd\n+++ b/../etc/passwd\n@@ -1 +1 @@\n-a\n+b\n")


def test_no_newline_marker_and_garbage():
    tree = {"f.txt": b"a\nb"}
    patch = "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n"
    assert apply.apply_patch(tree, patch)[0] == {"f.txt": b"a\nc\n"}
    with pytest.raises(apply.PatchError, match="not a unified diff"):
        apply.apply_patch(tree, "please fix the bug\n")
    with pytest.raises(apply.PatchError, match="ends inside a hunk"):
        apply.apply_patch(tree, "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n a\n")
