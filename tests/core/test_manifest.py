"""Manifest: strict validation naming file, line and key; canonical hashing; drift refusal."""

from __future__ import annotations

import textwrap

import pytest

from passgate.core.errors import ConfigError, DriftError
from passgate.core.manifest import dump_manifest, load_manifest, parse_manifest

BASE = textwrap.dedent("""\
    name: t
    tasks:
      sets:
        - kind: humaneval
          sha256: b796127e635a67f93fb35c04f4cb03cf06f38c8072ee7cee8833d7bee06979ef
    candidates:
      source: reference
    execution:
      image_digest: sha256:abc
      limits:
        cpu_s: 2
    """)


def write(tmp_path, text, name="m.yaml"):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_unknown_key_names_file_line_and_key(tmp_path):
    p = write(tmp_path, BASE + "    bogus: 1\n")
    with pytest.raises(ConfigError) as err:
        load_manifest(p)
    msg = str(err.value)
    assert str(p) in msg and ":12:" in msg and "execution.limits.bogus" in msg and "unknown key" in msg


def test_bad_value_names_the_key(tmp_path):
    p = write(tmp_path, BASE.replace("cpu_s: 2", "cpu_s: fast"))
    with pytest.raises(ConfigError, match=r"m.yaml:11: execution.limits.cpu_s: expected a number"):
        load_manifest(p)


def test_choice_fields_list_the_allowed_values(tmp_path):
    p = write(tmp_path, BASE.replace("source: reference", "source: magic"))
    with pytest.raises(ConfigError, match="candidates.source: must be one of 'reference', 'import', 'generate'"):
        load_manifest(p)


def test_missing_required_key_is_named(tmp_path):
    p = write(tmp_path, BASE.replace("candidates:\n  source: reference\n", ""))
    with pytest.raises(ConfigError, match="missing required key 'candidates'"):
        load_manifest(p)


def test_duplicate_key_is_refused(tmp_path):
    p = write(tmp_path, BASE + "name: again\n")
    with pytest.raises(ConfigError, match="key appears twice"):
        load_manifest(p)


def test_public_benchmark_cannot_be_called_a_holdout(tmp_path):
    p = write(tmp_path, BASE.replace("kind: humaneval\n", "kind: humaneval\n      exposure: holdout\n"))
    with pytest.raises(ConfigError, match="never be a holdout"):
        load_manifest(p)


def test_container_memory_must_leave_room_for_the_runtime(tmp_path):
    p = write(tmp_path, BASE.replace("cpu_s: 2", "cpu_s: 2\n    memory_mb: 1024\n    container_memory_mb: 1100"))
    with pytest.raises(ConfigError, match="container_memory_mb"):
        load_manifest(p)


def test_invalid_yaml_points_at_the_line(tmp_path):
    p = write(tmp_path, "name: [unclosed\n")
    with pytest.raises(ConfigError, match=r"m.yaml:\d+: not valid YAML"):
        load_manifest(p)


def test_same_meaning_gives_the_same_id_and_any_change_a_new_one():
    a = parse_manifest(BASE)
    b = parse_manifest(BASE.replace("cpu_s: 2", "cpu_s: 2.0"))          # same value, other spelling
    c = parse_manifest("# a comment\n" + BASE)
    d = parse_manifest(BASE.replace("cpu_s: 2", "cpu_s: 2.5"))
    assert a.manifest_id == b.manifest_id == c.manifest_id
    assert d.manifest_id != a.manifest_id
    assert a.manifest_id.startswith("m-") and len(a.manifest_id) == 18


def test_canonical_form_round_trips_through_yaml():
    m = parse_manifest(BASE)
    again = parse_manifest(dump_manifest(m))
    assert again == m and again.manifest_id == m.manifest_id


def test_defaults_are_the_secure_ones():
    ex = parse_manifest(BASE).execution
    assert ex.runtime == "runsc" and ex.network == "none" and ex.filesystem == "read-only-root"
    assert ex.packages == () and ex.limits.nproc <= 64 and ex.isolation == "shard"


def test_drift_in_the_dataset_is_refused(tmp_path, datasets):
    from passgate.core.candidates.inputs import load_inputs
    text = BASE.replace("b796127e635a67f93fb35c04f4cb03cf06f38c8072ee7cee8833d7bee06979ef", "'" + "0" * 64 + "'")
    m = parse_manifest(text)
    with pytest.raises(DriftError, match="dataset hash differs"):
        load_inputs(m, None)


def test_drift_in_the_samples_file_is_refused(tmp_path, datasets):
    from passgate.core.candidates.inputs import load_inputs
    samples = tmp_path / "s.jsonl"
    samples.write_text('{"task_id": "HumanEval/0", "completion": "    return True\\n"}\n')
    text = BASE.replace("source: reference", f"source: import\n  import:\n    path: {samples}\n    sha256: '{'1' * 64}'")
    with pytest.raises(DriftError, match="samples-file hash differs"):
        load_inputs(parse_manifest(text), None)


def test_unpinned_inputs_are_refused_until_frozen():
    from passgate.core.candidates.inputs import load_inputs
    m = parse_manifest(BASE.replace("      sha256: b796127e635a67f93fb35c04f4cb03cf06f38c8072ee7cee8833d7bee06979ef\n", ""))
    with pytest.raises(DriftError, match="passgate freeze"):
        load_inputs(m, None)


def test_image_drift_is_refused(docker_client):
    from passgate.core.sandbox.docker_runner import DockerRunner
    from tests.conftest import IMAGE, sandbox_limits
    runner = DockerRunner(image=IMAGE, runtime="runsc", limits=sandbox_limits(), client=docker_client)
    with pytest.raises(DriftError, match="image digest differs"):
        runner.check("sha256:" + "0" * 64)


def test_the_manifest_and_the_report_share_one_interval_specification():
    """`bootstrap_tasks` is an interval method for the manifest as for `passgate report --method`; a
    section's own rule (resamples) is an error at its line, before any run."""
    from passgate.core.score.intervals import IntervalSpec as ReportsSpec
    m = parse_manifest(BASE + "scoring:\n  interval:\n    method: bootstrap_tasks\n")
    assert m.scoring.interval.method == "bootstrap_tasks" and isinstance(m.scoring.interval, ReportsSpec)
    assert m.manifest_id != parse_manifest(BASE).manifest_id
    with pytest.raises(ConfigError, match=r"<manifest>:14: scoring.interval.resamples: interval resamples must be >= 2"):
        parse_manifest(BASE + "scoring:\n  interval:\n    resamples: 1\n")
