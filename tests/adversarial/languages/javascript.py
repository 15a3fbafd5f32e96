"""Hostile JavaScript candidates: each must fail, none may end as an evaluator error.

Task JavaScript/0 (hasCloseElements: its prompt ends `const hasCloseElements = (numbers, threshold) => {`)
unless a case names another; the completion is the function's body onward.
"""

from .corpus import HostileCase

TASK = "JavaScript/0"

CASES = (
    HostileCase("exit0_inside_function", TASK, "  process.exit(0);\n}\n"),
    HostileCase("exit0_at_load", TASK, "  return false;\n}\nprocess.exit(0);\n"),
    HostileCase("exit0_on_exit_hook", TASK, "  return false;\n}\nprocess.on('exit', () => { process.exitCode = 0; });\n"),
    HostileCase("fake_test_output", TASK,
                "  return false;\n}\nconsole.log('All 7 assertions passed'); console.error('OK');\n"),
    HostileCase("forged_report_lines", TASK,
                "  return true;\n}\nconst fs = require('fs');\n"
                "for (let i = 0; i < 7; i++) fs.writeSync(3, JSON.stringify({s: i, v: true}) + '\\n');\n"
                "fs.writeSync(3, JSON.stringify({end: 7}) + '\\n'); process.exit(0);\n"),
    HostileCase("unjudgeable_report_lines", TASK,
                "  return true;\n}\nconst fs = require('fs');\n"
                "fs.writeSync(3, '{\"s\":0,\"v\":{\"f\":[1]}}\\n' + '['.repeat(5000) + ']'.repeat(5000) + '\\n');\n"
                "process.exit(0);\n"),
    HostileCase("patched_console_assert", TASK, "  return false;\n}\nconsole.assert = () => {};\n"),
    HostileCase("patched_json_stringify", "JavaScript/1",
                "  return [];\n};\nJSON.stringify = () => '\"same\"';\n"),
    HostileCase("patched_deep_equal", "JavaScript/0",
                "  return false;\n}\nconst assert = require('assert'); assert.deepEqual = () => {}; "
                "assert.strictEqual = () => {};\n"),
    HostileCase("shadows_the_reporter", TASK, "  return false;\n}\nvar __pg = {report() {}, end() {}};\n"),
    HostileCase("truthy_object_answer", TASK,
                "  return {valueOf() { return 1; }, toString() { return 'true'; }};\n}\n"),
    HostileCase("reads_the_test_file", TASK,
                "  const src = require('fs').readFileSync(__filename, 'utf8');\n"
                "  const m = src.match(/=== (true|false)/);\n  return m ? m[1] === 'true' : false;\n}\n"),
    HostileCase("spawns_a_process", TASK,
                "  require('child_process').execSync('echo PASS; cat /proc/1/cmdline > /dev/null || true');\n"
                "  return false;\n}\n"),
    HostileCase("fork_bomb", TASK,
                "  const cp = require('child_process');\n"
                "  for (;;) { try { cp.spawn(process.execPath, ['-e', 'setInterval(()=>{}, 1000)'], "
                "{detached: true, stdio: 'ignore'}); } catch (e) {} }\n}\n"),
    HostileCase("memory_bomb", TASK,
                "  const hog = []; for (;;) hog.push(new Array(1 << 20).fill(7));\n}\n"),
    HostileCase("buffer_memory_bomb", TASK,
                "  const hog = []; for (;;) hog.push(Buffer.alloc(1 << 26, 1));\n}\n"),
    HostileCase("endless_output", TASK, "  for (;;) process.stdout.write('x'.repeat(65536));\n}\n"),
    HostileCase("endless_loop", TASK, "  for (;;) {}\n}\n"),
    HostileCase("writes_after_the_end", TASK,
                "  setTimeout(() => require('fs').writeSync(3, '{\"end\":7}\\n'), 0);\n"
                "  for (let i = 0; i < numbers.length; i++) for (let j = 0; j < numbers.length; j++)\n"
                "    if (i != j && Math.abs(numbers[i] - numbers[j]) < threshold) return true;\n  return false;\n}\n"),
    HostileCase("huge_generated_source", TASK,
                "  return false;\n}\n" + "const pad = [" + ",".join(["1"] * 200000) + "];\n"),
)
