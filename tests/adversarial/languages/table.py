"""The hostile corpus of one language as a table: each case's verdict and how it failed, graded by
the product's language runner exactly as test_language_hostile.py grades it.

    python -m tests.adversarial.languages.table js
"""

from __future__ import annotations

import importlib
import sys

from passgate.core.languages.registry import spec_for
from passgate.core.languages.runner import LanguageImage, LanguageRunner
from passgate.core.sandbox.runner import EvalRequest, TaskSpec, WorkerLost, limits_for
from tests.adversarial.languages.test_language_hostile import COMPILE_CPU_S, CORPORA, LIMITS, hostile_tasks


def main(lang: str) -> None:
    spec = spec_for(lang)
    corpus = importlib.import_module(f"tests.adversarial.languages.{CORPORA[lang]}")
    tasks = hostile_tasks(lang, {case.task_id for case in corpus.CASES})
    runner = LanguageRunner(images=[LanguageImage(lang, spec.toolchain.tag, None)], runtime="runsc", limits=LIMITS,
                            compile_cpu_s=COMPILE_CPU_S, run_label="hostile-table")
    runner.check()
    worker = runner.new_worker()
    print(f"| {spec.title} hostile case | verdict | class | how it ended |\n|---|---|---|---|")
    try:
        for case in corpus.CASES:
            request = EvalRequest(task=TaskSpec.of(tasks[case.task_id]), program=case.completion,
                                  limits=limits_for(LIMITS, 2.0), timeout_s=300)
            try:
                res = worker.evaluate(request)
            except WorkerLost as exc:
                print(f"| {case.name} | INFRA ERROR | | {str(exc)[:120]} |")
                continue
            finally:
                if worker.worn():
                    worker.close()
                    worker = runner.new_worker()
            p = res.protected
            print(f"| {case.name} | {'PASSED' if res.passed else 'failed'} | {p.failure_class or ''} | "
                  f"{p.detail[:100].replace('|', '/')} |")
    finally:
        runner.close()


if __name__ == "__main__":
    main(sys.argv[1])
