"""How a local edit is asked of a model: the completions API's `suffix` parameter, or a model
family's fill-in-the-middle template with its sentinel tokens, stopped at the family's end token.

A manifest names the family (`generation.fim.template`); `passgate freeze` writes the family's
format, sentinels and end tokens into the generation contract, so the record says exactly what was
sent, and a run refuses to start when the frozen template is not the family's (`check_pinned`).
`custom` takes the format, sentinels and end tokens from the manifest itself.

| family           | format                                                        | end token(s) |
|------------------|---------------------------------------------------------------|--------------|
| `starcoder`      | `<fim_prefix>{prefix}<fim_suffix>{suffix}<fim_middle>`        | `<|endoftext|>` |
| `santacoder`     | `<fim-prefix>{prefix}<fim-suffix>{suffix}<fim-middle>`        | `<|endoftext|>` |
| `codellama`      | `<PRE> {prefix} <SUF>{suffix} <MID>`                          | `<EOT>` |
| `deepseek-coder` | `<｜fim▁begin｜>{prefix}<｜fim▁hole｜>{suffix}<｜fim▁end｜>`   | `<｜end▁of▁sentence｜>`, |
|                  |                                                               | `<|EOT|>`    |
| `qwen2.5-coder`  | `<|fim_prefix|>{prefix}<|fim_suffix|>{suffix}<|fim_middle|>`  | `<|endoftext|>`, |
|                  |                                                               | `<|fim_pad|>`, `<|file_sep|>` |
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from passgate.core.errors import ConfigError, DriftError
from passgate.core.manifest import FimContract, GenerationContract
from passgate.core.model import Task


@dataclass(frozen=True)
class Family:
    """A model family's fill-in-the-middle prompt: where the code goes, its sentinels, its end tokens."""

    format: str
    sentinels: tuple[str, ...]
    end_tokens: tuple[str, ...]


FAMILIES: dict[str, Family] = {
    "starcoder": Family("<fim_prefix>{prefix}<fim_suffix>{suffix}<fim_middle>",
                        ("<fim_prefix>", "<fim_suffix>", "<fim_middle>"), ("<|endoftext|>",)),
    "santacoder": Family("<fim-prefix>{prefix}<fim-suffix>{suffix}<fim-middle>",
                         ("<fim-prefix>", "<fim-suffix>", "<fim-middle>"), ("<|endoftext|>",)),
    "codellama": Family("<PRE> {prefix} <SUF>{suffix} <MID>", ("<PRE>", "<SUF>", "<MID>"), ("<EOT>",)),
    "deepseek-coder": Family("<｜fim▁begin｜>{prefix}<｜fim▁hole｜>{suffix}<｜fim▁end｜>",
                             ("<｜fim▁begin｜>", "<｜fim▁hole｜>", "<｜fim▁end｜>"),
                             ("<｜end▁of▁sentence｜>", "<|EOT|>")),
    "qwen2.5-coder": Family("<|fim_prefix|>{prefix}<|fim_suffix|>{suffix}<|fim_middle|>",
                            ("<|fim_prefix|>", "<|fim_suffix|>", "<|fim_middle|>"),
                            ("<|endoftext|>", "<|fim_pad|>", "<|file_sep|>")),
}
_SLOT = re.compile(r"\{(prefix|suffix)\}")


def is_edit(task: Task) -> bool:
    return task.completion_style == "infill"


def pinned(fim: FimContract) -> FimContract:
    """The contract with a named family's format, sentinels and end tokens written in (freeze)."""
    if fim.mode != "template" or fim.template in (None, "custom"):
        return fim
    family = FAMILIES[fim.template]
    return dataclasses.replace(fim, format=family.format, sentinels=family.sentinels, end_tokens=family.end_tokens)


def check_pinned(gen: GenerationContract | None, tasks: list[Task]) -> None:
    """A run with local edits to generate needs `generation.fim`, frozen with its family's template.

    Raises:
        ConfigError: local edits but no `generation.fim`.
        DriftError: a named family whose frozen format, sentinels or end tokens are missing or differ.
    """
    if gen is None or not any(is_edit(t) for t in tasks):
        return
    fim = gen.fim
    if fim is None:
        raise ConfigError("the task sets hold local edits (humaneval-infilling): say how they are asked for, "
                          "`mode: suffix` (the API's suffix parameter) or `mode: template` with a model family",
                          field="generation.fim")
    if fim.mode != "template" or fim.template == "custom":
        return
    want = pinned(fim)
    if fim.format is None:
        raise DriftError(f"generation.fim names the {fim.template} template but its format, sentinels and end "
                         "tokens are not written into the contract; run `passgate freeze` on the manifest")
    if (fim.format, fim.sentinels, fim.end_tokens) != (want.format, want.sentinels, want.end_tokens):
        raise DriftError(f"generation.fim.format, sentinels or end_tokens differ from the {fim.template} template "
                         f"({want.format!r}, end {list(want.end_tokens)}); use `template: custom` for another "
                         "format, or freeze the manifest again")


def edit_request(fim: FimContract, task: Task) -> tuple[str, dict]:
    """(prompt text, extra request fields) for one local edit: the filled template, or the code
    before the gap as the prompt and the code after it as `suffix`."""
    if fim.mode == "suffix":
        return task.prompt, {"suffix": task.infill_suffix}
    values = {"prefix": task.prompt, "suffix": task.infill_suffix}
    return _SLOT.sub(lambda m: values[m.group(1)], fim.format or pinned(fim).format or ""), {}


def end_tokens(fim: FimContract | None) -> tuple[str, ...]:
    if fim is None:
        return ()
    return fim.end_tokens or (pinned(fim).end_tokens if fim.mode == "template" else ())
