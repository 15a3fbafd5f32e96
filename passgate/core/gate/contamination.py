"""Contamination: n-gram overlap of tasks with a corpus, and of candidates with reference solutions.

Text is cut into lowercase tokens (ASCII words, and every other non-space character on its own),
then into n-grams of `ngram` tokens (13 by default, as in the GPT-3 contamination study). A task is a finding when a
share of its n-grams at least `task_overlap` appears in the corpus; a candidate is a finding when
it reproduces at least `reference_overlap` of the reference solution's n-grams that are not in
the prompt (so a completion that merely repeats the prompt does not count). Standard library only;
the corpus is streamed, only the tasks' n-grams are held in memory.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

from ..errors import ConfigError

_TOKEN = re.compile(r"\w+|[^\w\s]", re.ASCII)   # ASCII words; any other character is a token
_JSON_SUFFIXES = (".jsonl", ".json", ".ndjson")


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


def ngrams(toks: list[str], n: int) -> set[tuple[str, ...]]:
    return set(zip(*(toks[i:] for i in range(n))))


@dataclass(frozen=True)
class TaskText:
    task_id: str
    slice: str
    exposure: str
    prompt: str
    reference: str = ""
    tests: str = ""


@dataclass(frozen=True)
class Overlap:
    task_id: str
    matched: int
    compared: int
    example: str = ""

    @property
    def fraction(self) -> float:
        return self.matched / self.compared if self.compared else 0.0


# ---- corpus ------------------------------------------------------------------------------
def corpus_files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    if path.is_dir():
        return sorted(p for p in path.rglob("*") if p.is_file() and not p.name.startswith("."))
    raise ConfigError(f"contamination corpus {path} does not exist", field="gate.contamination_corpus")


def corpus_fingerprint(path: Path) -> str:
    """`path (N files, sha256 …)`: what the findings were measured against."""
    files = corpus_files(path)
    h = hashlib.sha256()
    for f in files:
        h.update(str(f.relative_to(path) if path.is_dir() else f.name).encode() + b"\0")
        with f.open("rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
    return f"{path} ({len(files)} files, sha256 {h.hexdigest()[:16]})"


def _strings(value) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def corpus_segments(path: Path, chunk: int = 1 << 20) -> Iterator[str]:
    """Text of every corpus file in chunks cut at whitespace; JSON lines are decoded so escaped
    newlines do not split tokens."""
    for f in corpus_files(path):
        with f.open("rb") as fh:
            if b"\0" in fh.read(8192):
                continue                      # binary file
        with f.open(encoding="utf-8", errors="replace") as fh:
            if f.suffix.lower() in _JSON_SUFFIXES:
                for line in fh:
                    try:
                        yield from _strings(json.loads(line))
                    except ValueError:
                        yield line
                continue
            rest = ""
            while block := fh.read(chunk):
                block = rest + block
                cut = max(block.rfind(" "), block.rfind("\n"))
                if cut <= 0:
                    rest = block
                    continue
                rest = block[cut:]
                yield block[:cut]
            if rest:
                yield rest


def scan(segments: Iterable[str], wanted: set[tuple[str, ...]], n: int) -> set[tuple[str, ...]]:
    """The wanted n-grams that occur in the stream (n-grams may span segment boundaries)."""
    found: set[tuple[str, ...]] = set()
    carry: list[str] = []
    for seg in segments:
        toks = carry + _TOKEN.findall(seg.lower())
        if len(toks) >= n:
            found.update(wanted.intersection(zip(*(toks[i:] for i in range(n)))))
            if len(found) == len(wanted):
                return found
        carry = toks[-(n - 1):] if n > 1 else []
    return found


def task_overlaps(tasks: list[TaskText], segments: Iterable[str], n: int) -> list[Overlap]:
    """Per task: how many of its n-grams (prompt, reference solution, tests) occur in the corpus."""
    grams = {t.task_id: set().union(*(ngrams(tokens(part), n) for part in (t.prompt, t.reference, t.tests)))
             for t in tasks}
    wanted = set().union(*grams.values()) if grams else set()
    found = scan(segments, wanted, n) if wanted else set()
    out = []
    for t in tasks:
        hit = grams[t.task_id] & found
        out.append(Overlap(t.task_id, len(hit), len(grams[t.task_id]), " ".join(min(hit)) if hit else ""))
    return out


def reference_grams(prompt: str, reference: str, n: int, after: str = "") -> set[tuple[str, ...]]:
    """The reference's own n-grams: of the part after the prompt when it continues the prompt
    (HumanEval), and never one the prompt has. For a local edit, `after` is the code after the gap:
    only the middle is the model's to write, so what follows it is left out too."""
    own = reference[len(prompt):] if prompt and reference.startswith(prompt) else reference
    if after and own.endswith(after):
        own = own[:len(own) - len(after)]
    return ngrams(tokens(own), n) - ngrams(tokens(prompt), n) - ngrams(tokens(after), n)


def reference_overlap(prompt: str, reference: str, candidate: str, n: int,
                      ref: set[tuple[str, ...]] | None = None) -> Overlap | None:
    """Share of the reference's own n-grams that the candidate reproduces.

    None when the reference adds no n-gram to the prompt (too short to judge). `ref` is
    `reference_grams(...)`, passed in when many candidates share one task.
    """
    ref = reference_grams(prompt, reference, n) if ref is None else ref
    if not ref:
        return None
    hit = ref.intersection(zip(*(toks[i:] for i in range(n)))) if len(toks := tokens(candidate)) >= n else set()
    return Overlap("", len(hit), len(ref), " ".join(min(hit)) if hit else "")
