"""HumanEval+ and MBPP+ (EvalPlus release files): differential tests against the canonical solution.

Each suite embeds its inputs as JSON. In the grader, the canonical solution (trusted dataset code)
runs once per task on every input to give the expected outputs, cached in `__pg_cache__`; the
candidate's answer on a deep copy of the same input is then compared the way EvalPlus compares
(evalplus/eval/__init__.py `check_output`, v0.3.1): exact equality, else within `atol` for floats,
plus EvalPlus's special oracles for a few tasks. The public suite is the base inputs, the
protected suite base + plus inputs.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from passgate.core.errors import ConfigError
from passgate.core.model import Task

from .evalplus_grader import RUNNER
from .io import iter_json_lines, optional, require

_VERSION = re.compile(r"v\d+\.\d+\.\d+")


def revision_from_name(path: Path) -> str | None:
    """`v0.1.10` from `HumanEvalPlus-v0.1.10.jsonl.gz`; None when the name carries no version."""
    match = _VERSION.search(path.name)
    return match.group(0) if match else None


def load(path: Path, text: str, dataset: str, slice_name: str) -> tuple[list[Task], list[str]]:
    """Tasks from a HumanEvalPlus / MbppPlus jsonl(.gz) release file; `dataset` is the original
    benchmark (`humaneval`, `mbpp`) whose conventions its tasks follow."""
    tasks, notes = [], []
    for line, record in iter_json_lines(path, text):
        task_id = require(record, "task_id", str, path, line)
        prompt = require(record, "prompt", str, path, line)
        entry_point = require(record, "entry_point", str, path, line)
        canonical = require(record, "canonical_solution", str, path, line)
        atol = optional(record, "atol", (int, float), 0, path, line)
        groups = {}
        for group in ("base", "plus"):
            if record.get(f"{group}_input") == {}:
                # Mbpp/793 ships `"plus_input": {}`: no inputs, written as an empty object.
                record = {**record, f"{group}_input": []}
                notes.append(f"{task_id}: {group}_input is an empty object; read as no {group} inputs")
            inputs = require(record, f"{group}_input", list, path, line)
            if not all(isinstance(args, list) for args in inputs):
                raise ConfigError("every input must be a list of arguments", path=str(path), line=line, field=f"{group}_input")
            if dataset == "mbpp":
                try:
                    inputs = deserialize_mbpp_inputs(task_id, inputs)
                except (TypeError, ValueError, KeyError, IndexError, AttributeError):
                    raise ConfigError(f"inputs do not have the shape EvalPlus gives {task_id}", path=str(path), line=line, field=f"{group}_input") from None
            groups[group] = encode_inputs(inputs)
        reference = prompt + canonical  # what EvalPlus runs for its ground truth (the contract left out)
        spec = {"task_id": task_id, "dataset": dataset, "entry_point": entry_point, "atol": float(atol)}
        counts = {g: len(json.loads(text)) for g, text in groups.items()}
        tasks.append(Task(
            task_id=task_id,
            slice=slice_name,
            prompt=prompt,
            entry_point=entry_point,
            public_tests=suite_code(spec, reference, {"base": groups["base"]}),
            protected_tests=suite_code(spec, reference, groups),
            reference_solution=reference,
            completion_style="body" if dataset == "humaneval" else "full",
            # EvalPlus's check in one process: the same differential suite, beside the solution
            classic_suffix=f"\ncandidate = {entry_point}\n" + suite_code(spec, reference, groups),
            protected_suffix=split_suite(spec, groups, counts, "__pg_evalplus__"),
            public_suffix=split_suite(spec, {"base": groups["base"]}, counts, "__pg_evalplus__"),
            oracle=json.dumps({"kind": "evalplus", "spec": spec, "inputs": groups, "reference": reference,
                               "runner": RUNNER, "expected_suite": split_suite(spec, groups, counts, "__pg_keep__")},
                              sort_keys=True),
        ))
    return tasks, notes


def suite_code(spec: dict, reference: str, groups: dict[str, str]) -> str:
    """Grader code for one suite; `groups` maps "base"/"plus" to the inputs as tagged JSON text."""
    names = " + ".join(groups)
    return (
        f"# passgate suite: EvalPlus differential test of {spec['task_id']} ({names} inputs)\n"
        f"_PG_TASK = {spec!r}\n"
        f"_PG_REFERENCE = {reference!r}\n"
        f"_PG_INPUTS = {{\n" + "".join(f"    {g!r}: {text!r},\n" for g, text in groups.items()) + "}\n"
        + RUNNER
        + f"\n_pg_evalplus_run({tuple(groups)!r})\n"
    )


# In the candidate's process (grading protocol 3): the inputs, and a static loop over them whose every
# assertion the grader decides with EvalPlus's comparison (`__pg_evalplus__`), the expected outputs
# being the grader's. The same loop with `__pg_keep__` gives the grader those outputs, run on the
# canonical solution in a process of its own.
_UNTAG = r'''
def __pg_untag__(obj):
    (tag, body), = obj.items()
    if tag == "$t":
        return tuple(body)
    if tag == "$s":
        return set(body)
    if tag == "$f":
        return frozenset(body)
    if tag == "$d":
        return {key: value for key, value in body}
    if tag == "$c":
        return complex(body[0], body[1])
    raise ValueError("unknown input tag %r" % tag)
'''


def split_suite(spec: dict, groups: dict[str, str], counts: dict[str, int], decider: str) -> str:
    """The suite as code run after the program; `decider` is the grader's name for each assertion."""
    lines = [f"# passgate suite: EvalPlus differential test of {spec['task_id']} ({' + '.join(groups)} inputs)",
             f"candidate = {spec['entry_point']}", "import copy as __pg_copy__", "import json as __pg_json__",
             _UNTAG, "__pg_inputs__ = {"]
    lines += [f"    {g!r}: __pg_json__.loads({text!r}, object_hook=__pg_untag__)," for g, text in groups.items()]
    lines.append("}")
    call = "candidate(*__pg_copy__.deepcopy(__pg_inputs__[%r][__pg_i__]))"
    if decider == "__pg_keep__" and spec["dataset"] == "mbpp" and spec["entry_point"] in _NOT_NONE:
        call = "(" + call + " is not None)"      # EvalPlus turns these answers into booleans first
    for group in groups:
        lines.append(f"for __pg_i__ in range({counts[group]}):")
        lines.append(f"    assert {decider}({group!r}, __pg_i__, {call % group})")
    return "\n".join(lines) + "\n"


