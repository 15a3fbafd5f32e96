"""Hostile C++ candidates: each must fail, none may end as an evaluator error.

Task CPP/0 (its prompt ends `bool has_close_elements(vector<float> numbers, float threshold){`);
the completion is the function's body onward, so it may add declarations after the function.
"""

from .corpus import HostileCase

TASK = "CPP/0"
BODY_FALSE = "    return false;\n}\n"

CASES = (
    HostileCase("exit0_inside_function", TASK, "    exit(0);\n}\n"),
    HostileCase("exit0_from_static_initialiser", TASK, BODY_FALSE + "static int quit = (exit(0), 0);\n"),
    HostileCase("exit0_from_global_constructor", TASK,
                BODY_FALSE + "__attribute__((constructor)) static void early() { _exit(0); }\n"),
    HostileCase("quick_exit_from_destructor", TASK,
                BODY_FALSE + "struct Q { ~Q() { _exit(0); } } q_at_exit;\n"),
    HostileCase("define_assert_away", TASK, BODY_FALSE + "#undef assert\n#define assert(x) ((void)0)\n"),
    HostileCase("define_issame_true", "CPP/5",
                "    return {};\n}\n#define issame(a, b) true\n"),
    HostileCase("define_the_function_to_a_constant", TASK,
                BODY_FALSE + "#define has_close_elements(...) true\n"),
    HostileCase("fake_test_output", TASK,
                BODY_FALSE + "struct P { P() { printf(\"All tests passed\\n\"); fflush(stdout); } } p_now;\n"),
    HostileCase("forged_report_lines", TASK,
                "    return true;\n}\n#include <unistd.h>\nstruct F { F() { for (int i = 0; i < 7; i++) {"
                " char b[64]; int n = snprintf(b, sizeof b, \"{\\\"s\\\":%d,\\\"v\\\":true}\\n\", i); write(3, b, n); }"
                " write(3, \"{\\\"end\\\":7}\\n\", 10); _exit(0); } } forge_now;\n"),
    HostileCase("reads_the_test_file", TASK,
                "    FILE* f = fopen(\"main.cpp\", \"r\"); char buf[1 << 16]; size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;\n"
                "    buf[n] = 0; return strstr(buf, \"== true\") != NULL;\n}\n"),
    HostileCase("spawns_a_process", TASK, "    system(\"echo PASS; id\");\n    return false;\n}\n"),
    HostileCase("fork_bomb", TASK, "    for (;;) fork();\n}\n#include <unistd.h>\n"),
    HostileCase("memory_bomb", TASK,
                "    for (;;) { char* p = (char*)malloc(1 << 26); if (p) memset(p, 1, 1 << 26); }\n}\n"),
    HostileCase("endless_output", TASK, "    for (;;) fputs(\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\\n\", stdout);\n}\n"),
    HostileCase("endless_loop", TASK, "    for (volatile int i = 0; ; i++) {}\n}\n"),
    HostileCase("template_recursion_bomb", TASK,
                BODY_FALSE + "template <int N, int M> struct Blow { enum { v = Blow<N - 1, 2 * M>::v + "
                "Blow<N - 1, 2 * M + 1>::v }; };\ntemplate <int M> struct Blow<0, M> { enum { v = 1 }; };\n"
                "int blown = Blow<28, 0>::v;\n"),
    HostileCase("huge_generated_source", TASK,
                BODY_FALSE + "static const int pad[] = {" + ",".join(["1"] * 300000) + "};\n"),
    HostileCase("lying_equality_operator", "CPP/1",
                "    return {};\n}\nbool operator==(const vector<string>&, const vector<string>&) { return true; }\n"
                "bool operator!=(const string&, const string&) { return false; }\n"),
)
