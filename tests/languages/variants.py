"""Wrong variants of canonical solutions, per language, for the agreement table.

Generic ones apply to every task (an early exit 0, a fake "passed" line then exit 0, an
exception, a wrong-typed return, a correct answer that also prints); hand-written ones change
one expression of a chosen task (off by one, a wrong comparison). Each maps a task's canonical
solution to a candidate completion, or None when it does not apply to that task.
"""

from __future__ import annotations

from typing import Callable

Variant = Callable[[str, str], "str | None"]     # (task_id, canonical solution) -> completion


def _prefix(text: str) -> Variant:
    return lambda task_id, canonical: text + canonical


def _edit(edits: dict[str, tuple[str, str]]) -> Variant:
    def apply(task_id: str, canonical: str) -> str | None:
        if task_id not in edits:
            return None
        old, new = edits[task_id]
        if old not in canonical:
            raise ValueError(f"{task_id}: {old!r} not in the canonical solution")
        return canonical.replace(old, new, 1)
    return apply


JS = {
    "exit0_first": _prefix("  process.exit(0);\n"),
    "fake_pass_then_exit0": _prefix("  console.log('All tests passed'); process.exit(0);\n"),
    "throws": _prefix("  throw new Error('not implemented');\n"),
    "wrong_type_null": _prefix("  return null;\n"),
    "correct_but_prints": _prefix("  console.log('debug: called');\n"),
    "off_by_one": _edit({
        "JavaScript/13": ("return a;", "return a + 1;"),
        "JavaScript/55": ("return 1;", "return 2;"),
        "JavaScript/60": ("n * (n + 1) / 2", "n * (n - 1) / 2"),
        "JavaScript/0": ("distance < threshold", "distance <= threshold"),
        "JavaScript/24": ("i = n - 1", "i = n - 2"),
        "JavaScript/35": ("return", "return 1 +"),
    }),
}

BY_LANGUAGE = {"js": JS}

CPP = {
    "exit0_first": _prefix("    exit(0);\n"),
    "fake_pass_then_exit0": _prefix("    printf(\"All tests passed\\n\"); exit(0);\n"),
    "aborts": _prefix("    abort();\n"),
    "default_value": _prefix("    return {};\n"),
    "correct_but_prints": _prefix("    printf(\"debug: called\\n\");\n"),
    "off_by_one": _edit({
        "CPP/13": ("if (a==0) return b;", "if (a==0) return b+1;"),
        "CPP/55": ("f[1]=1;", "f[1]=2;"),
        "CPP/60": ("n*(n+1)/2", "n*(n-1)/2"),
        "CPP/35": ("if (max<l[i])", "if (max>l[i])"),
        "CPP/0": ("<threshold", "<=threshold"),
    }),
}

JAVA = {
    "exit0_first": _prefix("        System.exit(0);\n"),
    "fake_pass_then_exit0": _prefix("        System.out.println(\"OK (1 test)\"); System.exit(0);\n"),
    "throws": _prefix("        if (true) throw new RuntimeException(\"not implemented\");\n"),
    "correct_but_prints": _prefix("        System.out.println(\"debug: called\");\n"),
    "off_by_one": _edit({
        "Java/55": ("return 1;", "return 2;"),
        "Java/60": ("i <= n", "i < n"),
        "Java/35": ("return Collections.max(l);", "return Collections.min(l);"),
        "Java/13": ("return a + b;", "return a + b + 1;"),
    }),
}

GO = {
    "panics_first": _prefix("    panic(\"not implemented\")\n"),
    "correct_but_prints": _prefix("    fmt.Println(\"debug: called\")\n"),
    "off_by_one": _edit({
        "Go/55": ("return n\n", "return n + 1\n"),
        "Go/60": ("return n + SumToN(n - 1)", "return n + SumToN(n - 2)"),
        "Go/35": ("if x > max", "if x < max"),
        "Go/13": ("i < b", "i < b - 1"),
    }),
}

RUST = {
    "exit0_first": _prefix("    std::process::exit(0);\n"),
    "fake_pass_then_exit0": _prefix("    println!(\"test result: ok. 1 passed\"); std::process::exit(0);\n"),
    "panics_first": _prefix("    panic!(\"not implemented\");\n"),
    "correct_but_prints": _prefix("    println!(\"debug: called\");\n"),
    "off_by_one": _edit({
        "Rust/55": ("return 1;", "return 2;"),
        "Rust/60": ("n*(n+1)/2", "n*(n-1)/2"),
        "Rust/35": (".max()", ".min()"),
        "Rust/13": ("return a;", "return a + 1;"),
    }),
}

BY_LANGUAGE.update({"cpp": CPP, "java": JAVA, "go": GO, "rs": RUST})
# variants that apply to every task (the rest are hand edits of chosen tasks)
GENERIC = {name for variants in BY_LANGUAGE.values() for name in variants if name != "off_by_one"}
