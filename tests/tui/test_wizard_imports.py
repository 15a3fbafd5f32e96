"""The wizard's allowed-imports field: what is typed reaches the manifest through its loader."""

from __future__ import annotations

import pytest

from passgate.core.errors import ConfigError
from passgate.tui.wizard_model import TaskSetChoice, WizardState


def test_an_empty_field_keeps_the_kinds_default_and_a_list_reaches_the_manifest():
    state = WizardState(sets=[TaskSetChoice(kind="humaneval"), TaskSetChoice(kind="product", path="p.jsonl")])
    assert [s.imports_words() for s in state.sets] == ["stdlib", "any"]
    assert "allowed_imports" not in state.yaml_text()
    state.sets[0].allowed_imports = "numpy, stdlib"
    assert state.sets[0].imports_words() == "stdlib, numpy"
    assert state.manifest().tasks.sets[0].imports == ("stdlib", "numpy")


def test_a_bad_value_is_refused_with_the_loaders_sentence():
    state = WizardState(sets=[TaskSetChoice(kind="humaneval", allowed_imports="any, numpy")])
    with pytest.raises(ConfigError, match="stands alone"):
        state.manifest()
