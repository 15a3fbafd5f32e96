"""Was it the evaluator? After a sandbox is lost, a known-good candidate runs in a fresh one.

`infra_error` leaves the score, so it is only for failures of the evaluator that are shown: when
the known-good probe passes in a fresh sandbox, the evaluator works and the candidate that took
its sandbox down is answerable for it (twice: `sandbox_crash`, counted like any failure).
"""

from __future__ import annotations

from typing import Any, Callable

from passgate.core.sandbox.runner import EvalRequest, TaskSpec, Worker, WorkerLost

KNOWN_GOOD_TASK = TaskSpec.build("passgate/known-good", protected="assert add(1, 2) == 3\nassert add(-1, 1) == 0\n",
                                 public="assert add(2, 2) == 4\n")
KNOWN_GOOD = "def add(a, b):\n    return a + b\n"
PROBE_PATIENCE_S = 60.0


def in_fresh_sandbox(fresh_worker: Callable[[], Worker], ask: Callable[[Worker], Any], what: str):
    """`ask(worker)` in a sandbox started for it and removed after it: (the answer, "") or (None, why
    there is none). `what` names the probe in the reason."""
    try:
        worker = fresh_worker()
    except Exception as exc:  # noqa: BLE001 - whatever stops a fresh sandbox, the evaluator is not sound
        return None, f"no fresh sandbox started for {what} ({type(exc).__name__}: {str(exc)[:200]})"
    try:
        return ask(worker), ""
    except WorkerLost as exc:
        return None, f"{what} lost its fresh sandbox too ({str(exc)[:200]})"
    except Exception as exc:  # noqa: BLE001 - a probe that cannot even be asked proves nothing sound
        named = what.removeprefix("a ").removeprefix("the ")
        return None, f"no {named} could run ({type(exc).__name__}: {str(exc)[:200]})"
    finally:
        worker.close()


def evaluator_sound(fresh_worker: Callable[[], Worker], lost: EvalRequest) -> tuple[bool, str]:
    """(True, why) when a known-good candidate passes in a fresh sandbox (`fresh_worker()` starts
    one) of the kind `lost` ran in: the Python known-good, or the worker's own for its language."""
    def ask(worker: Worker):
        request = worker.known_good(lost) or EvalRequest(KNOWN_GOOD_TASK, KNOWN_GOOD, lost.limits, timeout_s=120)
        return worker.evaluate(request)
    res, why = in_fresh_sandbox(fresh_worker, ask, "a known-good probe")
    if res is None:
        return False, why
    if res.passed:
        return True, "a known-good probe then passed in a fresh sandbox"
    failed = res.protected
    return False, f"a known-good probe failed in a fresh sandbox ({failed.failure_class}: {failed.detail[:200]})"
