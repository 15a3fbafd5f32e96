"""Candidates the end-to-end language runs grade, per language: MultiPL-E's HumanEval_53_add answered
right, wrong, with a forged early exit and with a compile error (no dataset gives MultiPL-E
references), and HumanEval-X's own variants of canonical solutions (tests/languages/variants.py)."""

from __future__ import annotations

# HumanEval_53_add, completions after MultiPL-E's prompt; where the tests open with the function's
# closing brace (C++, C#, Java, Rust, Scala, Bash), the completion leaves it to them
ADD = {
    "js": "  return x + y;\n}\n",
    "ts": "  return x + y;\n}\n",
    "cpp": "    return x + y;\n",
    "java": "        return x + y;\n",
    "go": "    return x + y\n}\n",
    "rs": "    x + y\n",
    "sh": "    echo $(( $1 + $2 ))\n",
    "rb": "  x + y\nend\n",
    "php": "    return $x + $y;\n}\n",
    "pl": "    return $x + $y;\n}\n",
    "r": "\n    x + y\n}\n",
    "rkt": "  (+ x y))\n",
    "d": "{\n    return x + y;\n}\n",
    "cs": "        return x + y;\n",
    "scala": "        x + y\n",
}


def add_wrong(language: str) -> str:
    """The same answer, subtracting: add(0, 1) is -1."""
    return ADD[language].replace("x + y", "x - y").replace("$x + $y", "$x - $y").replace(
        "$1 + $2", "$1 - $2").replace("(+ x y)", "(- x y)")


# an exit with status 0 before any test runs: MultiPL-E's own program passes it
ADD_EARLY_EXIT = {
    "js": "  process.exit(0);\n}\n",
    "ts": "  (globalThis as any).process.exit(0); return 0;\n}\n",
    "cpp": "    exit(0);\n",
    "java": "        System.exit(0); return 0;\n",
    "rs": "    std::process::exit(0)\n",
    "sh": "    exit 0\n",
    "rb": "  exit(0)\nend\n",
    "php": "    exit(0);\n}\n",
    "pl": "    exit(0);\n}\n",
    "r": "\n    quit(status = 0)\n}\n",
    "rkt": "  (exit 0))\n",
    "d": "{\n    import core.stdc.stdlib : exit; exit(0); return 0;\n}\n",
    "cs": "        System.Environment.Exit(0); return 0;\n",
    "scala": "        sys.exit(0)\n",
}

# how the early exit fails where it is not premature_exit: Bash runs the candidate in `$(...)`, a
# subshell, so its `exit 0` ends only that subshell and the answer is empty
ADD_EARLY_EXIT_FAILS_AS = {"sh": "wrong_answer"}

# text no compiler accepts
ADD_COMPILE_ERROR = {lang: "    return x +* ;\n}\n" for lang in ("cpp", "java", "go", "rs", "d", "cs", "scala", "ts")}
