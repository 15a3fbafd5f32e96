"""The values model and each comparison rule, as the languages' own equality decides them."""

import json
import math
import shutil
import subprocess

import pytest

from passgate.core.languages.compare import Compare, _js_to_number, matches
from passgate.core.languages.gofmt import go_v
from passgate.core.languages.jsnumber import js_json_stringify, js_number_str
from passgate.core.languages.values import UNDEFINED, Char, Float32, Map, Opt, SetOf, Tuple, decode


def test_tagged_values_decode_to_their_kinds():
    assert math.isnan(decode({"f": "nan"}))
    assert decode({"f": "-0"}) == 0 and math.copysign(1, decode({"f": "-0"})) < 0
    assert decode({"c": "x"}) == Char("x")
    assert decode({"t": [1, "a"]}) == Tuple((1, "a"))
    assert decode({"m": [["k", 1]]}) == Map((("k", 1),))
    assert decode({"opt": []}) == Opt(False) and decode({"opt": [3]}) == Opt(True, 3)
    assert decode({"u": 1}) is UNDEFINED
    assert isinstance(decode({"f4": 0.5}), Float32)


def test_javascript_numbers_print_as_javascript_prints_them():
    assert [js_number_str(x) for x in (1.0, 0.1, 1e21, 1e-7, 123456789012345680000.0, -0.5)] == \
        ["1", "0.1", "1e+21", "1e-7", "123456789012345680000", "-0.5"]
    assert js_json_stringify([1.0, math.nan, UNDEFINED, "a"]) == '[1,null,null,"a"]'


def test_json_stringify_equality_is_javascripts():
    assert matches([3.0, 1], [3, 1], Compare("js_json"))
    assert matches(math.nan, None, Compare("js_json"))           # JSON.stringify(NaN) === "null"
    assert not matches([1, 2], [2, 1], Compare("js_json"))


def test_strict_loose_and_deep_equality_follow_node():
    assert not matches(1, "1", Compare("js_strict"))
    assert matches(1, "1", Compare("js_loose"))
    assert not matches(math.nan, math.nan, Compare("js_strict"))
    assert matches([math.nan], [math.nan], Compare("js_deep"))     # Node 18: NaN deep-equals NaN
    assert matches([1, "2"], [1, 2], Compare("js_deep"))
    assert not matches([1, "2"], [1, 2], Compare("js_deep_strict"))
    assert not matches(True, 1, Compare("js_strict"))


# ECMAScript's StringToNumber: what `==` makes of a string compared with a number
JS_NUMBERS = {
    "10": 10, " 10 ": 10, "\t\n\v\f\r\u00a0\u2028\u2029\ufeff\u3000 10 \u1680\u202f": 10, "": 0, " \n ": 0,
    "+10": 10, "-10": -10, "1.": 1, ".5": 0.5, "-.5": -0.5, "1e3": 1000, "1E+3": 1000, "1.e3": 1000, "+.5e-2": 0.005,
    "010": 10, "-0": 0, "1e400": math.inf, "Infinity": math.inf, "+Infinity": math.inf, "-Infinity": -math.inf,
    "0x1F": 31, "0X1f": 31, "0o17": 15, "0O17": 15, "0b101": 5, "0B11": 3, "9007199254740993": 9007199254740992,
    "0x" + "f" * 300: math.inf,
}
JS_NAN = ("1_0", "1_000", "inf", "-inf", "nan", "NaN", "infinity", "INFINITY", "Infinityx", "-0x1", "+0x1", "0x_1",
          "0x1_0", "0o8", "0b2", "0x", "0b", "0o", "1e", "e3", ".", ".e1", "+-1", "--1", "+ 1", "1 2", "1..2", "1e1.5",
          "1,000", "1n", "1L", "1f", "0x1p3", "\u0661", "\u0661\u0660", "\uff11\uff10", "\u00b2", "\u00bd",
          "\x1c10", "\x8510", "\u200b10", "True", "None", "null", "[]")


def test_javascript_to_number_takes_exactly_the_string_numeric_literal_grammar():
    for text, value in JS_NUMBERS.items():
        assert _js_to_number(text) == value, text
    assert math.copysign(1, _js_to_number("-0")) < 0
    for text in JS_NAN:
        assert math.isnan(_js_to_number(text)), text


