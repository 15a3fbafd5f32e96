"""Task sets in other languages: HumanEval-X (`language:` in the manifest) and MultiPL-E (the language
from the file), read from any path into Tasks the language grader takes.

HumanEval-X: protected = `test`, public = `example_test`, reference = the canonical solution (the
self-check). MultiPL-E: protected = `tests`, no public suite, no reference. A task's `language`
is its header (`LanguageJob`, core/model.py); its tags name the language, the dataset and
where its protected verdicts are decided (`integrity:outside` or `integrity:in_process`). The task
spec a worker receives carries the same texts: the suites as `protected_suffix` and `public_suffix`,
the header as `oracle` (what the grader needs beside the suites).
A language passgate cannot grade is refused here, so `passgate freeze` refuses it with the reason.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from passgate.core.errors import ConfigError
from passgate.core.languages.datasets import load_humaneval_x, load_multipl_e
from passgate.core.languages.registry import spec_for
from passgate.core.model import LanguageJob, Task

from .io import file_sha256


# HumanEval-X task ids name their language: CPP/0, JavaScript/0, ...
_HUMANEVAL_X_PREFIX = {"CPP": "cpp", "Go": "go", "Java": "java", "JavaScript": "js", "Rust": "rs", "Python": "py"}
# the shared datasets' files (SOURCES.md sections 6 and 7): sha256 -> revision
KNOWN_REVISIONS = {
    "dcf2e280a1e91bbc3c5f90edb41397e8a9ac1ccc9f5d2b70082f0b0fbfb6dbb0": "codegeex-2838420",
    "09126ef64ac68f87296c5f3781186aedc5dec799b114d9df99d6de4a715a7830": "codegeex-2838420",
    "276f36db2eb7aeb864f36a19a2f4e1bb2460fb6e22ff100f0b5bedabe3799967": "codegeex-2838420",
    "fe5d467f2c1a027b3f6f18d3729aca01f6458c1de2e2d1292a019c5aa9bed424": "codegeex-2838420",
    "ae5cabbbfc8fe25244a608b04f09ac3b324c645ac969dfc033756c12f0f9924c": "codegeex-2838420",
    "2efd706e29e3c95b0a5ae23347b6a91d8927bd849b70d9da434a6f32a8164e5c": "sandboxfusion-469de08",
    "424b0ff423a4934782d3b073039991a50eb80cf37d98a99dfc4addb43c3484ad": "sandboxfusion-469de08",
    "8a83711ddd12093abe36253b8f79da5e9c97311c5a281031ec4501936e952741": "sandboxfusion-469de08",
    "446f7abbf97a1bb2ab575708b41158c18b9164416cf474ce1f974194ec707d79": "sandboxfusion-469de08",
    "b77f1f85b54f97b049b2ab3b3af95f7d0fa8a092dfc25df289aad577a50fcc55": "sandboxfusion-469de08",
    "b4a7a181cbde5390a22447fc971b6f50ec54bfeb82b0d46f3b75108327416352": "sandboxfusion-469de08",
    "6f7af20d4698a50d35147aba9fcfedaba80574108acb6fdb9d8eaf7a6b7afafe": "sandboxfusion-469de08",
    "14ca3e0533ae7b80744fe2a0c0bab9971c658e23b11e3fa18203a5ab0e749517": "sandboxfusion-469de08",
    "124aefe56d0a25e44ee517d632d72018970333bf9f96e66a511be6ae688c9c70": "sandboxfusion-469de08",
    "7d9657ac7df28a940748010ad0ce5cb3b4b30e0bc05e0e6e6f86af056a6cddd0": "sandboxfusion-469de08",
    "2993025391a7b18e85f6cc72e3f8556c5fe3fcaefb09eaf92d429ffedcfd5c3a": "sandboxfusion-469de08",
    "928d7044d6401bac3d51b70ab202b8c23381b606e9b624bf0daf742dc228056a": "sandboxfusion-469de08",
    "657cb9e537c1340def8fd4e9c78718c2822beb11890d646ce702c3add99f0eb9": "sandboxfusion-469de08",
    "8ee5f36c2f42cfda78a7c205dfb8e391482e852d7456a9c266d9338f88f5fa1c": "sandboxfusion-469de08",
    "343ecddb747e7e29ba2a106348f2cae617a2fa076c30d67eabadf9903c681f22": "sandboxfusion-469de08",
    "849da6fd37b628e1a5a75fcc013184f8c2c884968d58632eae6935d1403c4061": "sandboxfusion-469de08",
    "a5e352edaa2448b57a0a38fb65d112534269bb8df4044d3f1d6c074220dae10c": "sandboxfusion-469de08",
    "e9e5e6ff6fba57fe121d42010142bc3c6012dc1de314bba33c7a1b4459b89b12": "sandboxfusion-469de08",
}
_MULTIPLE_NAME = re.compile(r"^HumanEval_\d+_(?P<function>\w+)$")


def language_of_set(kind: str, path: Path, language: str | None) -> str:
    """The registry name of a set's language: the manifest's for HumanEval-X, the file's for MultiPL-E."""
    if kind == "humaneval-x":
        if not language:
            raise ConfigError("a humaneval-x task set needs `language:` (js, cpp, java, go or rs)", field="language")
        return _graded(language)
    found = _multipl_e_language(path)
    if language and _graded(language) != _graded(found):
        raise ConfigError(f"the file holds MultiPL-E {found} tasks but the set says language {language!r}",
                          path=str(path), field="language")
    return _graded(found)


