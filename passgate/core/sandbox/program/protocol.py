"""Words the grader and the engine share, defined once. Standard library only.

PROTOCOL is the grading protocol the worker program speaks, recorded on every run (verdicts can
change between versions): 1 plain data only; 2 the test in the grader, calling the candidate over a
pipe; 3 the test in the candidate's process, split so the expected values and the decisions stay
with the grader.
"""

PROTOCOL = 3

# tamper tripwires (audit.py, channel.py): the words of a result's `tamper` entries ("kind: detail")
TAMPER_KINDS = ("settrace", "setprofile", "getframe", "current_frames", "gc_objects", "code_replace", "ctypes",
                "channel_write", "proc_mem", "other_process_files", "exit_in_test")

# how a suite's assertions were decided (a result's `integrity`)
INTEGRITY_KEYS = ("outside", "visible", "in_process", "control")
# an EvalPlus task's canonical solution on all its inputs (trusted code), when a worker loads the task;
# the controller waits that long and a minute more for the load
REFERENCE_BUDGET_S = 600.0
