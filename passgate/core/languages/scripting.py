"""The other MultiPL-E languages Debian packages, graded in-process for now: the dataset's own
program (prompt + completion + tests) runs in the language's pinned image and its exit status
decides, which a candidate can forge (an early exit 0). Every verdict says `in_process`.

Each is MultiPL-E's construction for that language (its evaluation scripts): the file name, the
compile step where there is one, the run command.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from .toolchain import Toolchain
from .spec import LanguageSpec, Program, SourceFile, SplitTest, TestInput
from .splitting import in_process

REASON = "tests of this language are not split yet: the original program decides by its exit status"


def _split(test: TestInput) -> SplitTest:
    return in_process(test.test, REASON)


@dataclass(frozen=True)
class OutputRule:
    """A dataset's rule that reads the program's output as well as its exit status. `reads` names
    the streams it looks at: when the supervisor kept only part of one, the rule cannot be applied
    and the grader fails the program (grading.judge)."""

    reads: tuple[str, ...]                            # "stdout", "stderr"
    passes: Callable[[int | None, str, str], bool]    # (exit status, stdout, stderr) -> passed

    def __call__(self, status: int | None, out: str, err: str) -> bool:
        return self.passes(status, out, err)


def _no_runtime() -> str:
    return ""


def _language(name: str, title: str, packages: tuple[str, ...], file: str, run: tuple[str, ...],
              compile_argv: tuple[str, ...] | None = None, fence_tags: tuple[str, ...] = (),
              stop_tokens: tuple[str, ...] = (), rlimit_as: bool = True, passes=None,
              env: tuple[tuple[str, str], ...] = ()) -> LanguageSpec:
    def original(test: TestInput, completion: str) -> Program:
        return Program((SourceFile(file, test.prompt + completion + "\n" + test.test),), compile_argv, run, env)

    def program(test: TestInput, completion: str, split_test: SplitTest) -> Program:
        return original(test, completion)

    return LanguageSpec(name=name, title=title, toolchain=Toolchain(name, packages), fence_tags=fence_tags or (name,),
                        split=_split, program=program, original=original, runtime=_no_runtime,
                        version_argv=(run[0], "--version"), rlimit_as=rlimit_as, default_stop_tokens=stop_tokens,
                        in_process_passes=passes)


RUBY = _language("rb", "Ruby", ("ruby",), "main.rb", ("ruby", "main.rb"), fence_tags=("ruby", "rb"),
                 stop_tokens=("\nclass", "\ndef", "\n#", "\n\n"))
PHP = _language("php", "PHP", ("php-cli",), "main.php", ("php", "main.php"),
                stop_tokens=("\nfunction", "\n?>", "\n//", "\n#"))
# MultiPL-E's own rules (its evaluation/src/eval_pl.py and eval_racket.py): Perl fails a program that
# prints ERROR; rackunit reports a failed check on stderr and exits 0, so Racket fails on any stderr
PERL = _language("pl", "Perl", ("perl", "libtest-deep-perl"), "main.pl", ("perl", "main.pl"),
                 fence_tags=("perl", "pl"), stop_tokens=("\nsub", "\n#", "\n\n"),
                 passes=OutputRule(("stdout", "stderr"),
                                   lambda status, out, err: status == 0 and "ERROR" not in out + err))
R = _language("r", "R", ("r-base-core",), "main.r", ("Rscript", "main.r"), fence_tags=("r",),
              stop_tokens=("\n#", "\n```"))
RACKET = _language("rkt", "Racket", ("racket",), "main.rkt", ("racket", "main.rkt"), fence_tags=("racket", "rkt"),
                   stop_tokens=("\n(define ", "\n#|", "\n;", "\n("),
                   passes=OutputRule(("stderr",), lambda status, out, err: status == 0 and not err.strip()))
D = _language("d", "D", ("gdc",), "main.d", ("./main",), ("gdc", "-funittest", "-o", "main", "main.d"),
              fence_tags=("d",), stop_tokens=("\n\n", "\nvoid", "\nbool", "\nint"))
# Mono's Debug.Assert reports a failure only to a trace listener and carries on (exit 0): MultiPL-E's
# C# evaluation sends it to stderr (MONO_TRACE_LISTENER) and fails a program whose stderr shows one
CSHARP = _language("cs", "C#", ("mono-mcs", "mono-runtime", "libmono-system-numerics4.0-cil"), "main.cs",
                   ("mono", "main.exe"), ("mcs", "-d:DEBUG", "-r:System.Numerics.dll", "-out:main.exe", "main.cs"),
                   fence_tags=("csharp", "cs", "c#"), stop_tokens=("\n    }\n",), rlimit_as=False,
                   env=(("MONO_TRACE_LISTENER", "Console.Error"),),
                   passes=OutputRule(("stderr",), lambda status, out, err: status == 0
                                     and "DefaultTraceListener.Fail" not in err and "Unhandled Exception" not in err))
SCALA = _language("scala", "Scala", ("scala",), "main.scala", ("scala", "-J-Xss64m", "Problem"),
                  ("scalac", "main.scala"), fence_tags=("scala",), stop_tokens=("\n    }\n",), rlimit_as=False)

IN_PROCESS_LANGUAGES = (RUBY, PHP, PERL, R, RACKET, D, CSHARP, SCALA)
