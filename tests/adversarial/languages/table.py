"""The hostile corpus of one language as a table: each case's verdict and how it failed.

    python -m tests.adversarial.languages.table js
"""

from __future__ import annotations

import importlib
import sys

from passgate.core.languages.registry import spec_for
from passgate.core.languages.verdict import grade
from tests.adversarial.languages.test_language_hostile import CORPORA, hostile_tests
from tests.languages.driver import InfraError, LanguageSandbox, Limits
from tests.languages.measure import limits_for


def main(lang: str) -> None:
    spec = spec_for(lang)
    tests = hostile_tests()[lang]
    corpus = importlib.import_module(f"tests.adversarial.languages.{CORPORA[lang]}")
    base = limits_for(lang)
    limits = Limits(compile_wall_s=20, run_wall_s=5, cpu_s=10, file_kb=base.file_kb, nproc=base.nproc,
                    address_space_kb=base.address_space_kb)
    print(f"| {spec.title} hostile case | verdict | how it ended |\n|---|---|---|")
    with LanguageSandbox(spec.toolchain.tag, limits=limits) as box:
        for case in corpus.CASES:
            test = tests[case.task_id]
            split = spec.split(test)
            try:
                ex = box.execute(spec.program(test, case.completion, split))
            except InfraError as exc:
                print(f"| {case.name} | INFRA ERROR | {str(exc)[:120]} |")
                continue
            if ex.compile_status not in (None, 0):
                print(f"| {case.name} | failed | compile_error: {ex.first_compile_error()[:110]} |")
                continue
            v = grade(split, ex.report, exit_status=None if ex.timed_out else ex.run_status)
            how = "timeout" if ex.timed_out else f"{v.failure}: {v.detail[:90]}"
            print(f"| {case.name} | {'PASSED' if v.passed else 'failed'} | {how.replace('|', '/')} |")


if __name__ == "__main__":
    main(sys.argv[1])
