"""Hostile Bash candidates (MultiPL-E's sh): each must fail, none may end as an evaluator error.

Task HumanEval_0_has_close_elements (its prompt ends `has_close_elements() {`); the tests call
it as `$(candidate ...)`, a subshell."""

from .corpus import HostileCase

TASK = "HumanEval_0_has_close_elements"

CASES = (
    HostileCase("exit0_inside_function", TASK, "    exit 0\n}\n"),
    HostileCase("exit0_at_load", TASK, "    echo false\n}\nexit 0\n"),
    HostileCase("exit0_from_exit_trap", TASK, "    echo false\n}\ntrap 'exit 0' EXIT ERR\n"),
    HostileCase("fake_test_output", TASK, "    echo false\n}\necho 'ok: all tests passed'\n"),
    HostileCase("shadows_printf", TASK, "    echo false\n}\nprintf() { :; }\n"),
    HostileCase("shadows_the_double_bracket_test", TASK,
                "    echo false\n}\nshopt -s expand_aliases\nalias '[['='true ||'\n"),
    HostileCase("forged_report_lines", TASK,
                "    echo false\n}\nfor i in 0 1 2 3 4 5 6; do echo \"{\\\"s\\\":$i,\\\"v\\\":\\\"true\\\"}\" >&3; done\n"
                "echo '{\"end\":7}' >&3; exit 0\n"),
    HostileCase("reads_the_test_file", TASK,
                "    grep -q '= \"true\"' main.sh && echo true || echo false\n}\n"),
    HostileCase("fork_bomb", TASK, "    bomb() { bomb | bomb & }; bomb\n}\n"),
    HostileCase("memory_bomb", TASK, "    s=x; while :; do s=$s$s; done\n}\n"),
    HostileCase("endless_output", TASK, "    yes\n}\n"),
    HostileCase("endless_loop", TASK, "    while :; do :; done\n}\n"),
)