def test_loose_equality_with_a_number_rejects_what_python_float_would_take():
    assert not matches("1_0", 10, Compare("js_loose"))           # float("1_0") == 10.0
    assert not matches(10, "1_0", Compare("js_loose"))
    assert not matches("inf", math.inf, Compare("js_loose")) and not matches("infinity", math.inf, Compare("js_loose"))
    assert not matches("nan", math.nan, Compare("js_loose"))
    assert not matches("\u0661\u0660", 10, Compare("js_loose"))  # Arabic-Indic digits
    assert not matches(["1_0"], [10], Compare("js_deep"))
    assert matches("Infinity", math.inf, Compare("js_loose")) and matches(" 0x10\n", 16, Compare("js_loose"))
    assert matches("", 0, Compare("js_loose")) and matches(True, "1.0", Compare("js_loose"))
    assert matches(["0b11"], [3], Compare("js_deep"))


@pytest.mark.skipif(shutil.which("node") is None, reason="needs Node to compare with")
def test_javascript_to_number_agrees_with_node():
    cases = [*JS_NUMBERS, *JS_NAN] + [chr(c) + "1" for c in (*range(0x21), 0x85, 0xa0, 0x1680, *range(0x2000, 0x2030),
                                                          0x205f, 0x3000, 0xfeff)]
    script = ("const c = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
              "console.log(JSON.stringify(c.map(s => { const n = Number(s); return n !== n ? 'NaN' : String(n); })))")
    out = subprocess.run(["node", "-e", script], input=json.dumps(cases), capture_output=True, text=True, check=True)
    for text, node in zip(cases, json.loads(out.stdout)):
        ours = _js_to_number(text)
        assert ("NaN" if math.isnan(ours) else js_number_str(ours)) == node, repr(text)


def test_a_brace_list_takes_the_type_it_initialises_in_cpp():
    assert matches(Map(((Char("a"), 1),)), [[Char("a"), 1]], Compare("cpp_eq"))
    assert matches(Tuple((1, 2)), [1, 2], Compare("cpp_eq"))
    assert matches(True, 1, Compare("cpp_eq"))
    assert matches([0.10000000149011612], [0.1], Compare("approx", 1e-4, inclusive=True))


def test_java_equals_keeps_boxed_types_apart():
    assert not matches(1.0, 1, Compare("java_equals"))
    assert matches(math.nan, math.nan, Compare("java_equals"))    # Double.equals
    assert not matches(0.0, -0.0, Compare("java_equals"))
    assert matches(SetOf((1, 2)), SetOf((2, 1)), Compare("java_equals"))
    assert matches(Opt(False), None, Compare("java_is_empty"))


def test_rust_compares_an_f32_with_a_literal_at_f32_precision():
    actual = Float32(0.33000001311302185)
    assert matches(actual, 0.33, Compare("eq"))
    assert not matches(0.33000001311302185, 0.33, Compare("eq"))


def test_go_percent_v_matches_go_output():
    # the Go line: fmt.Printf("%v|%v|%v|%v|%v|%v|%v|%v", 1000000.0, 123456.0, 1234567.0, 1e20, 0.0001, 0.00001,
    # []float64{1, 2.5}, map[string]int{"b": 1, "a": 2}) printed by go1.19.8 in the go image
    values = (1000000.0, 123456.0, 1234567.0, 1e20, 0.0001, 0.00001, [1.0, 2.5], Map((("b", 1), ("a", 2))))
    assert "|".join(go_v(v) for v in values) == "1e+06|123456|1.234567e+06|1e+20|0.0001|1e-05|[1 2.5]|map[a:2 b:1]"
    assert go_v([1, "a", None]) == "[1 a <nil>]"


def test_a_javascript_bigint_is_a_type_of_its_own():
    ten = decode({"big": "10"})
    assert repr(ten) == "10n"
    assert not matches(ten, 10, Compare("js_strict")) and matches(ten, 10, Compare("js_not_strict"))
    assert matches(ten, 10, Compare("js_loose")) and matches(ten, "10", Compare("js_loose"))
    assert not matches(ten, "10.0", Compare("js_loose")) and not matches(ten, 10.5, Compare("js_loose"))
    assert matches([ten], [10], Compare("js_deep")) and not matches([ten], [10], Compare("js_deep_strict"))
    assert not matches(ten, 10, Compare("js_json"))              # JSON.stringify(10n) throws
    assert not matches(ten, 10.0, Compare("approx", 1e-6))       # 10n - 10 throws
    assert matches(decode({"big": "0"}), False, Compare("truthy"))
    assert matches(decode({"big": "9" * 400}), True, Compare("truthy"))


