"""A candidate every sound evaluator passes, in each language: MultiPL-E's HumanEval_53_add (add two
integers; prompt and tests as MultiPL-E's HumanEval files give them, github.com/nuprl/MultiPL-E) with
its right answer. After a candidate takes its sandbox down, this runs in a fresh sandbox of the same
language image: when it passes there, the loss was the candidate's (`sandbox_crash`, counted), else
the evaluator's (`infra_error`). Data only: nothing here reads a dataset file at run time."""

from __future__ import annotations

from collections.abc import Mapping

from ..sandbox.runner import EvalRequest, TaskSpec
from .job import LanguageJob

# language -> (prompt, tests, answer)
ADD_TASK = {
    'js': (
        '//Add two numbers x and y\n// >>> add(2, 3)\n// 5\n// >>> add(5, 7)\n// 12\nfunction add(x, y){\n',
        "const assert = require('node:assert');\n\n\nfunction test() {\n  let candidate = add;\n  assert.deepEqual(candidate(0, 1),1);\n  assert.deepEqual(candidate(1, 0),1);\n  assert.deepEqual(candidate(2, 3),5);\n  assert.deepEqual(candidate(5, 7),12);\n  assert.deepEqual(candidate(7, 5),12);\n}\n\ntest();",
        '  return x + y;\n}\n'),
    'ts': (
        '//Add two numbers x and y\n// >>> add(2, 3)\n// 5\n// >>> add(5, 7)\n// 12\nfunction add(x: number, y: number): number {\n',
        "declare var require: any;\nconst assert = require('node:assert');\n\n\nfunction test() {\n  let candidate = add;\n  assert.deepEqual(candidate(0, 1),1);\n  assert.deepEqual(candidate(1, 0),1);\n  assert.deepEqual(candidate(2, 3),5);\n  assert.deepEqual(candidate(5, 7),12);\n  assert.deepEqual(candidate(7, 5),12);\n}\n\ntest();",
        '  return x + y;\n}\n'),
    'cpp': (
        '#include<assert.h>\n#include<bits/stdc++.h>\n// Add two numbers x and y\n// >>> add((2), (3))\n// (5)\n// >>> add((5), (7))\n// (12)\nlong add(long x, long y) {\n',
        '}\nint main() {\n    auto candidate = add;\n    assert(candidate((0), (1)) == (1));\n    assert(candidate((1), (0)) == (1));\n    assert(candidate((2), (3)) == (5));\n    assert(candidate((5), (7)) == (12));\n    assert(candidate((7), (5)) == (12));\n}\n',
        '    return x + y;\n'),
    'java': (
        'import java.util.*;\nimport java.lang.reflect.*;\nimport org.javatuples.*;\nimport java.security.*;\nimport java.math.*;\nimport java.io.*;\nimport java.util.stream.*;\nclass Problem {\n    // Add two numbers x and y\n    // >>> add((2l), (3l))\n    // (5l)\n    // >>> add((5l), (7l))\n    // (12l)\n    public static long add(long x, long y) {\n',
        '    }\n    public static void main(String[] args) {\n    assert(add((0l), (1l)) == (1l));\n    assert(add((1l), (0l)) == (1l));\n    assert(add((2l), (3l)) == (5l));\n    assert(add((5l), (7l)) == (12l));\n    assert(add((7l), (5l)) == (12l));\n    }\n\n}\n',
        '        return x + y;\n'),
    'go': (
        'package add_test\n\nimport (\n    "testing"\n    "fmt"\n)\n\n// Add two numbers x and y\n// >>> add(2, 3)\n// 5\n// >>> add(5, 7)\n// 12\nfunc add(x int, y int) int {\n',
        'func TestAdd(t *testing.T) {\n  candidate := add\n\ttype test struct {\n\t\tactual   interface{}\n\t\texpected interface{}\n\t}\n   tests := []test{\n     { actual: candidate(0, 1), expected: 1 },\n     { actual: candidate(1, 0), expected: 1 },\n     { actual: candidate(2, 3), expected: 5 },\n     { actual: candidate(5, 7), expected: 12 },\n     { actual: candidate(7, 5), expected: 12 },\n   }\n\n\tfor i, tc := range tests {\n\t\tt.Run(fmt.Sprintf("test num % d", i), func(t *testing.T) {\n\t\t\tif fmt.Sprintf("%v", tc.actual) != fmt.Sprintf("%v", tc.expected) {\n\t\t\t\tt.Errorf("expected \'%s\', got \'%s\'", tc.expected, tc.actual)\n\t\t\t}\n\t\t})\n\t}\n}\n',
        '    return x + y\n}\n'),
    'rs': (
        '/// Add two numbers x and y\n/// >>> add(2, 3)\n/// 5\n/// >>> add(5, 7)\n/// 12\nfn add(x: isize, y: isize) -> isize {\n',
        '}\n\nfn main() {\n    let candidate = add;\n    assert_eq!(candidate(0, 1), 1);\n    assert_eq!(candidate(1, 0), 1);\n    assert_eq!(candidate(2, 3), 5);\n    assert_eq!(candidate(5, 7), 12);\n    assert_eq!(candidate(7, 5), 12);\n}\n',
        '    x + y\n'),
    'sh': (
        '#!/bin/bash\n# Add two numbers x and y\n# >>> $(add "2" "3")\n# "5"\n# >>> $(add "5" "7")\n# "12"\n#\n# $1 is an integer\n# $2 is an integer\nadd() {\n',
        '}\n\ncandidate() {\n    add "$@"\n}\n\nset -e\nrun_test() {\n    [[ $(candidate "0" "1") = "1" ]]\n    [[ $(candidate "1" "0") = "1" ]]\n    [[ $(candidate "2" "3") = "5" ]]\n    [[ $(candidate "5" "7") = "12" ]]\n    [[ $(candidate "7" "5") = "12" ]]\n}\n\nrun_test',
        '    echo $(( $1 + $2 ))\n'),
    'rb': (
        '# Add two numbers x and y\n# >>> add.call(2, 3)\n# 5\n# >>> add.call(5, 7)\n# 12\ndef add(x, y)\n',
        "require 'test/unit'\nclass TestHumanEval < Test::Unit::TestCase\n  def test_add\n    candidate = method(:add)\n    assert_equal(1, candidate.call(0, 1))\n    assert_equal(1, candidate.call(1, 0))\n    assert_equal(5, candidate.call(2, 3))\n    assert_equal(12, candidate.call(5, 7))\n    assert_equal(12, candidate.call(7, 5))\n  end\nend\n",
        '  x + y\nend\n'),
    'php': (
        '<?php\n// Add two numbers x and y\n// >>> add(2, 3)\n// 5\n// >>> add(5, 7)\n// 12\nfunction add($x, $y) {\n',
        'function candidate(...$args) {\n    return add(...$args);\n}\n\nfunction test(): void {\n    if (candidate(0, 1) !== 1) { throw new Exception("Test failed!"); }\n    if (candidate(1, 0) !== 1) { throw new Exception("Test failed!"); }\n    if (candidate(2, 3) !== 5) { throw new Exception("Test failed!"); }\n    if (candidate(5, 7) !== 12) { throw new Exception("Test failed!"); }\n    if (candidate(7, 5) !== 12) { throw new Exception("Test failed!"); }\n}\n\ntest();',
        '    return $x + $y;\n}\n'),
    'pl': (
        '# Add two numbers x and y\n# >>> add(2, 3)\n# 5\n# >>> add(5, 7)\n# 12\nsub add {\n    my($x, $y) = @_;\n',
        'use Test::Deep;\n\n\nsub testhumaneval {\n    my $candidate = \\&add;\n        if(eq_deeply($candidate->(0, 1),1)) {\n        print "ok!" }else{\n        exit 1;\n        }\n        if(eq_deeply($candidate->(1, 0),1)) {\n        print "ok!" }else{\n        exit 1;\n        }\n        if(eq_deeply($candidate->(2, 3),5)) {\n        print "ok!" }else{\n        exit 1;\n        }\n        if(eq_deeply($candidate->(5, 7),12)) {\n        print "ok!" }else{\n        exit 1;\n        }\n        if(eq_deeply($candidate->(7, 5),12)) {\n        print "ok!" }else{\n        exit 1;\n        }\n}\n\ntesthumaneval();',
        '    return $x + $y;\n}\n'),
    'r': (
        '# Add two numbers x and y\n# >>> add(2, 3)\n# 5\n# >>> add(5, 7)\n# 12\nadd <- function(x, y) {',
        'test_humaneval <- function() {\n    candidate <- add\n    stopifnot(isTRUE(all.equal(candidate(0, 1), 1)))\n    stopifnot(isTRUE(all.equal(candidate(1, 0), 1)))\n    stopifnot(isTRUE(all.equal(candidate(2, 3), 5)))\n    stopifnot(isTRUE(all.equal(candidate(5, 7), 12)))\n    stopifnot(isTRUE(all.equal(candidate(7, 5), 12)))\n}\ntest_humaneval()',
        '\n    x + y\n}\n'),
    'rkt': (
        '#lang racket\n\n;; Add two numbers x and y\n;; >>> (add 2 3)\n;; 5\n;; >>> (add 5 7)\n;; 12\n(define (add x y)\n',
        '(require rackunit)\n\n(define (test-humaneval) \n\n  (let (( candidate add))\n    (check-within (candidate 0 1) 1 0.001)\n    (check-within (candidate 1 0) 1 0.001)\n    (check-within (candidate 2 3) 5 0.001)\n    (check-within (candidate 5 7) 12 0.001)\n    (check-within (candidate 7 5) 12 0.001)\n))\n\n(test-humaneval)',
        '  (+ x y))\n'),
    'd': (
        'import std.math;\nimport std.typecons;\n/*\nAdd two numbers x and y\n>>> add(2L, 3L)\n5L\n>>> add(5L, 7L)\n12L\n*/\nlong add(long x, long y) \n',
        'unittest\n{\n    alias candidate = add;\n\n    assert(candidate(0L, 1L) == 1L);\n    assert(candidate(1L, 0L) == 1L);\n    assert(candidate(2L, 3L) == 5L);\n    assert(candidate(5L, 7L) == 12L);\n    assert(candidate(7L, 5L) == 12L);\n}\nvoid main(){}',
        '{\n    return x + y;\n}\n'),
    'cs': (
        'using System;\nusing System.Numerics;\nusing System.Diagnostics;\nusing System.Collections.Generic;\nusing System.Linq;\nusing System.Text;\nusing System.Security.Cryptography;\nclass Problem {\n    // Add two numbers x and y\n    // >>> Add((2L), (3L))\n    // (5L)\n    // >>> Add((5L), (7L))\n    // (12L)\n    public static long Add(long x, long y) {\n',
        '    }\n    public static void Main(string[] args) {\n    Debug.Assert(Add((0L), (1L)) == (1L));\n    Debug.Assert(Add((1L), (0L)) == (1L));\n    Debug.Assert(Add((2L), (3L)) == (5L));\n    Debug.Assert(Add((5L), (7L)) == (12L));\n    Debug.Assert(Add((7L), (5L)) == (12L));\n    }\n\n}\n',
        '        return x + y;\n'),
    'scala': (
        'import scala.math._\nimport scala.collection.mutable._\nobject Problem {\n    // Add two numbers x and y\n    // >>> add((2l), (3l))\n    // (5l)\n    // >>> add((5l), (7l))\n    // (12l)\n    def add(x : Long, y : Long) : Long = {\n',
        '    }\n    def main(args: Array[String]) = {\n    assert(add((0l), (1l)) == (1l));\n    assert(add((1l), (0l)) == (1l));\n    assert(add((2l), (3l)) == (5l));\n    assert(add((5l), (7l)) == (12l));\n    assert(add((7l), (5l)) == (12l));\n    }\n\n}\n',
        '        x + y\n'),
}


def known_good_request(language: str, limits: Mapping, timeout_s: float) -> EvalRequest:
    """The known-good candidate of `language` as a request to any worker of a language runner."""
    prompt, tests, answer = ADD_TASK[language]
    job = LanguageJob(language=language, dataset="multipl-e", prompt=prompt, entry_point="add")
    task = TaskSpec.build(f"{language}/passgate-known-good-add", tests, "", job.to_json())
    return EvalRequest(task, answer, limits, timeout_s=timeout_s)
