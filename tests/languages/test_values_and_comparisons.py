"""The values model and each comparison rule, as the languages' own equality decides them."""

import math

from passgate.core.languages.compare import Compare, matches
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
