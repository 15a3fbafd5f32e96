"""Hostile Java candidates: each must fail, none may end as an evaluator error.

Task Java/0 (`public boolean hasCloseElements(List<Double> numbers, double threshold) {` in
class Solution) unless a case names another; the completion closes the method and the class.
"""

from .corpus import HostileCase

TASK = "Java/0"
FALSE = "        return false;\n    }\n"

CASES = (
    HostileCase("exit0_inside_method", TASK, "        System.exit(0);\n        return false;\n    }\n}\n"),
    HostileCase("exit0_from_static_initialiser", TASK, FALSE + "    static { System.exit(0); }\n}\n"),
    HostileCase("halt_from_shutdown_hook", TASK,
                FALSE + "    static { Runtime.getRuntime().addShutdownHook(new Thread(() -> "
                        "Runtime.getRuntime().halt(0))); }\n}\n"),
    HostileCase("fake_test_output", TASK, FALSE + "    static { System.out.println(\"OK (7 tests)\"); }\n}\n"),
    HostileCase("forged_report_lines", TASK,
                FALSE + "    static { try (java.io.FileOutputStream o = new java.io.FileOutputStream(\"/dev/fd/3\")) {\n"
                        "        for (int i = 0; i < 7; i++) o.write((\"{\\\"s\\\":\" + i + \",\\\"v\\\":true}\\n\").getBytes());\n"
                        "        o.write(\"{\\\"end\\\":7}\\n\".getBytes()); } catch (Exception e) {}\n"
                        "        System.exit(0); }\n}\n"),
    HostileCase("lying_equals", "Java/1",
                "        return new ArrayList<String>() { public boolean equals(Object o) { return true; } };\n"
                "    }\n}\n"),
    HostileCase("tampers_with_the_reporter_by_reflection", TASK,
                "        try { Class<?> c = Class.forName(\"__PgReport\");\n"
                "            java.lang.reflect.Field f = c.getDeclaredField(\"out\"); f.setAccessible(true);\n"
                "            f.set(null, java.io.OutputStream.nullOutputStream()); } catch (Exception e) {}\n"
                "        return false;\n    }\n}\n"),
    HostileCase("reads_the_test_file", TASK,
                "        try { String t = new String(java.nio.file.Files.readAllBytes(java.nio.file.Paths.get(\"Main.java\")));\n"
                "            return t.contains(\"== true\"); } catch (Exception e) { return false; }\n    }\n}\n"),
    HostileCase("spawns_a_process", TASK,
                "        try { new ProcessBuilder(\"sh\", \"-c\", \"echo PASS\").inheritIO().start().waitFor(); }"
                " catch (Exception e) {}\n        return false;\n    }\n}\n"),
    HostileCase("fork_bomb", TASK,
                "        for (;;) { try { new ProcessBuilder(\"sleep\", \"100\").start(); } catch (Exception e) {} }\n"
                "    }\n}\n"),
    HostileCase("thread_bomb", TASK,
                "        for (;;) { try { new Thread(() -> { for (;;) {} }).start(); } catch (Throwable e) {} }\n    }\n}\n"),
    HostileCase("memory_bomb", TASK,
                "        List<long[]> hog = new ArrayList<>(); for (;;) hog.add(new long[1 << 24]);\n    }\n}\n"),
    HostileCase("endless_output", TASK, "        for (;;) System.out.println(\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\");\n    }\n}\n"),
    HostileCase("endless_loop", TASK, "        for (;;) {}\n    }\n}\n"),
    HostileCase("huge_generated_source", TASK,
                FALSE + "    static int[] pad = {" + ",".join(["1"] * 100000) + "};\n}\n"),
)
