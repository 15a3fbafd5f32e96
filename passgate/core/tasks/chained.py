"""The chained-operation slice (Codex paper §6, Appendix C): synthetic tasks of 1..N string operations.

`generate(seed, max_depth, per_depth)` draws, for each chain depth, `per_depth` chains of distinct
building blocks; each task's docstring numbers the steps, its reference body is one line per step,
and its hidden tests are random inputs whose expected outputs the reference computes. The output is
a product-format JSONL file (`passgate chained`), pinned by sha256 like any task set and loaded with
`kind: chained`; each task carries the tags `chained` and `depth:D`.
"""

from __future__ import annotations

import json
import random
import string


# (instruction, one line of Python on `s`): the 13 building blocks
BLOCKS = (
    ("convert the string to lowercase", "s = s.lower()"),
    ("convert the string to uppercase", "s = s.upper()"),
    ("swap the case of every letter", "s = s.swapcase()"),
    ("remove every vowel (a, e, i, o, u, in either case)", "s = ''.join(c for c in s if c.lower() not in 'aeiou')"),
    ("remove every digit", "s = ''.join(c for c in s if not c.isdigit())"),
    ("drop every third character (the characters at positions 3, 6, 9, ... counting from 1)",
     "s = ''.join(c for i, c in enumerate(s) if i % 3 != 2)"),
    ("reverse the string", "s = s[::-1]"),
    ("reverse the order of the words (words are separated by single spaces)", "s = ' '.join(s.split(' ')[::-1])"),
    ("sort the words alphabetically (words are separated by single spaces)", "s = ' '.join(sorted(s.split(' ')))"),
    ("capitalize the first letter of every word and leave the other letters as they are",
     "s = ' '.join(w[:1].upper() + w[1:] for w in s.split(' '))"),
    ("move the first character to the end", "s = s[1:] + s[:1]"),
    ("replace every space with an underscore", "s = s.replace(' ', '_')"),
    ("replace every letter 'e' (lowercase only) with the digit '3'", "s = s.replace('e', '3')"),
)
TESTS_PER_TASK = 6
_ALPHABET = string.ascii_letters + string.digits


def _random_input(rng: random.Random) -> str:
    words = ["".join(rng.choice(_ALPHABET) for _ in range(rng.randint(1, 7))) for _ in range(rng.randint(1, 5))]
    return " ".join(words)


def _task(task_id: str, depth: int, steps: list[int], rng: random.Random) -> dict:
    lines = "".join(f"    {i}. {BLOCKS[b][0][0].upper() + BLOCKS[b][0][1:]}.\n" for i, b in enumerate(steps, 1))
    prompt = ("def transform(s: str) -> str:\n"
              '    """Apply these steps to the string s, in this order, and return the result.\n\n'
              f"{lines}"
              '    """\n')
    body = "".join(f"    {BLOCKS[b][1]}\n" for b in steps) + "    return s\n"
    namespace: dict = {}
    exec(prompt + body, namespace)          # the generator's own reference, on its own inputs
    reference = namespace["transform"]
    inputs = [_random_input(rng) for _ in range(TESTS_PER_TASK)]
    tests = "".join(f"assert candidate({x!r}) == {reference(x)!r}\n" for x in inputs)
    return {"task_id": task_id, "prompt": prompt, "entry_point": "transform", "protected_tests": tests,
            "reference_solution": prompt + body, "completion_style": "body", "slice": "chained",
            "tags": ["chained", f"depth:{depth}"], "exposure": "public"}


def generate(seed: int, max_depth: int, per_depth: int) -> list[dict]:
    """Tasks for depths 1..max_depth, `per_depth` each; the same arguments always give the same tasks."""
    if not 1 <= max_depth <= len(BLOCKS):
        raise ValueError(f"max_depth must be between 1 and {len(BLOCKS)}")
    if per_depth < 1:
        raise ValueError("per_depth must be at least 1")
    rng = random.Random(f"chained:{seed}")
    return [_task(f"chained/d{depth}/{i}", depth, rng.sample(range(len(BLOCKS)), depth), rng)
            for depth in range(1, max_depth + 1) for i in range(per_depth)]


def dumps(tasks: list[dict]) -> str:
    """The JSONL text written out (stable key order, so the file's sha256 is the generator's)."""
    return "".join(json.dumps(t, sort_keys=True) + "\n" for t in tasks)
