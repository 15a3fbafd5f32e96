"""The README stays in step with the CLI and the set-up scripts."""

from __future__ import annotations

import os
import re
from pathlib import Path

from passgate.cli.main import build_parser

REPO = Path(__file__).resolve().parents[2]
README = (REPO / "README.md").read_text()


def subcommands() -> list[str]:
    parser = build_parser()
    action = next(a for a in parser._actions if a.dest == "command")
    return sorted(action.choices)


def test_every_command_is_documented_in_the_readme():
    missing = [c for c in subcommands() if f"passgate {c}" not in README]
    assert missing == [], f"README lacks: {missing}"


def test_the_readme_leads_with_the_two_setup_commands_and_they_exist():
    first_block = README.split("```sh", 1)[1].split("```", 1)[0]
    commands = re.findall(r"^(scripts/\S+)", first_block, re.M)
    assert commands == ["scripts/demo.sh", "scripts/test.sh"]
    for c in commands:
        assert os.access(REPO / c, os.X_OK), c


def test_ci_runs_the_readme_test_command():
    ci = (REPO / ".ci" / "run").read_text()
    assert "scripts/test.sh" in ci and os.access(REPO / ".ci" / "run", os.X_OK)


def test_the_test_script_refuses_an_empty_test_run():
    assert '"$rc" = 5' in (REPO / "scripts" / "test.sh").read_text()


def test_every_example_manifest_parses():
    from passgate.core.manifest import load_manifest
    for path in (REPO / "examples").glob("*.yaml"):
        manifest, _ = load_manifest(path)
        assert manifest.execution.image_digest or manifest.execution.language_images, path
