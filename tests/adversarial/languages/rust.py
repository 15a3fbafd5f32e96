"""Hostile Rust candidates: each must fail, none may end as an evaluator error.

Task Rust/0 (`fn has_close_elements(numbers:Vec<f32>, threshold: f32) -> bool{`)."""

from .corpus import HostileCase

TASK = "Rust/0"
FALSE = "    return false;\n}\n"

CASES = (
    HostileCase("exit0_inside_function", TASK, "    std::process::exit(0);\n}\n"),
    HostileCase("exit0_from_global_constructor", TASK,
                FALSE + "#[used]\n#[link_section = \".init_array\"]\nstatic EARLY: extern \"C\" fn() = {\n"
                        "    extern \"C\" fn early() { std::process::exit(0); }\n    early\n};\n"),
    HostileCase("shadows_assert_eq", TASK,
                FALSE + "#[allow(unused_macros)]\nmacro_rules! assert_eq { ($($t:tt)*) => {}; }\n"),
    HostileCase("fake_test_output", TASK,
                "    println!(\"test result: ok. 1 passed; 0 failed\");\n    return false;\n}\n"),
    HostileCase("forged_report_lines", TASK,
                "    use std::io::Write; use std::os::unix::io::FromRawFd;\n"
                "    let mut f = unsafe { std::fs::File::from_raw_fd(3) };\n"
                "    for i in 0..7 { let _ = write!(f, \"{{\\\"s\\\":{},\\\"v\\\":true}}\\n\", i); }\n"
                "    let _ = write!(f, \"{{\\\"end\\\":7}}\\n\"); std::process::exit(0);\n}\n"),
    HostileCase("reads_the_test_file", TASK,
                "    let t = std::fs::read_to_string(\"main.rs\").unwrap_or_default();\n"
                "    t.contains(\"== true\")\n}\n"),
    HostileCase("spawns_a_process", TASK,
                "    let _ = std::process::Command::new(\"sh\").arg(\"-c\").arg(\"echo PASS\").status();\n    false\n}\n"),
    HostileCase("fork_bomb", TASK,
                "    loop { let _ = std::process::Command::new(\"sleep\").arg(\"100\").spawn(); }\n}\n"),
    HostileCase("memory_bomb", TASK,
                "    let mut hog: Vec<Vec<u8>> = Vec::new();\n    loop { hog.push(vec![1u8; 1 << 26]); }\n}\n"),
    HostileCase("endless_output", TASK, "    loop { println!(\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"); }\n}\n"),
    HostileCase("endless_loop", TASK, "    loop {}\n}\n"),
    HostileCase("macro_recursion_bomb", TASK,
                FALSE + "macro_rules! bomb { ($($t:tt)*) => { bomb!($($t)* $($t)*); }; }\nfn blow() { bomb!(x); }\n"),
    HostileCase("const_evaluation_bomb", TASK,
                FALSE + "const SPIN: u64 = { let mut i = 0u64; while i < u64::MAX { i += 1; } i };\n"
                        "#[allow(dead_code)] static KEEP: u64 = SPIN;\n"),
)
