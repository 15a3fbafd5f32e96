"""Where a run of tasks in other languages leaves the Python path: its runner, and what it skips.

The grading loop, the record, the self-check and the re-checks are the engine's own; only the
runner differs (core/languages/runner.py: language containers, the harness split outside the
candidate's process). The static security scan reads Python programs and is not run on them.
"""

from __future__ import annotations

from passgate.core.languages.runner import LanguageRunner, language_images
from passgate.core.manifest import Manifest, uses_languages


def is_language_run(manifest: Manifest) -> bool:
    return uses_languages(manifest)


def make_language_runner(manifest: Manifest, run_id: str, base_limits: dict) -> LanguageRunner:
    """The run's language runner: one image per language the frozen manifest pins."""
    ex = manifest.execution
    images = language_images(ex.language_images, ex.language_images)
    return LanguageRunner(images=images, runtime=ex.runtime, limits=base_limits,
                          compile_cpu_s=ex.limits.compile_cpu_s, run_label=run_id)
