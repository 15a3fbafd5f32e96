"""The in-process languages' own rules on a program's output (Perl's ERROR, C#'s trace listener,
Racket's stderr) apply only to output the supervisor kept whole: a truncated stream fails closed."""

from passgate.core.languages.grading import judge
from passgate.core.languages.scripting import CSHARP, PERL, RACKET, RUBY
from passgate.core.languages.spec import Integrity, SplitTest

SPLIT = SplitTest(Integrity.IN_PROCESS, "harness", (), "in-process")
CUT = "exceeded what is kept, so the dataset's rule on its output could not be applied"


def reply(stdout="", stderr="", *, status=0, stdout_bytes=None, stderr_bytes=None, flags=True, head=""):
    run = {"name": "run", "status": status, "signal": None, "cpu_s": 0.1, "wall_s": 0.2, "timed_out": None,
           "output_exceeded": False, "report_bytes": 0, "maxrss_kb": 1000, "stdout": stdout, "stderr": stderr,
           "stderr_head": head}
    out_n = len(stdout.encode()) if stdout_bytes is None else stdout_bytes
    err_n = len(stderr.encode()) if stderr_bytes is None else stderr_bytes
    run["out_bytes"] = out_n + err_n
    if flags:
        run.update(stdout_bytes=out_n, stderr_bytes=err_n, stdout_truncated=out_n > len(stdout.encode()),
                   stderr_truncated=err_n > len(stderr.encode()))
    return {"steps": [run], "report_b64": ""}


def test_rules_that_read_output_say_which_streams():
    assert PERL.in_process_passes.reads == ("stdout", "stderr")
    assert CSHARP.in_process_passes.reads == ("stderr",) and RACKET.in_process_passes.reads == ("stderr",)
    assert RUBY.in_process_passes is None


def test_output_kept_whole_is_judged_by_the_rule():
    assert judge(SPLIT, reply("ok!ok!"), PERL.in_process_passes).status == "passed"
    failed = judge(SPLIT, reply("ok!\nERROR\n"), PERL.in_process_passes)
    assert failed.status == "failed" and "dataset's rule fails it" in failed.detail
    assert judge(SPLIT, reply(stderr="FAILURE\nname: check-equal?\n"), RACKET.in_process_passes).status == "failed"
    assert judge(SPLIT, reply(stderr="---- DefaultTraceListener.Fail\n"), CSHARP.in_process_passes).status == "failed"


def test_perl_whose_error_was_pushed_out_of_the_kept_stdout_fails_closed():
    result = judge(SPLIT, reply("x" * 4096, stdout_bytes=10_000), PERL.in_process_passes)
    assert result.status == "failed" and result.failure_class in ("runtime_error", "wrong_answer")
    assert CUT in result.detail and "stdout (10000 bytes)" in result.detail


def test_csharp_whose_trace_failure_was_pushed_out_of_the_kept_stderr_fails_closed():
    result = judge(SPLIT, reply(stderr="noise\n" * 100, stderr_bytes=50_000, head="noise\n"), CSHARP.in_process_passes)
    assert result.status == "failed" and CUT in result.detail and "stderr (50000 bytes)" in result.detail


def test_a_truncated_stream_the_rule_does_not_read_does_not_matter():
    assert judge(SPLIT, reply("x" * 4096, stdout_bytes=10_000), CSHARP.in_process_passes).status == "passed"
    assert judge(SPLIT, reply("x" * 4096, stdout_bytes=10_000), RUBY.in_process_passes).status == "passed"


def test_a_reply_without_the_flags_is_judged_by_its_byte_count():
    result = judge(SPLIT, reply("x" * 4096, stdout_bytes=10_000, flags=False), PERL.in_process_passes)
    assert result.status == "failed" and CUT in result.detail
    assert judge(SPLIT, reply("ok!", flags=False), PERL.in_process_passes).status == "passed"


def test_a_plain_callable_rule_is_taken_to_read_both_streams():
    def rule(status, out, err):
        return status == 0
    assert judge(SPLIT, reply(stderr="e", stderr_bytes=99_999), rule).status == "failed"
    assert judge(SPLIT, reply("ok"), rule).status == "passed"
