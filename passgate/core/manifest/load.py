"""Loading a manifest: YAML with `yaml.safe_load` semantics into the model (core/manifest/model.py);
an unknown key or a bad value is an error naming the file, line and key."""

from __future__ import annotations

import dataclasses
import types
import typing
from pathlib import Path
from typing import Any, Literal

import yaml

from passgate.core import kinds
from passgate.core.allowed_imports import normalize_imports
from passgate.core.errors import ConfigError

from .checks import GRADER_WORDS, check_fim, check_set
from .model import KEY_RENAMES, MANIFEST_VERSION, Manifest


class _Located:
    """YAML node tree converted to Python values, remembering each key path's line."""

    def __init__(self):
        self.lines: dict[tuple, int] = {}

    def convert(self, node: yaml.Node, path: tuple) -> Any:
        self.lines.setdefault(path, node.start_mark.line + 1)
        if isinstance(node, yaml.MappingNode):
            out = {}
            for key_node, value_node in node.value:
                key = yaml.safe_load(yaml.serialize(key_node)) if not isinstance(key_node, yaml.ScalarNode) \
                    else key_node.value
                self.lines[path + (key,)] = key_node.start_mark.line + 1
                if key in out:
                    raise ConfigError("key appears twice", line=key_node.start_mark.line + 1,
                                      field=".".join(map(str, path + (key,))))
                out[key] = self.convert(value_node, path + (key,))
            return out
        if isinstance(node, yaml.SequenceNode):
            return [self.convert(v, path + (i,)) for i, v in enumerate(node.value)]
        return yaml.safe_load(yaml.serialize(node))


def load_manifest(path: str | Path) -> tuple[Manifest, str]:
    """Parse and validate a manifest file; returns it with its original text."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as exc:
        raise ConfigError(f"cannot read manifest: {exc.strerror}", path=str(path)) from exc
    return parse_manifest(text, str(path)), text


def read_located_yaml(text: str, source: str, what: str) -> tuple[Any, "_Located"]:
    """Parse YAML keeping each key path's line, for errors that name file, line and key."""
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise ConfigError(f"not valid YAML: {getattr(exc, 'problem', exc)}", path=source,
                          line=mark.line + 1 if mark else None) from exc
    if node is None:
        raise ConfigError(f"{what} is empty", path=source)
    located = _Located()
    try:
        return located.convert(node, ()), located
    except ConfigError as exc:
        raise ConfigError(str(exc).split(": ", 1)[-1], path=source, line=exc.line, field=exc.field) from None


def parse_manifest(text: str, source: str = "<manifest>") -> Manifest:
    data, located = read_located_yaml(text, source, "manifest")
    manifest = _build(Manifest, data, (), located.lines, source)
    _cross_check(manifest, located.lines, source)
    return _one_spelling(manifest)


def _one_spelling(m: Manifest) -> Manifest:
    """Allowed imports in one order, and None where they are the kind's default: two manifests that
    mean the same run get the same id."""
    sets = []
    for s in m.tasks.sets:
        if s.allowed_imports is not None:
            value = normalize_imports(s.allowed_imports)
            s = dataclasses.replace(s, allowed_imports=None if value == kinds.default_imports(s.kind) else value)
        sets.append(s)
    return dataclasses.replace(m, tasks=dataclasses.replace(m.tasks, sets=tuple(sets)))


def _fail(msg: str, path: tuple, lines: dict, source: str) -> ConfigError:
    line = None
    for cut in range(len(path), -1, -1):
        if path[:cut] in lines:
            line = lines[path[:cut]]
            break
    return ConfigError(msg, path=source, line=line, field=".".join(map(str, path)) or None)


def build_section(cls: type, data: Any, path: tuple, lines: dict, source: str) -> Any:
    """`data` (read with its lines) as the dataclass `cls`, with the manifest's rules and errors."""
    return _build(cls, data, path, lines, source)


def _build(cls: type, data: Any, path: tuple, lines: dict, source: str) -> Any:
    if not isinstance(data, dict):
        raise _fail(f"expected a mapping, got {type(data).__name__}", path, lines, source)
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    kwargs = {}
    for key, value in data.items():
        name = KEY_RENAMES.get(key, key)
        if name not in fields:
            allowed = ", ".join(sorted(next((k for k, v in KEY_RENAMES.items() if v == f), f) for f in fields))
            raise _fail(f"unknown key {key!r} (allowed: {allowed})", path + (key,), lines, source)
        if fields[name].metadata.get("one_or_list") and isinstance(value, str):
            value = [value]            # `stdlib` reads as [stdlib]
        kwargs[name] = _coerce(hints[name], value, path + (key,), lines, source)
    for name, f in fields.items():
        if name not in kwargs and f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            raise _fail(f"missing required key {name!r}", path + (name,), lines, source)
    try:
        return cls(**kwargs)
    except ValueError as exc:           # a section's own rule (an interval's level, ...)
        key = getattr(exc, "key", None)
        raise _fail(str(exc), path + ((key,) if key else ()), lines, source) from None


