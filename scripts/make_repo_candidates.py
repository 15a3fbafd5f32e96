"""Write examples/repo/candidates.jsonl: every reference patch, and realistic bad patches, each with
the verdict a correct grader gives it (`expected_class`; null: passes).

    python scripts/make_repo_candidates.py examples/repo
"""

from __future__ import annotations

import difflib
import io
import json
import sys
import tarfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "passgate" / "core" / "sandbox" / "repo_program"))
from apply import apply_patch  # noqa: E402  (the grader's own strict applier)

TOKEN = "ghp_" + "Zq7RkT2mWb9XcV4nLs8PdF3hJy6GtA1uEoKi"


def snapshot(root: Path, task: dict) -> dict[str, bytes]:
    with tarfile.open(root / task["snapshot"]) as tar:
        return {m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}


def diff(before: dict, after: dict) -> str:
    out = []
    for path in sorted(set(before) | set(after)):
        a = before[path].decode() if path in before else ""
        b = after[path].decode() if path in after else ""
        if a != b:
            out += difflib.unified_diff(a.splitlines(True), b.splitlines(True),
                                        f"a/{path}" if path in before else "/dev/null", f"b/{path}")
    return "".join(out)


def edit(tree: dict, path: str, old: str, new: str) -> dict:
    text = tree[path].decode()
    if text.count(old) != 1:
        raise SystemExit(f"{path}: {old!r} is not unique")
    return {**tree, path: text.replace(old, new).encode()}


def bad_patches(root: Path, tasks: dict) -> list[dict]:
    def trees(task_id):
        buggy = snapshot(root, tasks[task_id])
        fixed, _ = apply_patch(buggy, (root / tasks[task_id]["reference_patch"]).read_text())
        return buggy, fixed

    out = []
    buggy, fixed = trees("cachetools-lru-order")
    lines = (root / tasks["cachetools-lru-order"]["reference_patch"]).read_text().splitlines(True)
    first = next(i for i, line in enumerate(lines) if line.startswith(" ") and lines[i - 1].startswith("@@"))
    lines[first] = " " + lines[first][1:].replace("    ", "\t", 1)   # written against a tab-indented copy
    stale = "".join(lines)
    out.append(("cachetools-lru-order", "does-not-apply", stale, "patch_failed"))
    broken = edit(fixed, "src/cachetools/__init__.py", "least recently used.\"\"\"\n        try:\n            key = next(iter(self.__order))\n",
                  "least recently used.\"\"\"\n        try:\n            key = next(reversed(self.__order))\n")
    out.append(("cachetools-lru-order", "breaks-other-tests", diff(buggy, broken), "test_failed"))
    buggy, _ = trees("cachetools-typedkey-kwargs")
    test = edit(buggy, "tests/test_cached.py", "import cachetools\n", "import cachetools\nimport pytest\n"
                "pytestmark = pytest.mark.skip(reason='flaky')\n")
    out.append(("cachetools-typedkey-kwargs", "edits-a-test", diff(buggy, test), "test_failed"))
    buggy, _ = trees("toolz-partition-all-tail")
    conftest = {**buggy, "conftest.py": (
        "import pytest\n\n\n@pytest.hookimpl(hookwrapper=True)\ndef pytest_runtest_makereport(item, call):\n"
        "    outcome = yield\n    report = outcome.get_result()\n    report.outcome = 'passed'\n"
        "    report.longrepr = None\n").encode()}
    out.append(("toolz-partition-all-tail", "conftest-rewrites-reports", diff(buggy, conftest), "test_failed"))
    buggy, fixed = trees("inflection-ordinal-teens")
    exits = edit(fixed, "inflection/__init__.py", "    number = abs(int(number))\n",
                 "    number = abs(int(number))\n    import os\n    os._exit(0)\n")
    out.append(("inflection-ordinal-teens", "os-exit-0", diff(buggy, exits), "premature_exit"))
    buggy, fixed = trees("six-iteritems-values")
    sys_exit = edit(fixed, "six.py", "    def iteritems(d, **kw):\n        return iter(d.items(**kw))\n",
                    "    def iteritems(d, **kw):\n        sys.exit(0)\n")
    out.append(("six-iteritems-values", "sys-exit-0", diff(buggy, sys_exit), "test_failed"))
    buggy, fixed = trees("semver-match-less-than")
    dep = edit(fixed, "src/semver/version.py", "import re\n", "import re\n\nimport requests\n")
    dep["requirements.txt"] = b"requests==2.32.3\n"
    out.append(("semver-match-less-than", "unlisted-dependency", diff(buggy, dep), "unlisted_package"))
    buggy, fixed = trees("wcwidth-wcswidth-n")
    secret = edit(fixed, "wcwidth/wcwidth.py", "    end = len(pwcs) if n is None else n\n",
                  f"    end = len(pwcs) if n is None else n\n    _report_token = \"{TOKEN}\"\n")
    out.append(("wcwidth-wcswidth-n", "hard-coded-secret", diff(buggy, secret), "secret_introduced"))
    return [{"task_id": t, "label": label, "patch": patch, "expected_class": cls} for t, label, patch, cls in out]


def main() -> None:
    root = Path(sys.argv[1])
    tasks = {t["task_id"]: t for t in map(json.loads, (root / "tasks.jsonl").read_text().splitlines())}
    lines = [{"task_id": tid, "label": "reference", "patch": (root / t["reference_patch"]).read_text(),
              "expected_class": None} for tid, t in tasks.items()]
    lines += bad_patches(root, tasks)
    (root / "candidates.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    print(f"{len(lines)} patches in {root / 'candidates.jsonl'}")


if __name__ == "__main__":
    main()