_NOT_NONE = {"check_str", "text_match_three", "text_starta_endb"}


def encode_inputs(inputs: list) -> str:
    """Inputs as JSON that keeps tuples, sets, dicts with any keys and complex numbers (see RUNNER)."""
    return json.dumps(_tag(inputs), separators=(",", ":"))


def _tag(value):
    kind = type(value)
    if kind is list:
        return [_tag(v) for v in value]
    if kind is tuple:
        return {"$t": [_tag(v) for v in value]}
    if kind in (set, frozenset):
        # Sorted by repr so the suite text (and its hash) does not depend on string hash seeds.
        return {"$s" if kind is set else "$f": [_tag(v) for v in sorted(value, key=repr)]}
    if kind is dict:
        return {"$d": [[_tag(k), _tag(v)] for k, v in value.items()]}
    if kind is complex:
        return {"$c": [value.real, value.imag]}
    return value


# MBPP+ stores tuples, sets and complex numbers as JSON lists and strings; EvalPlus rebuilds them per
# task in evalplus/data/mbpp.py `mbpp_deserialize_inputs` (same table in v0.1.0 to v0.3.1). Each
# input is one list of arguments.
def _all_tuples(x):
    return tuple(_all_tuples(i) for i in x) if isinstance(x, list) else x


_MBPP_INPUT_SHAPES = {
    **dict.fromkeys([2, 116, 132, 143, 222, 261, 273, 394, 399, 421, 424, 429, 470, 560, 579, 596, 616, 630, 726, 740, 744, 809],
                    lambda a: [tuple(x) for x in a]),
    **dict.fromkeys([63, 64, 70, 94, 120, 237, 272, 299, 400, 409, 417, 438, 473, 614, 780],
                    lambda a: [[tuple(y) for y in x] for x in a]),
    **dict.fromkeys([75, 413, 444, 753], lambda a: [[tuple(y) for y in a[0]], a[1]]),
    **dict.fromkeys([106, 750], lambda a: [a[0], tuple(a[1])]),
    115: lambda a: [[set(x) if isinstance(x, list) and x else {} for x in a[0]]],  # EvalPlus's `{}` kept as is
    124: lambda a: [float(a[0]), complex(a[1])],
    **dict.fromkeys([250, 405, 446, 617, 720, 763, 808], lambda a: [tuple(a[0]), a[1]]),
    **dict.fromkeys([259, 401, 445], lambda a: [tuple(tuple(y) for y in x) for x in a]),
    278: lambda a: [tuple(tuple(y) if isinstance(y, list) else y for y in a[0])],
    307: lambda a: [tuple(a[0]), a[1], a[2]],
    722: lambda a: [{k: tuple(v) for k, v in a[0].items()}, *a[1:]],
    252: lambda a: [complex(a[0])],
    **dict.fromkeys([580, 615, 791], lambda a: list(_all_tuples(a))),
}


def deserialize_mbpp_inputs(task_id: str, inputs: list) -> list:
    """Rebuild the argument types MBPP+ flattened to JSON, as EvalPlus does."""
    try:
        number = int(task_id.rsplit("/", 1)[-1])
    except ValueError:
        return inputs
    shape = _MBPP_INPUT_SHAPES.get(number)
    return inputs if shape is None else [shape(args) for args in inputs]
