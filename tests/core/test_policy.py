"""Boundary policies: shipped files load, every key is commented, bad files fail naming file, line and key."""

import re

import pytest

from passgate.core.errors import ConfigError
from passgate.core.gate.policy import available_policies, load_policy, parse_policy, policies_dir
from passgate.core.gate.vocab import BOUNDARIES, SECURE_DEFAULT

SECURE_TEXT = (policies_dir() / "secure-default.yaml").read_text()


def edited(old: str, new: str) -> str:
    assert old in SECURE_TEXT, old
    return SECURE_TEXT.replace(old, new, 1)


def test_shipped_policies_load_by_name():
    assert {"secure-default", "product-egress-mirror"} <= set(available_policies())
    for name in available_policies():
        assert load_policy(name).name == name


def test_secure_default_relaxes_nothing_and_matches_the_fixed_vocabulary():
    p = load_policy("secure-default")
    assert p.relaxed() == []
    assert {b: p.setting(b) for b in BOUNDARIES} == SECURE_DEFAULT


def test_the_egress_policy_relaxes_network_and_dependencies_with_justifications():
    p = load_policy("product-egress-mirror")
    assert p.relaxed() == ["network", "dependencies"]
    assert p.boundaries.network.allowlist == ("pypi-mirror.internal.example:443",)
    assert "mirror" in p.boundaries.network.justification


@pytest.mark.parametrize("name", [p.name for p in sorted(policies_dir().glob("*.yaml"))])
def test_every_key_in_a_shipped_policy_is_commented(name):
    for number, line in enumerate((policies_dir() / name).read_text().splitlines(), 1):
        if re.match(r"^\s*[a-z_0-9]+:", line) or re.match(r"^\s*- ", line):
            assert "#" in line, f"{name}:{number} has no comment: {line!r}"


def test_a_policy_is_found_by_path(tmp_path):
    path = tmp_path / "mine.yaml"
    path.write_text(SECURE_TEXT.replace("name: secure-default", "name: mine"))
    assert load_policy(str(path)).name == "mine"
    assert load_policy(str(path)).source == str(path)


def test_an_unknown_policy_name_lists_the_shipped_ones():
    with pytest.raises(ConfigError, match="no policy named 'nope'.*secure-default"):
        load_policy("nope")


def test_an_unknown_key_names_file_line_and_key():
    text = edited("    setting: runsc ", "    sandbox: kata\n    setting: runsc ")
    with pytest.raises(ConfigError) as exc:
        parse_policy(text, "p.yaml")
    line = text.splitlines().index("    sandbox: kata") + 1
    assert f"p.yaml:{line}: boundaries.runtime.sandbox: unknown key 'sandbox'" in str(exc.value)


def test_a_bad_setting_lists_the_allowed_ones():
    with pytest.raises(ConfigError, match=r"boundaries\.network\.setting: must be one of 'none', 'egress-allowlist', 'open'"):
        parse_policy(edited("    setting: none               # none | egress", "    setting: some  # none | egress"), "p.yaml")


def test_a_missing_boundary_is_an_error():
    start = SECURE_TEXT.index("  holdout:")
    end = SECURE_TEXT.index("\nevidence:")
    with pytest.raises(ConfigError, match="boundaries.holdout: missing required key 'holdout'"):
        parse_policy(SECURE_TEXT[:start] + SECURE_TEXT[end:], "p.yaml")


def test_a_relaxation_without_justification_is_refused():
    text = edited("    setting: runsc ", "    setting: runc  ")
    with pytest.raises(ConfigError, match=r"boundaries\.runtime\.justification: relaxes the secure default "
                                          r"\(runsc -> runc\): a justification is required"):
        parse_policy(text, "p.yaml")


def test_egress_needs_an_allow_list_of_hosts():
    text = edited("    setting: none               # none | egress", "    setting: egress-allowlist  # none | egress")
    text = text.replace('    justification: ""           # why this policy relaxes', '    justification: "x" # why', 1)
    with pytest.raises(ConfigError, match="boundaries.network.allowlist: an allow-list is required"):
        parse_policy(text, "p.yaml")
    text = text.replace("    allowlist: []               # host", "    allowlist: ['http://x/']  # host", 1)
    with pytest.raises(ConfigError, match=r"boundaries\.network\.allowlist\.0: 'http://x/' is not host or host:port"):
        parse_policy(text, "p.yaml")


def test_the_name_must_match_the_file_when_found_by_name():
    with pytest.raises(ConfigError, match="name: must match the file name"):
        parse_policy(SECURE_TEXT.replace("name: secure-default", "name: other"), "secure-default.yaml",
                     expect_name="secure-default")


def test_release_may_not_be_looser_than_canary():
    text = edited("    max_risk: low ", "    max_risk: high")
    with pytest.raises(ConfigError, match="consequence.release.max_risk: release may not accept more risk than canary"):
        parse_policy(text, "p.yaml")


def test_a_canary_never_accepts_critical_risk():
    text = edited("    max_risk: medium ", "    max_risk: critical")
    with pytest.raises(ConfigError, match="critical risk is never acceptable"):
        parse_policy(text, "p.yaml")


def test_evidence_bands_must_be_ordered():
    text = edited("    strong: 0.01                # at most: strong\n    adequate: 0.05",
                  "    strong: 0.09                # at most: strong\n    adequate: 0.05")
    with pytest.raises(ConfigError, match="evidence.flaky_rate: need 0 <= strong <= adequate <= 1"):
        parse_policy(text, "p.yaml")


def test_a_policy_records_its_own_hash():
    assert len(load_policy("secure-default").sha256) == 64


def test_the_public_benchmark_policy_relaxes_the_holdout_only():
    p = load_policy("public-benchmark")
    assert p.relaxed() == ["holdout"] and "never a holdout" in p.boundaries.holdout.justification
