"""Every command formats to the terminal's width (issue 24, item 1): `gate`, `verify`, `signoff --list`,
`report` and `compare` of real runs (graded in the gVisor sandbox) read at 80 and 120 columns with no
line past the edge and no word split across lines: every word printed is a word the same command
prints when it has all the room it wants."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

from passgate.cli.main import main
from tests.tui import realrun

# what tables and bars draw: not words
DRAWING = re.compile(r"[─━│┃┌┐└┘├┤┬┴┼╭╮╰╯═║╔╗╚╝╠╣╦╩╬▏▎▍▌▋▊▉█]+")
MODEL = "gpt-3.5-turbo-instruct-0914"        # a long name: it must fold between runs of text, never mid-word


def run_cli(db: Path, width: int, *args: str) -> str:
    out = io.StringIO()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("COLUMNS", str(width))
        with contextlib.redirect_stdout(out):
            main(["--db", str(db), *args])
    return out.getvalue()


def words(text: str) -> set[str]:
    return set(DRAWING.sub(" ", text).split())


def assert_reads_at(db: Path, width: int, *args: str) -> str:
    text = run_cli(db, width, *args)
    assert text.strip(), f"{args} printed nothing"
    for number, line in enumerate(text.splitlines(), start=1):
        assert len(line) <= width, f"{args} line {number} is past {width} columns: {line!r}"
        assert "…" not in line, f"{args} line {number} cuts a cell short: {line!r}"
    split = sorted(words(text) - words(run_cli(db, 1000, *args)))
    assert not split, f"{args} at {width} columns splits words: {split[:10]}"
    return text


def record(directory: Path, db: Path, name: str) -> str:
    from passgate.core.candidates.inputs import freeze
    from passgate.core.manifest import dump_manifest
    samples = realrun.write_samples(directory)
    manifest = directory / f"{name}.yaml"
    manifest.write_text(realrun.manifest_text(samples, name=name).replace("journey-model", MODEL))
    manifest.write_text(dump_manifest(freeze(str(manifest))))
    return realrun.record_run(db, manifest)


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory) -> tuple[Path, str, str]:
    """Two real runs on the same five tasks, the second signed off by a reviewer."""
    directory = tmp_path_factory.mktemp("cli-width")
    db = directory / "record.db"
    first = record(directory, db, "nightly-baseline")
    second = record(directory, db, "nightly-candidate")
    assert main(["--db", str(db), "signoff", second, "--boundary", "holdout", "--reviewer", "sec-reviewer",
                 "--statement", "public benchmark regression check; no release claim"]) == 0
    return db, first, second


COMMANDS = {
    "gate": lambda a, b: ("gate", b, "--baseline", a),
    "verify": lambda a, b: ("verify", b),
    "signoff --list": lambda a, b: ("signoff", b, "--list"),
    "report": lambda a, b: ("report", b, "--tasks"),
    "compare": lambda a, b: ("compare", a, b),
}


@pytest.mark.docker
@pytest.mark.parametrize("width", [80, 120])
@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_real_runs_command_reads_at(command, width, two_runs):
    db, first, second = two_runs
    text = assert_reads_at(db, width, *COMMANDS[command](first, second))
    if command == "report":
        assert MODEL in text and "pass@1" in text
    if command == "signoff --list":
        assert "sec-reviewer" in text and "T" not in re.findall(r"\d{4}-\d\d-\d\d(\S)", text)   # no raw ISO times


def test_the_fixed_records_commands_read_at_80_columns(fixed_db):
    from tests.tui.fixture_db import ALTERED, BASELINE, RUN
    for args in (("gate", RUN, "--baseline", BASELINE), ("verify", ALTERED), ("signoff", RUN, "--list"),
                 ("report", RUN, "--tasks"), ("compare", BASELINE, RUN), ("gate", ALTERED)):
        assert_reads_at(fixed_db, 80, *args)


def test_without_a_terminal_the_width_is_80(monkeypatch):
    from passgate.cli.text import terminal_width
    monkeypatch.delenv("COLUMNS", raising=False)
    assert terminal_width() == 80          # pytest's stdout is not a terminal