@pytest.mark.skipif(shutil.which("node") is None, reason="needs Node to compare with")
def test_bigint_equality_agrees_with_node():
    pairs = [("10", 10), ("10", "10"), ("10", " 0xa "), ("10", "10.0"), ("10", 10.5), ("0", False), ("1", True),
             ("-3", -3), ("10", ""), ("0", ""), ("123", "1_23")]
    script = ("const assert = require('assert'); const p = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
              "const ok = f => { try { f(); return true; } catch (e) { return false; } };"
              "console.log(JSON.stringify(p.map(([a, e]) => { const b = BigInt(a); return ["
              "b === e, b == e, ok(() => assert.deepEqual([b], [e])), ok(() => assert.deepStrictEqual([b], [e]))]; })))")
    out = subprocess.run(["node", "-e", script], input=json.dumps(pairs), capture_output=True, text=True, check=True)
    rules = ("js_strict", "js_loose", "js_deep", "js_deep_strict")
    for (a, e), node in zip(pairs, json.loads(out.stdout)):
        ours = [matches(decode({"big": a}) if r in ("js_strict", "js_loose") else [decode({"big": a})],
                        e if r in ("js_strict", "js_loose") else [e], Compare(r)) for r in rules]
        assert ours == node, (a, e, dict(zip(rules, node)))


def test_node_assert_rules_are_node_s_own():
    nan = math.nan
    assert matches(nan, nan, Compare("js_same")) and not matches(-0.0, 0, Compare("js_same"))
    assert matches(nan, nan, Compare("js_assert_equal")) and matches("1", 1, Compare("js_assert_equal"))
    assert not matches(nan, nan, Compare("js_strict")) and matches(-0.0, 0, Compare("js_strict"))
    assert not matches([-0.0], [0], Compare("js_deep_strict")) and matches([-0.0], [0], Compare("js_deep"))
    assert matches([nan], [nan], Compare("js_deep_strict"))


@pytest.mark.skipif(shutil.which("node") is None, reason="needs Node to compare with")
def test_node_assert_rules_agree_with_node():
    pairs = [[0, -0.0], [-0.0, -0.0], ["NaN", "NaN"], [1, 1.0], [1, "1"], [0, False], [None, None], ["a", "a"]]
    script = ("const assert = require('assert'); const p = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
              "const v = x => x === 'NaN' ? NaN : (x === '-0' ? -0 : x);"
              "const ok = f => { try { f(); return true; } catch (e) { return false; } };"
              "console.log(JSON.stringify(p.map(([a, e]) => [ok(() => assert.strictEqual(v(a), v(e))), "
              "ok(() => assert.equal(v(a), v(e))), ok(() => assert.deepStrictEqual([v(a)], [v(e)])), "
              "ok(() => assert.deepEqual([v(a)], [v(e)]))])))")
    wire = [[("-0" if isinstance(x, float) and x == 0 and math.copysign(1, x) < 0 else x) for x in pair] for pair in pairs]
    out = subprocess.run(["node", "-e", script], input=json.dumps(wire), capture_output=True, text=True, check=True)
    model = lambda x: math.nan if x == "NaN" else x    # noqa: E731
    for (a, e), node in zip(pairs, json.loads(out.stdout)):
        a, e = model(a), model(e)
        ours = [matches(a, e, Compare("js_same")), matches(a, e, Compare("js_assert_equal")),
                matches([a], [e], Compare("js_deep_strict")), matches([a], [e], Compare("js_deep"))]
        assert ours == node, (a, e, node)


def test_a_bigint_past_the_digit_limit_is_compared_as_equal_to_nothing():
    huge = decode({"big": "9" * 5000})
    assert not matches(huge, 5, Compare("js_loose")) and not matches(huge, 5, Compare("js_strict"))
    assert "5000 digits" in repr(huge)


def test_a_radix_literal_with_a_bigint_suffix_is_not_a_number():
    from passgate.core.languages.literals import LiteralError, number
    assert number("0x10") == 16 and number("0b101") == 5 and number("0xFFul") == 255
    for text in ("0x10n", "0b101n", "10n"):
        with pytest.raises(LiteralError):
            number(text)


def test_a_failure_shows_values_as_the_tests_write_them_never_as_python_reprs():
    from passgate.core.languages.values import BigInt, Opaque, Record, show
    text = show([None, UNDEFINED, True, math.nan, "a", Char("x"), Tuple((1, 2)), Map(((1, 2),)), SetOf((3,)),
                 Record((("k", 1),)), Opt(False), Opaque("a function"), BigInt(10)])
    assert text == '[null, undefined, true, NaN, "a", \'x\', (1, 2), {1: 2}, {3}, {k: 1}, none, <a function>, 10n]'
    for python in ("None", "True", "nan", "Tuple(", "Map(", "Opaque(", "items="):
        assert python not in text
