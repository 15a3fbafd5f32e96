"""What the layout promises, checked on the source: SQL is written only in core/record/, the engine
asks runners only what the Runner interface declares, the task kinds are listed once, and no engine
module grows past a screenful of screens."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SQL = re.compile(r"\.execute(many)?\(|select .* from |insert into", re.IGNORECASE)
OWN = ("passgate", "benchmarks", "scripts")
CORE = ROOT / "passgate" / "core"


def _sources(*folders: str):
    for folder in folders:
        yield from sorted((ROOT / folder).rglob("*.py"))


def _hits(pattern: re.Pattern, files) -> list[str]:
    return [f"{path.relative_to(ROOT)}:{n}: {line.strip()}" for path in files
            for n, line in enumerate(path.read_text().splitlines(), 1) if pattern.search(line)]


def test_sql_is_written_only_in_the_record():
    outside = [p for p in _sources(*OWN) if not p.is_relative_to(CORE / "record")]
    assert _hits(SQL, outside) == []


def test_the_sql_check_can_fail():
    assert _hits(SQL, [CORE / "record" / "queries" / "scans.py"])


def test_the_engine_never_asks_a_runner_what_its_interface_does_not_declare():
    assert _hits(re.compile(r"getattr\((self\.)?runner\b"), _sources("passgate/core")) == []


def test_the_kind_names_are_written_once():
    """A kind's name is a string in its own module under core/kinds and nowhere else in the engine
    or the console (docs and tests aside)."""
    names = ("mbpp-sanitized", "humanevalplus", "mbppplus", "humaneval-infilling")
    pattern = re.compile("|".join(f'"{n}"' for n in names))
    found = [h for h in _hits(pattern, _sources("passgate")) if not h.startswith("passgate/core/kinds/")]
    assert found == []


def test_no_engine_module_is_over_600_lines():
    long = {str(p.relative_to(ROOT)): n for p in _sources("passgate/core") if (n := len(p.read_text().splitlines())) > 600}
    assert long == {}


def test_the_engine_names_no_grader():
    """The engine runs the pipeline the manifest's kinds name (core/run/pipelines.py); it never
    branches on one itself."""
    engine = CORE / "run" / "engine.py"
    branches = re.compile(r"grader_of|[=!]=\s*\"(python|language|repository)\"")
    assert _hits(branches, [engine]) == []
    assert _hits(branches, [CORE / "run" / "pipelines.py"])


def test_every_grader_a_kind_may_name_has_a_pipeline_and_a_samples_importer():
    from typing import get_args

    from passgate.core.candidates.inputs import _IMPORTERS
    from passgate.core.kinds import Grader
    from passgate.core.run.pipelines import PIPELINES
    assert set(PIPELINES) == set(_IMPORTERS) == set(get_args(Grader))


def test_pyflakes_finds_nothing_in_the_package():
    """ruff reads every module, the programs that run inside the sandbox included: a name used and
    never defined or imported is an error here, not in a container."""
    found = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--select", "F",
                            "--output-format", "concise", str(ROOT / "passgate")],
                           capture_output=True, text=True, cwd=ROOT)
    assert found.returncode == 0, found.stdout + found.stderr
