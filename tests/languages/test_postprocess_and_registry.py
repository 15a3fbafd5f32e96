"""Stop tokens, fenced code from a chat answer, and languages by name (refusals with their reason)."""

import pytest

from passgate.core.errors import ConfigError
from passgate.core.languages.postprocess import apply_stop_tokens, fenced_code, postprocess
from passgate.core.languages.registry import SPECS, spec_for


def test_stop_tokens_cut_at_the_earliest():
    assert apply_stop_tokens("  return 1;\n}\nfunction x() {}\n// c", ("\n//", "\nfunction ")) == "  return 1;\n}"


def test_the_language_block_of_a_chat_answer_is_taken():
    answer = "Here:\n```python\nprint(1)\n```\nand\n```cpp\nint f() { return 1; }\n```\n"
    assert fenced_code(answer, ("cpp", "c++")) == "int f() { return 1; }\n"
    assert fenced_code("no code", ("cpp",)) is None
    text, notes = postprocess("```js\nreturn 1;\n}\n// tail\n```", stop_tokens=("\n//",), fence_tags=("js",),
                              extract_fenced=True)
    assert text == "return 1;\n}" and "extracted" in notes


def test_every_language_is_found_by_its_names():
    assert spec_for("JavaScript") is SPECS["js"] and spec_for("c++") is SPECS["cpp"] and spec_for("rust") is SPECS["rs"]


@pytest.mark.parametrize("name, missing", [("julia", "julia"), ("swift", "Swift compiler")])
def test_a_language_without_a_debian_toolchain_is_refused_naming_what_is_missing(name, missing):
    with pytest.raises(ConfigError) as err:
        spec_for(name)
    assert missing in str(err.value)


def test_an_unknown_language_lists_the_known_ones():
    with pytest.raises(ConfigError, match="grades"):
        spec_for("cobol")
