"""One patch, graded: the snapshot unpacked into scratch, the patch applied strictly, the reverse
patch checked to restore the snapshot, the build and the public tests run, then the protected tests
copied in (hashed before and after) and run on the tree as the build left it. Nothing the tests
print or return as an exit code decides anything."""

import base64
import hashlib
import os
import shutil

from .apply import PatchError, apply_patch
from .candidate import as_candidate, lay_out, write_files
from .settings import HOME, PG, REPO, WORK
from .suites import run_build, run_tests
from .tree import changed_files, read_tree, tree_hash, unpack


def _sha(data):
    return hashlib.sha256(data).hexdigest()


def _protected_hashes(paths):
    out = {}
    for path in paths:
        full = os.path.join(REPO, path)
        try:
            with open(full, "rb") as fh:
                out[path] = _sha(fh.read())
        except OSError:
            out[path] = None
    return out


def rollback(tree, patched, patch):
    """Whether the reverse patch applies to the patched tree and gives back the snapshot."""
    try:
        restored, _ = apply_patch(patched, patch, reverse=True)
    except PatchError as exc:
        return {"applies": False, "restores": False, "detail": str(exc)}
    same = tree_hash(restored) == tree_hash(tree)
    return {"applies": True, "restores": same, "detail": "" if same else "the tree differs from the snapshot"}


def _prepare(job):
    as_candidate(lambda: shutil.rmtree(WORK, ignore_errors=True) or os.makedirs(HOME))
    shutil.rmtree(PG, ignore_errors=True)
    os.makedirs(PG, mode=0o755)
    for name, text in (("passgate_report.py", job["plugin"]), ("pytest.ini", "[pytest]\n")):
        with open(os.path.join(PG, name), "w") as fh:
            fh.write(text)


def _place_protected(files):
    as_candidate(lambda: write_files({p: t.encode("utf-8") for p, t in files.items()}, 0o444))


def _applied(job, result):
    """The patched tree, with what applying did written into `result`; None when the patch does not apply."""
    tree = unpack(base64.b64decode(job["snapshot"]))
    result["tree_before"] = tree_hash(tree)
    patch = job.get("patch") or ""
    try:
        patched, touched = apply_patch(tree, patch) if patch.strip() else (dict(tree), [])
    except PatchError as exc:
        result["apply_error"] = str(exc)
        return None
    result.update(applied=True, touched=touched, tree_after=tree_hash(patched))
    result["rollback"] = rollback(tree, patched, patch) if patch.strip() else {"applies": True, "restores": True,
                                                                               "detail": "empty patch"}
    return patched


def grade(job, on_test):
    """The grader's reply for one job; `on_test(suite, event)` hears each test as it is reported."""
    _prepare(job)
    result = {"applied": False, "apply_error": "", "build": {"status": "not_run"},
              "public": {"status": "not_run", "tests": {}}, "protected": {"status": "not_run", "tests": {}}}
    patched = _applied(job, result)
    if patched is None:
        return result
    lay_out(patched)
    result["build"] = run_build(job)
    if result["build"]["status"] != "passed":
        return result
    built = read_tree()
    result["public"] = run_tests(job, "public", job.get("public_args") or [], on_test)
    result["changed_by_public"] = changed_files(built, read_tree())[:50]
    lay_out(built)                      # the protected run starts from the built tree, not the public run's
    protected = job.get("protected") or {}
    _place_protected(protected)
    before = _protected_hashes(protected)
    result["protected"] = run_tests(job, "protected", job.get("protected_args") or [], on_test)
    after = _protected_hashes(protected)
    result["protected_hashes"] = {"before": before, "after": after,
                                  "expected": {p: _sha(t.encode("utf-8")) for p, t in protected.items()}}
    return result
