"""Build examples/repo/: repository tasks from released sdists (pip download --no-binary :all: --no-deps).

Each task reintroduces one bug into the released code (the snapshot); the released code is the
reference patch; some of the project's own test files are held back as protected. Run once by a
maintainer with the sdists in SDIST_DIR; the output (small tarballs, patches, test files, the
JSONL with every sha256) is committed. The protected test ids are collected by pytest in the
sandbox image's versions when the reference run records them (passgate checks they match).

    python scripts/make_repo_tasks.py SDIST_DIR examples/repo
"""

from __future__ import annotations

import difflib
import gzip
import hashlib
import io
import json
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

FIXED_MTIME = 1_700_000_000

# task id: project, version, kept paths, public tests, protected test files, bug (file, released, buggy),
#          instruction, pythonpath, build command
TASKS = [
    ("cachetools-lru-order", "cachetools", "5.3.3", ["src/cachetools"], ["tests/test_cache.py", "tests/test_fifo.py", "tests/test_lfu.py", "tests/__init__.py"],
     ["tests/test_lru.py"], ("src/cachetools/__init__.py",
      '    """Least Recently Used (LRU) cache implementation."""\n\n    def __init__(self, maxsize, getsizeof=None):\n        Cache.__init__(self, maxsize, getsizeof)\n        self.__order = collections.OrderedDict()\n\n    def __getitem__(self, key, cache_getitem=Cache.__getitem__):\n        value = cache_getitem(self, key)\n        if key in self:  # __missing__ may not store item\n            self.__update(key)\n        return value\n',
      '    """Least Recently Used (LRU) cache implementation."""\n\n    def __init__(self, maxsize, getsizeof=None):\n        Cache.__init__(self, maxsize, getsizeof)\n        self.__order = collections.OrderedDict()\n\n    def __getitem__(self, key, cache_getitem=Cache.__getitem__):\n        return cache_getitem(self, key)\n'),
     "LRUCache evicts the least recently *inserted* item: reading a key does not count as a use. Make a successful lookup mark the key as most recently used.",
     ["src"], "python3 -m compileall -q src"),
    ("cachetools-typedkey-kwargs", "cachetools", "5.3.3", ["src/cachetools"], ["tests/test_cached.py", "tests/test_cache.py", "tests/__init__.py"],
     ["tests/test_keys.py"], ("src/cachetools/keys.py",
      "    key += tuple(type(v) for v in args)\n", ""),
     "cachetools.keys.typedkey ignores the types of positional arguments: typedkey(1) and typedkey(1.0) give the same key. Include the type of each positional argument, before the keyword arguments' types.",
     ["src"], "python3 -m compileall -q src"),
    ("inflection-humanize-id", "inflection", "0.5.1", ["inflection"], [], ["test_inflection.py"],
     ("inflection/__init__.py", '    word = re.sub(r"_id$", "", word)\n', ""),
     "inflection.humanize keeps a trailing '_id': humanize('employee_id') should give 'Employee'.",
     [], "python3 -m compileall -q inflection"),
    ("inflection-ordinal-teens", "inflection", "0.5.1", ["inflection"], [], ["test_inflection.py"],
     ("inflection/__init__.py", "    if number % 100 in (11, 12, 13):\n", "    if number % 100 in (11, 12):\n"),
     "inflection.ordinal(13) returns 'rd'; every number ending in 11, 12 or 13 takes 'th'.",
     [], "python3 -m compileall -q inflection"),
    ("semver-bump-prerelease", "semver", "3.0.2", ["src/semver"], ["tests/test_semver.py", "tests/test_compare.py", "tests/conftest.py", "tests/coerce.py", "tests/semverwithvprefix.py"],
     ["tests/test_bump.py"], ("src/semver/version.py",
      "            next_ = str(int(match.group(1)) + 1)\n", "            next_ = str(int(match.group(1)))\n"),
     "Version.bump_prerelease and bump_build do not raise the last number: 1.2.3-rc.1 should bump to 1.2.3-rc.2.",
     ["src"], "python3 -m compileall -q src"),
    ("semver-match-less-than", "semver", "3.0.2", ["src/semver"], ["tests/test_semver.py", "tests/test_compare.py", "tests/conftest.py", "tests/coerce.py", "tests/semverwithvprefix.py"],
     ["tests/test_match.py"], ("src/semver/version.py",
      '        elif prefix and prefix[0] in (">", "<"):\n', '        elif prefix and prefix[0] in (">",):\n'),
     "Version.match does not understand the '<' operator on its own: match('<1.0.0') raises instead of comparing.",
     ["src"], "python3 -m compileall -q src"),
    ("six-iteritems-values", "six", "1.16.0", ["six.py"], [], ["test_six.py"],
     ("six.py", "    def iteritems(d, **kw):\n        return iter(d.items(**kw))\n",
      "    def iteritems(d, **kw):\n        return iter(d.values(**kw))\n"),
     "six.iteritems on Python 3 iterates the dictionary's values; it must iterate its (key, value) items.",
     [], "python3 -m compileall -q six.py"),
    ("tabulate-multiline-width", "tabulate", "0.9.0", ["tabulate"], ["test/test_api.py", "test/common.py"],
     ["test/test_internal.py"], ("tabulate/__init__.py",
      '    return max(map(line_width_fn, re.split("[\\r\\n]", multiline_s)))\n',
      '    return line_width_fn(multiline_s)\n'),
     "tabulate measures a multiline cell by its whole text; its visible width is that of its widest line.",
     [], "python3 -m compileall -q tabulate"),
    ("toolz-partition-all-tail", "toolz", "0.12.1", ["toolz", "tlz"], ["toolz/tests/test_recipes.py", "toolz/tests/test_utils.py", "toolz/tests/__init__.py"],
     ["toolz/tests/test_itertoolz.py"], ("toolz/itertoolz.py",
      "            yield prev[:len(seq) % n]\n", "            yield prev\n"),
     "toolz.partition_all pads the last partition of a sequence with a sentinel instead of shortening it: partition_all(2, [1, 2, 3]) must end with (3,).",
     [], "python3 -m compileall -q toolz"),
    ("toolz-merge-with-func", "toolz", "0.12.1", ["toolz", "tlz"], ["toolz/tests/test_recipes.py", "toolz/tests/test_utils.py", "toolz/tests/__init__.py"],
     ["toolz/tests/test_dicttoolz.py"], ("toolz/dicttoolz.py",
      "        result[k] = func(v.__self__)\n", "        result[k] = v.__self__\n"),
     "toolz.merge_with collects the values of each key but never applies the function to them: merge_with(sum, {1: 1}, {1: 2}) should be {1: 3}.",
     [], "python3 -m compileall -q toolz"),
    ("more-itertools-nth-offset", "more-itertools", "10.2.0", ["more_itertools"], [], ["tests/test_recipes.py", "tests/__init__.py"],
     ("more_itertools/recipes.py", "    return next(islice(iterable, n, None), default)\n",
      "    return next(islice(iterable, n + 1, None), default)\n"),
     "more_itertools.nth is off by one: nth(range(10), 3) must be 3, the item at index n.",
     [], "python3 -m compileall -q more_itertools"),
    ("wcwidth-wcswidth-n", "wcwidth", "0.2.13", ["wcwidth"], ["tests/test_emojis.py", "tests/__init__.py"],
     ["tests/test_core.py"], ("wcwidth/wcwidth.py",
      "    end = len(pwcs) if n is None else n\n", "    end = len(pwcs)\n"),
     "wcwidth.wcswidth ignores its n argument: it must measure only the first n characters when n is given.",
     [], "python3 -m compileall -q wcwidth"),
]


