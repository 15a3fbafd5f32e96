"""What a candidate patch touches, read before it runs (unidiff): files and lines changed, test
and test-configuration files, dependency files, secrets on added lines (detect-secrets), and the
patch that will be graded once refused hunks are taken out."""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from pathlib import PurePosixPath

TEST_DIRS = {"tests", "test", "testing"}
TEST_CONFIG = {"conftest.py", "pytest.ini", "tox.ini", "noxfile.py", ".coveragerc"}
SHARED_CONFIG = {"setup.cfg", "pyproject.toml"}           # test configuration when the lines name pytest
DEPENDENCY_FILES = ("pyproject.toml", "setup.py", "setup.cfg", "Pipfile", "Pipfile.lock", "poetry.lock",
                    "requirements*.txt", "requirements/*.txt", "constraints*.txt", "*.lock", "environment.yml")


@dataclass
class DiffScan:
    """A patch read as data. `graded_patch` is what the sandbox applies."""

    parse_error: str = ""
    files: list[dict] = field(default_factory=list)
    lines_added: int = 0
    lines_removed: int = 0
    hunks: int = 0
    test_files: list[str] = field(default_factory=list)
    test_config: list[str] = field(default_factory=list)
    dependency_files: list[str] = field(default_factory=list)
    secrets: list[dict] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    graded_patch: str = ""

    @property
    def files_changed(self) -> int:
        return len(self.files)

    @property
    def reviewer_burden(self) -> int:
        """Lines a reviewer reads: added + removed, plus one per hunk for the context switch."""
        return self.lines_added + self.lines_removed + self.hunks

    def as_dict(self) -> dict:
        return {"parse_error": self.parse_error, "files": self.files, "files_changed": self.files_changed,
                "lines_added": self.lines_added, "lines_removed": self.lines_removed, "hunks": self.hunks,
                "reviewer_burden": self.reviewer_burden, "test_files": self.test_files,
                "test_config": self.test_config, "dependency_files": self.dependency_files,
                "secrets": self.secrets, "refused": self.refused}


def is_test_file(path: str) -> bool:
    p = PurePosixPath(path)
    return bool(TEST_DIRS & set(p.parts[:-1])) or p.name.startswith("test_") or p.name.endswith("_test.py")


def is_test_config(path: str, changed_lines: list[str]) -> bool:
    p = PurePosixPath(path)
    if p.name in TEST_CONFIG or p.name.startswith("pytest_"):
        return True
    return p.name in SHARED_CONFIG and any("pytest" in line for line in changed_lines)


def is_dependency_file(path: str) -> bool:
    return any(fnmatch.fnmatch(path, pat) or fnmatch.fnmatch(PurePosixPath(path).name, pat) for pat in DEPENDENCY_FILES)


def scan_patch(text: str, *, refuse_test_edits: bool = True) -> DiffScan:
    """Read the patch; under `refuse_test_edits` the files of tests and test configuration are left out
    of the graded patch (and listed in `refused`)."""
    from unidiff import PatchSet
    from unidiff.errors import UnidiffParseError
    scan = DiffScan()
    try:
        patch = PatchSet(text)
    except UnidiffParseError as exc:
        scan.parse_error = str(exc)[:300]
        scan.graded_patch = text
        return scan
    kept = []
    for pf in patch:
        path = pf.path
        changed = [line.value for hunk in pf for line in hunk if line.is_added or line.is_removed]
        kinds = _kinds(path, changed)
        scan.files.append({"path": path, "added": pf.added, "removed": pf.removed, "kinds": kinds,
                           "status": "added" if pf.is_added_file else "removed" if pf.is_removed_file else "modified"})
        scan.lines_added += pf.added
        scan.lines_removed += pf.removed
        scan.hunks += len(pf)
        if "test" in kinds:
            scan.test_files.append(path)
        if "test_config" in kinds:
            scan.test_config.append(path)
        if "dependency" in kinds:
            scan.dependency_files.append(path)
        scan.secrets += _secrets(pf)
        if refuse_test_edits and ({"test", "test_config"} & set(kinds)):
            scan.refused.append(path)
        else:
            kept.append(pf)
    scan.graded_patch = text if not scan.refused else "".join(str(pf) for pf in kept)
    if not scan.files:
        scan.parse_error = "no file changes in the patch"
    return scan


def _kinds(path: str, changed: list[str]) -> list[str]:
    kinds = []
    if is_test_file(path):
        kinds.append("test")
    if is_test_config(path, changed):
        kinds.append("test_config")
    if is_dependency_file(path):
        kinds.append("dependency")
    return kinds or ["code"]


def _secrets(pf) -> list[dict]:
    """detect-secrets on each added line; the finding keeps the file, line and kinds, never the value."""
    from detect_secrets.core.scan import scan_line
    from detect_secrets.settings import default_settings
    found = []
    with default_settings():
        for hunk in pf:
            for line in hunk:
                if not line.is_added:
                    continue
                kinds = sorted({s.type for s in scan_line(line.value.rstrip("\n"))})
                # entropy alone flags hashes and ids everywhere: a finding needs a named detector
                if any("High Entropy" not in kind for kind in kinds):
                    found.append({"path": pf.path, "line": line.target_line_no, "types": kinds})
    return found
