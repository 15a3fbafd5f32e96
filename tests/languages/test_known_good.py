"""After a language candidate takes its sandbox down, the known-good probe runs in a fresh sandbox
of the same language's image and passes there, so the loss is the candidate's (`sandbox_crash`,
counted in pass@k) rather than `infra_error`, which leaves the score."""

from __future__ import annotations

import pytest

from passgate.core.languages.known_good import ADD_TASK, known_good_request
from passgate.core.languages.registry import spec_for
from passgate.core.languages.runner import LanguageImage, LanguageRunner
from passgate.core.run.soundness import evaluator_sound
from passgate.core.sandbox.runner import EvalRequest, limits_for
from tests.conftest import sandbox_limits
from tests.languages.candidates import ADD, add_wrong
from tests.languages.images import IN_PROCESS, language_image

pytestmark = pytest.mark.docker

LIMITS = sandbox_limits(cpu_s=3.0, wall_factor=3.0, memory_mb=1024, container_memory_mb=2048, scratch_mb=512,
                        nproc=32)


def test_every_graded_language_has_a_known_good_candidate():
    from passgate.core.languages.registry import SPECS
    assert set(ADD_TASK) == set(SPECS)
    assert all(ADD_TASK[lang][2] == ADD[lang] for lang in ADD_TASK)     # the answer add_wrong subtracts from


@pytest.mark.parametrize("language", sorted(set(ADD_TASK) - set(IN_PROCESS)) + sorted(IN_PROCESS))
def test_the_known_good_probe_passes_in_a_fresh_sandbox_of_the_language(language, docker_client):
    digest = language_image(docker_client, language)
    runner = LanguageRunner(images=[LanguageImage(language, spec_for(language).toolchain.tag, digest)],
                            runtime="runsc", limits=LIMITS, compile_cpu_s=30.0, run_label="pytest-known-good",
                            client=docker_client)
    try:
        runner.check()
        limits = limits_for(LIMITS, 3.0)
        # the request whose sandbox was lost: any task of the language (here the probe's own)
        lost = known_good_request(language, limits, 120.0)
        sound, why = evaluator_sound(runner.new_worker, lost)
        assert sound, why
        worker = runner.new_worker()
        try:
            wrong = EvalRequest(lost.task, add_wrong(language), limits, 120.0)
            assert not worker.evaluate(wrong).passed        # the probe can fail: it checks the answer
        finally:
            worker.close()
    finally:
        runner.close()


def test_a_probe_for_a_task_the_worker_cannot_read_fails_and_never_raises(docker_client):
    digest = language_image(docker_client, "js")
    runner = LanguageRunner(images=[LanguageImage("js", spec_for("js").toolchain.tag, digest)], runtime="runsc",
                            limits=LIMITS, compile_cpu_s=30.0, run_label="pytest-known-good", client=docker_client)
    try:
        from passgate.core.sandbox.runner import TaskSpec
        lost = EvalRequest(TaskSpec.build("js/unreadable", "assert(1)", "", "not a language header"), "",
                           limits_for(LIMITS, 3.0), 30.0)
        sound, why = evaluator_sound(runner.new_worker, lost)
        assert not sound and "no known-good probe could run" in why
    finally:
        runner.close()