def _graded(language: str) -> str:
    return spec_for(language).name      # raises ConfigError with the reason when it cannot be graded


def _multipl_e_language(path: Path) -> str:
    tasks = load_multipl_e(path)
    languages = {t.language for t in tasks}
    if len(languages) != 1:
        raise ConfigError(f"a MultiPL-E file holds one language; this one holds {sorted(languages) or 'none'}",
                          path=str(path), field="language")
    return languages.pop()


def load(kind: str, path: Path, slice_name: str | None, language: str | None) -> tuple[list[Task], list[str]]:
    """The set's tasks and notes; ConfigError for a language passgate cannot grade or a file that is not one."""
    name = language_of_set(kind, path, language)
    if kind == "humaneval-x":
        tasks, notes = _humaneval_x(path, name, slice_name or f"humaneval-x-{name}")
    else:
        tasks, notes = _multipl_e(path, name, slice_name or f"multipl-e-{name}")
    return [_with_spec_texts(t) for t in tasks], notes


def _with_spec_texts(task: Task) -> Task:
    """The texts the worker's task spec carries (core/sandbox/runner.py TaskSpec.of, read back by
    core/languages/job.py texts_of): the suites as they are, the language header as the oracle."""
    return dataclasses.replace(task, protected_suffix=task.protected_tests, public_suffix=task.public_tests,
                               oracle=task.language.to_json())


def _tags(spec, dataset: str, test) -> tuple[str, ...]:
    split = spec.split(test)
    return (f"language:{spec.name}", f"dataset:{dataset}", f"integrity:{split.integrity.value}")


def _humaneval_x(path: Path, language: str, slice_name: str) -> tuple[list[Task], list[str]]:
    spec = spec_for(language)
    try:
        records = load_humaneval_x(path)
    except (OSError, ValueError, KeyError) as exc:
        raise ConfigError(f"not a HumanEval-X file: {exc}", path=str(path)) from None
    tasks = []
    for rec in records:
        prefix = rec.task_id.split("/", 1)[0]
        if _HUMANEVAL_X_PREFIX.get(prefix) != language:
            raise ConfigError(f"task {rec.task_id} is not a {spec.title} task; the set says language {language!r}",
                              path=str(path), field="language")
        support = {}
        evaluation = rec.hidden.extras.get("evaluation_dir")
        if evaluation and (Path(evaluation) / "vendor.tar.gz").exists():
            support["vendor.tar.gz"] = file_sha256(Path(evaluation) / "vendor.tar.gz")
        job = LanguageJob(language=language, dataset="humaneval-x", prompt=rec.hidden.prompt,
                          declaration=rec.hidden.declaration, extras=dict(rec.hidden.extras),
                          stop_tokens=spec.default_stop_tokens, support_sha256=support)
        tasks.append(Task(task_id=rec.task_id, slice=slice_name, prompt=_model_prompt(rec.hidden), entry_point="",
                          public_tests=rec.public.test if rec.public else "", protected_tests=rec.hidden.test,
                          language=job, reference_solution=rec.canonical_solution,
                          tags=_tags(spec, "humaneval-x", rec.hidden)))
    notes = []
    if any(not t.public_tests for t in tasks):
        notes.append(f"{path}: {sum(not t.public_tests for t in tasks)} tasks have no public (example) test")
    return tasks, notes


def _model_prompt(test) -> str:
    """What a model continues: the prompt, and the declaration when the prompt stops before the
    function's signature (HumanEval-X's Rust prompt is only the docstring)."""
    signature = next((ln for ln in reversed(test.declaration.splitlines()) if ln.strip()), "")
    if not signature or signature in test.prompt:
        return test.prompt
    return test.prompt + test.declaration


def _multipl_e(path: Path, language: str, slice_name: str) -> tuple[list[Task], list[str]]:
    spec = spec_for(language)
    tasks = []
    for rec in load_multipl_e(path):
        match = _MULTIPLE_NAME.match(rec.task_id)
        job = LanguageJob(language=language, dataset="multipl-e", prompt=rec.tests.prompt,
                          entry_point=match.group("function") if match else "", stop_tokens=rec.stop_tokens)
        tasks.append(Task(task_id=f"{language}/{rec.task_id}", slice=slice_name, prompt=rec.tests.prompt,
                          entry_point=job.entry_point, protected_tests=rec.tests.test, language=job,
                          tags=_tags(spec, "multipl-e", rec.tests)))
    notes = [f"{path}: MultiPL-E gives no reference solutions: no self-check for these {len(tasks)} tasks"]
    return tasks, notes


def set_id_of(kind: str, tasks: list[Task]) -> str:
    """`humaneval-x-js`, `multipl-e-ts`: one set id per dataset and language."""
    language = next((t[len("language:"):] for t in tasks[0].tags if t.startswith("language:")), "") if tasks else ""
    return f"{kind}-{language}" if language else kind


def language_of_task(task: Task) -> str | None:
    """The language a task is graded in (None: a Python task)."""
    return task.language.language if task.language is not None else None


def revision_of(sha256: str) -> str | None:
    return KNOWN_REVISIONS.get(sha256)