def _coerce(tp: Any, value: Any, path: tuple, lines: dict, source: str) -> Any:
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        inner = [a for a in args if a is not type(None)]
        if len(inner) == 1:
            return _coerce(inner[0], value, path, lines, source)
    if origin is Literal:
        if value not in args:
            raise _fail(f"must be one of {', '.join(map(repr, args))}, got {value!r}", path, lines, source)
        return value
    if dataclasses.is_dataclass(tp):
        return _build(tp, value, path, lines, source)
    if origin is tuple:
        if not isinstance(value, list):
            raise _fail(f"expected a list, got {type(value).__name__}", path, lines, source)
        return tuple(_coerce(args[0], v, path + (i,), lines, source) for i, v in enumerate(value))
    if origin is dict:
        if not isinstance(value, dict):
            raise _fail(f"expected a mapping, got {type(value).__name__}", path, lines, source)
        return {str(k): _coerce(args[1], v, path + (k,), lines, source) for k, v in value.items()}
    if tp is bool:
        if not isinstance(value, bool):
            raise _fail(f"expected true or false, got {value!r}", path, lines, source)
        return value
    if tp is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise _fail(f"expected an integer, got {value!r}", path, lines, source)
        return value
    if tp is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise _fail(f"expected a number, got {value!r}", path, lines, source)
        return float(value)
    if tp is str:
        if not isinstance(value, str):
            raise _fail(f"expected text, got {value!r}", path, lines, source)
        return value
    raise _fail(f"unsupported value {value!r}", path, lines, source)


def _cross_check(m: Manifest, lines: dict, source: str) -> None:
    def err(msg, *path):
        return _fail(msg, path, lines, source)

    if m.version != MANIFEST_VERSION:
        raise err(f"manifest version {m.version} is not supported (expected {MANIFEST_VERSION})", "version")
    if not m.tasks.sets:
        raise err("at least one task set is required", "tasks", "sets")
    if m.tasks.canaries < 0:
        raise err("must be zero or more", "tasks", "canaries")
    for i, s in enumerate(m.tasks.sets):
        check_set(s, lambda msg, key, i=i: err(msg, "tasks", "sets", i, key))
    graders = {kinds.get(s.kind).grader for s in m.tasks.sets}
    if len(graders) > 1:
        raise err("a manifest grades one sort of program, not both "
                  f"{' and '.join(GRADER_WORDS[g] for g in sorted(graders))} in one run; write one manifest for each",
                  "tasks", "sets")
    if m.tasks.canaries and graders != {"python"}:
        raise err("canaries are Python function tasks: they mix into runs of Python function sets only",
                  "tasks", "canaries")
    if graders == {"language"} and m.execution.packages:
        raise err("execution.packages adds Python packages to the Python sandbox image; humaneval-x and multipl-e "
                  "programs run in their language's pinned image", "execution", "packages")
    c = m.candidates
    if c.source == "import" and c.import_ is None:
        raise err("candidates.source is import but candidates.import is missing", "candidates", "import")
    if c.source == "generate" and m.generation is None:
        raise err("candidates.source is generate but the generation section is missing", "generation")
    if m.generation is not None and m.generation.fim is not None:
        check_fim(m.generation, err)
    ex = m.execution
    if ex.workers < 1:
        raise err("must be at least 1", "execution", "workers")
    lim = ex.limits
    if lim.compile_cpu_s <= 0:
        raise err("must be positive", "execution", "limits", "compile_cpu_s")
    if lim.container_memory_mb < lim.memory_mb + 256:
        raise err("must exceed limits.memory_mb by at least 256 (the runtime charges its own memory)",
                  "execution", "limits", "container_memory_mb")
    for name in ("cpu_s", "wall_factor", "cpus"):
        if getattr(lim, name) <= 0:
            raise err("must be positive", "execution", "limits", name)
    if ex.reruns.count < 1:
        raise err("must be at least 1", "execution", "reruns", "count")
    if not 0 <= ex.crosscheck_fraction <= 1:
        raise err("must be between 0 and 1", "execution", "crosscheck_fraction")
    sc = m.scoring
    if not sc.k or any(k < 1 for k in sc.k):
        raise err("k values must be positive integers", "scoring", "k")
    if not 0.5 <= sc.interval.level < 1:
        raise err("interval level must be in [0.5, 1)", "scoring", "interval", "level")