# protected ids left out, with the reason: they test the environment, not the code
EXCLUDED_IDS = {
    # reads the installed distribution's metadata, which a source snapshot on PYTHONPATH does not have
    "wcwidth-wcswidth-n": {"tests/test_core.py::test_package_version"},
}


def sdist_files(sdist: Path) -> dict[str, bytes]:
    out = {}
    with tarfile.open(sdist) as tar:
        for m in tar.getmembers():
            if m.isfile():
                out[m.name.split("/", 1)[1]] = tar.extractfile(m).read()
    return out


def keep(files: dict[str, bytes], roots: list[str]) -> dict[str, bytes]:
    return {p: d for p, d in files.items() if any(p == r or p.startswith(r + "/") for r in roots)
            and "__pycache__" not in p and not p.endswith((".pyc", ".so"))}


def tarball(tree: dict[str, bytes]) -> bytes:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for path in sorted(tree):
            info = tarfile.TarInfo(path)
            info.size, info.mtime, info.mode = len(tree[path]), FIXED_MTIME, 0o644
            tar.addfile(info, io.BytesIO(tree[path]))
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb", mtime=0, compresslevel=9) as gz:
        gz.write(raw.getvalue())
    return out.getvalue()


def diff(before: dict[str, bytes], after: dict[str, bytes]) -> str:
    out = []
    for path in sorted(set(before) | set(after)):
        a, b = before.get(path, b"").decode(), after.get(path, b"").decode()
        if a != b:
            out += difflib.unified_diff(a.splitlines(True), b.splitlines(True), f"a/{path}", f"b/{path}")
    return "".join(out)


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def collect_ids(files: dict[str, bytes], protected: list[str], pythonpath: list[str]) -> list[str]:
    with tempfile.TemporaryDirectory() as tmp:
        for path, data in files.items():
            (Path(tmp) / path).parent.mkdir(parents=True, exist_ok=True)
            (Path(tmp) / path).write_bytes(data)
        (Path(tmp) / "pg.ini").write_text("[pytest]\n")
        env_path = ":".join(str(Path(tmp) / p) for p in pythonpath)
        done = subprocess.run([sys.executable, "-m", "pytest", "-c", "pg.ini", "--rootdir", tmp, "-p",
                               "no:cacheprovider", "--collect-only", "-q", *protected], cwd=tmp,
                              capture_output=True, text=True, env={"PATH": "/usr/bin:/bin", "PYTHONPATH": env_path,
                                                                   "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
                                                                   "PYTHONHASHSEED": "0"})
    ids = [line.strip() for line in done.stdout.splitlines() if "::" in line]
    if not ids:
        raise SystemExit(f"no protected ids collected: {done.stdout[-800:]} {done.stderr[-800:]}")
    return ids


