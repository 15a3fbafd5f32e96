"""What each part of a manifest may say, given the rest: a task set's options against its kind, the
fill-in-the-middle contract. Each check takes `err(message, *key path)` to make its error."""

from __future__ import annotations

from passgate.core import kinds
from passgate.core.allowed_imports import imports_problem

from .model import GenerationContract, TaskSetSpec

GRADER_WORDS = {"python": "Python functions", "language": "programs in other languages",
                 "repository": "repository patches"}


def check_set(s: TaskSetSpec, err) -> None:
    """One task set's options against what its kind takes; `err(message, key)` makes the error."""
    if not kinds.registered(s.kind):
        raise err("must be one of " + ", ".join(repr(k) for k in kinds.names()) + f", got {s.kind!r}", "kind")
    kind = kinds.get(s.kind)
    if kind.default_path is None and not s.path:
        raise err(f"a {s.kind} task set needs a path", "path")
    if s.exposure is not None and s.exposure not in kind.exposures:
        raise err("public benchmarks are exposed and can never be a holdout", "exposure")
    if s.allowed_imports is not None:
        problem = imports_refused(kind) or imports_problem(s.allowed_imports)
        if problem:
            raise err(problem, "allowed_imports")
    if kind.language == "required" and not s.language:
        raise err(f"a {s.kind} task set needs `language:` (js, cpp, java, go or rs)", "language")
    if s.language and kind.language == "none":
        raise err(f"`language` applies to {kinds.in_words(kinds.names(language=('optional', 'required')))} task sets, "
                  f"not {s.kind}",
                  "language")


def imports_refused(kind: kinds.Kind) -> str | None:
    if kind.grader == "repository":
        return "repository tasks take their packages from execution.packages"
    if kind.grader == "language":
        return ("allowed_imports applies to Python task sets; humaneval-x and multipl-e programs are "
                "graded on their tests alone")
    return None


def check_fim(gen: GenerationContract, err) -> None:
    fim = gen.fim
    if gen.api != "completion":
        raise err("a local edit needs the completions API (api: completion); chat has no place for the code "
                  "after the gap", "generation", "fim")
    if fim.mode == "suffix":
        for name in ("template", "format"):
            if getattr(fim, name) is not None:
                raise err("only with mode: template (mode: suffix sends the code after the gap as the API's "
                          "suffix parameter)", "generation", "fim", name)
        if fim.sentinels:
            raise err("only with mode: template", "generation", "fim", "sentinels")
        return
    if fim.template is None:
        raise err("mode: template needs a model family (starcoder, santacoder, codellama, deepseek-coder, "
                  "qwen2.5-coder) or custom", "generation", "fim", "template")
    if fim.template == "custom" and (fim.format is None or not fim.end_tokens):
        raise err("a custom template needs its format and its end_tokens", "generation", "fim",
                  "format" if fim.format is None else "end_tokens")
    if fim.format is not None:
        for slot in ("{prefix}", "{suffix}"):
            if fim.format.count(slot) != 1:
                raise err(f"must hold {slot} exactly once", "generation", "fim", "format")
        missing = [s for s in fim.sentinels if s not in fim.format]
        if missing:
            raise err(f"sentinel {missing[0]!r} does not appear in the format", "generation", "fim", "sentinels")
