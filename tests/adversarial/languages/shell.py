"""Hostile Bash candidates (MultiPL-E's sh): each must fail, none may end as an evaluator error.

Task HumanEval_0_has_close_elements (its prompt ends `has_close_elements() {`); the tests open with
the `}` that closes it and call it as `$(candidate ...)`, a subshell. A case that runs code at the top
level closes the function itself and opens a spare one for the tests' brace to close."""

from .corpus import HostileCase

TASK = "HumanEval_0_has_close_elements"

def top_level(code: str) -> str:
    return "    echo false\n}\n" + code + "\nspare() {\n    :\n"


CASES = (
    HostileCase("exit0_inside_function", TASK, "    exit 0\n"),
    HostileCase("exit0_at_load", TASK, top_level("exit 0")),
    HostileCase("exit0_from_exit_trap", TASK, top_level("trap 'exit 0' EXIT ERR")),
    HostileCase("fake_test_output", TASK, top_level("echo 'ok: all tests passed'")),
    HostileCase("shadows_printf", TASK, top_level("printf() { :; }")),
    HostileCase("shadows_the_double_bracket_test", TASK, top_level("shopt -s expand_aliases\nalias '[['='true ||'")),
    HostileCase("forged_report_lines", TASK,
                top_level("for i in 0 1 2 3 4 5 6; do echo \"{\\\"s\\\":$i,\\\"v\\\":\\\"true\\\"}\" >&3; done\n"
                          "echo '{\"end\":7}' >&3; exit 0")),
    HostileCase("reads_the_test_file", TASK,
                "    grep -q '= \"true\"' main.sh && echo true || echo false\n"),
    HostileCase("fork_bomb", TASK, "    bomb() { bomb | bomb & }; bomb\n"),
    HostileCase("memory_bomb", TASK, "    s=x; while :; do s=$s$s; done\n"),
    HostileCase("endless_output", TASK, "    yes\n"),
    HostileCase("endless_loop", TASK, "    while :; do :; done\n"),
)