def build(task, sdists: Path, out: Path) -> dict:
    task_id, project, version, roots, public, protected, bug, instruction, pythonpath, setup = task
    files = sdist_files(sdists / f"{project}-{version}.tar.gz")
    released = {p: d for p, d in keep(files, roots + public).items() if p not in protected}
    path, good, bad = bug
    if released[path].decode().count(good) != 1:
        raise SystemExit(f"{task_id}: the released text is not unique in {path}")
    buggy = dict(released)
    buggy[path] = released[path].decode().replace(good, bad).encode()
    snap = tarball(buggy)
    (out / "snapshots" / f"{task_id}.tar.gz").write_bytes(snap)
    patch = diff(buggy, released).encode()
    (out / "patches" / f"{task_id}.diff").write_bytes(patch)
    prot = {}
    for rel in protected:
        target = out / "protected" / task_id / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(files[rel])
        prot[rel] = {"file": f"protected/{task_id}/{rel}", "sha256": sha(files[rel])}
    ids = [i for i in collect_ids({**released, **{r: files[r] for r in protected}}, protected, pythonpath)
           if i not in EXCLUDED_IDS.get(task_id, set())]
    sdist_sha = sha((sdists / f"{project}-{version}.tar.gz").read_bytes())
    return {"task_id": task_id, "instruction": instruction, "snapshot": f"snapshots/{task_id}.tar.gz",
            "snapshot_sha256": sha(snap), "setup_command": setup,
            "public_tests": [p for p in public if Path(p).name.startswith("test_")],
            "protected_tests": prot, "protected_test_ids": ids,
            "reference_patch": f"patches/{task_id}.diff", "reference_patch_sha256": sha(patch),
            "pythonpath": pythonpath, "slice": project, "tags": ["bug" if bad else "feature"],
            "project": {"name": project, "version": version, "sdist_sha256": sdist_sha}}


def main() -> None:
    sdists, out = Path(sys.argv[1]), Path(sys.argv[2])
    for sub in ("snapshots", "patches", "protected"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    lines = [json.dumps(build(task, sdists, out), sort_keys=True) for task in TASKS]
    (out / "tasks.jsonl").write_text("\n".join(lines) + "\n")
    print(f"{len(lines)} tasks in {out / 'tasks.jsonl'}")


if __name__ == "__main__":
    main()
