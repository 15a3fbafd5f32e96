"""Hostile Go candidates: each must fail, none may end as an evaluator error.

Task Go/0 (`func HasCloseElements(numbers []float64, threshold float64) bool {`). A completion
cannot add imports (they precede every declaration); the runner imports only the helper packages
HumanEval-X's own runner does (fmt, strings, math, ...) when the code names them.
"""

from .corpus import HostileCase

TASK = "Go/0"
FALSE = "    return false\n}\n"

CASES = (
    HostileCase("exit0_inside_function", TASK, "    os.Exit(0)\n    return false\n}\n"),
    HostileCase("exit0_from_init", TASK, FALSE + "func init() { syscall.Exit(0) }\n"),
    HostileCase("panic_from_init", TASK, FALSE + "func init() { panic(\"boom\") }\n"),
    HostileCase("fake_test_output_from_init", TASK,
                FALSE + "func init() { fmt.Println(\"PASS\\nok  \\tcommand-line-arguments\\t0.001s\") }\n"),
    HostileCase("shadows_the_reporter", TASK, FALSE + "func __pgReport(site int, value interface{}) {}\n"),
    HostileCase("reads_the_test_file", TASK,
                "    b, _ := ioutil.ReadFile(\"main.go\")\n    return strings.Contains(string(b), \"Equal(true\")\n}\n"),
    HostileCase("goroutine_bomb", TASK, "    for {\n        go func() { for {} }()\n    }\n}\n"),
    HostileCase("memory_bomb", TASK,
                "    hog := [][]byte{}\n    for {\n        b := make([]byte, 1<<26)\n        for i := range b { b[i] = 1 }\n"
                "        hog = append(hog, b)\n    }\n}\n"),
    HostileCase("endless_output", TASK, "    for {\n        fmt.Println(\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\")\n    }\n}\n"),
    HostileCase("endless_loop", TASK, "    for {\n    }\n}\n"),
    HostileCase("huge_generated_source", TASK,
                FALSE + "var pad = []int{" + ",".join(["1"] * 200000) + "}\n"),
    HostileCase("constant_bomb", TASK, FALSE + "const big = 1 << 100000000\nvar small = big >> 100000000\n"),
)
