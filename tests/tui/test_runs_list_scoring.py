"""The runs list's pass@1 follows each run's frozen scoring contract, as its report's headline does."""

from __future__ import annotations

import pytest

from passgate.core.errors import ConfigError

from passgate.core.record.store import Store
from passgate.core.score.report import build_report
from passgate.tui import records
from tests.core import report_kit


@pytest.fixture()
def store(tmp_path):
    s = Store(tmp_path / "r.db")
    yield s
    s.close()


def test_the_runs_list_shows_the_reports_headline_under_the_frozen_aggregation_and_weights(store):
    report_kit.standard_run(store, "r-macro", aggregation="macro", weights={"humaneval": 3, "mbpp": 1})
    headline = build_report(store, "r-macro", parallel=False)["scores"]["headline"]
    assert headline["aggregation"] == "macro"
    assert records.pass_at_1_by_run(store)["r-macro"] == pytest.approx(headline["value"])


def test_a_run_without_its_manifest_is_listed_under_the_default_contract(store):
    report_kit.standard_run(store, "r-macro", aggregation="macro", weights={"humaneval": 3, "mbpp": 1})
    store.db.execute("UPDATE manifests SET canonical_json = ''")
    headline = build_report(store, "r-macro", parallel=False)["scores"]["headline"]
    assert headline["aggregation"] == "micro"
    assert records.pass_at_1_by_run(store)["r-macro"] == pytest.approx(headline["value"])


def test_a_run_whose_manifest_cannot_be_read_shows_no_figure_as_its_report_gives_none(store):
    report_kit.standard_run(store, "r-macro", aggregation="macro", weights={"humaneval": 3, "mbpp": 1})
    store.db.execute("UPDATE manifests SET canonical_json = '{not json'")
    with pytest.raises(ConfigError, match="the run's frozen manifest: not JSON"):
        build_report(store, "r-macro", parallel=False)
    assert "r-macro" not in records.pass_at_1_by_run(store)
