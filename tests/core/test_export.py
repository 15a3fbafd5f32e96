"""Exports: JSON, Markdown for a release ticket, JUnit XML for CI, hand-written SVG plots."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from passgate.cli.main import main
from passgate.core.export.formats import to_json, to_junit, to_markdown
from passgate.core.export.svg import write_svgs
from passgate.core.record.store import Store
from passgate.core.score.report import build_report
from tests.core.report_kit import standard_run

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    path = tmp_path_factory.mktemp("export") / "export.db"
    store = Store(path)
    standard_run(store, k=(1, 3))
    report = build_report(store, "run-kit", whatif=["timeout=1"])
    yield store, report
    store.close()


def test_json_round_trips_with_its_schema(setup):
    _, report = setup
    assert json.loads(to_json(report))["schema"] == "passgate.report/1"


def test_markdown_tables_are_well_formed_and_carry_the_headline(setup):
    _, report = setup
    md = to_markdown(report)
    assert md.startswith("# passgate report")
    assert "**pass@1 (micro) = 0.457 [" in md
    for heading in ("## Configuration", "## pass@k", "## Public vs protected tests", "## Filtered and ranked",
                    "## Execution and cost", "## Omissions", "## Self-probe and preflight", "## What-if"):
        assert heading in md
    lines = md.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("|---"):
            width = lines[i - 1].count(" | ")
            j = i + 1
            while j < len(lines) and lines[j].startswith("| "):
                cells = lines[j].replace("\\|", "").count(" | ")
                assert cells == width, f"row {j} has {cells + 1} cells, header {width + 1}: {lines[j]}"
                j += 1
    assert "unmatched import line 7" in md and "H/3" in md


def test_junit_has_one_testcase_per_task(setup):
    _, report = setup
    root = ET.fromstring(to_junit(report))
    assert root.tag == "testsuites"
    cases = {c.get("name"): c for c in root.iter("testcase")}
    assert set(cases) == {"H/0", "H/1", "H/2", "H/3", "M/0", "M/1"}
    assert cases["H/2"].find("failure") is not None            # 0 of 2 counted passed
    assert cases["H/3"].find("skipped") is not None            # nothing counted
    assert cases["H/0"].find("failure") is None and cases["H/0"].find("skipped") is None
    assert (root.get("tests"), root.get("failures"), root.get("skipped")) == ("6", "1", "1")
    suites = {s.get("name"): s for s in root.iter("testsuite")}
    assert set(suites) == {"humaneval", "mbpp"}
    assert suites["humaneval"].get("tests") == "4" and suites["humaneval"].get("failures") == "1"
    assert cases["M/1"].get("classname") == "passgate.mbpp"


def test_svg_plots_are_valid_svg(setup, tmp_path):
    _, report = setup
    paths = write_svgs(report, tmp_path / "plots")
    assert [p.name for p in paths] == ["pass_at_k.svg", "slices.svg", "exec_time.svg"]
    for path in paths:
        root = ET.parse(path).getroot()
        assert root.tag == f"{SVG}svg"
    bars = ET.parse(tmp_path / "plots" / "exec_time.svg").getroot().findall(f"{SVG}rect")
    assert len(bars) == 1 + len(report["execution"]["histogram"]["counts"])   # background + one per bin
    slices = ET.parse(tmp_path / "plots" / "slices.svg").getroot()
    labels = [t.text for t in slices.iter(f"{SVG}text")]
    assert "slice: humaneval" in labels and "tag: math" in labels


def test_report_command_writes_every_format(setup, tmp_path, capsys):
    store, _ = setup
    out = tmp_path / "out"
    assert main(["--db", str(store.path), "report", "run-kit", "--json", str(out / "r.json"), "--markdown",
                 str(out / "r.md"), "--junit", str(out / "r.xml"), "--svg", str(out / "svg")]) == 0
    assert json.loads((out / "r.json").read_text())["run"]["run_id"] == "run-kit"
    assert (out / "r.md").read_text().startswith("# passgate report")
    ET.parse(out / "r.xml")
    assert sorted(p.name for p in (out / "svg").iterdir()) == ["exec_time.svg", "pass_at_k.svg", "slices.svg"]
    printed = capsys.readouterr()
    assert printed.out.startswith("╭─ passgate report")   # files written, the terminal report still shown
    assert "wrote " in printed.err and "wrote " not in printed.out
    assert main(["--db", str(store.path), "report", "run-kit", "--markdown"]) == 0
    assert capsys.readouterr().out.startswith("# passgate report")
