"""Where a run of tasks in other languages leaves the Python path: its runner, and what it skips.

The grading loop, the record, the self-check and the re-checks are the engine's own; only the
runner differs (core/languages/runner.py: language containers, the harness split outside the
candidate's process). The static security scan reads Python programs and is not run on them.
"""

from __future__ import annotations

from passgate.core.languages.runner import LanguageRunner, language_images
from passgate.core.manifest import Manifest

LANGUAGE_SCRATCH_MB = 512       # the scratch tmpfs of a language container, at least


def make_language_runner(manifest: Manifest, run_id: str, base_limits: dict, *,
                         ray_address: str | None = None) -> LanguageRunner:
    """The run's language runner: one image per language the frozen manifest pins."""
    ex = manifest.execution
    if ray_address or ex.ray_address:
        from passgate.core.errors import ConfigError
        raise ConfigError("tasks in other languages run on the local Docker engine only; drop --ray "
                          "(or execution.ray_address) for this manifest", field="execution.ray_address")
    images = language_images(ex.language_images, ex.language_images)
    # compilers write their output to the scratch: a Rust test binary, Go's build cache
    limits = {**base_limits, "scratch_mb": max(int(base_limits["scratch_mb"]), LANGUAGE_SCRATCH_MB)}
    return LanguageRunner(images=images, runtime=ex.runtime, limits=limits,
                          compile_cpu_s=ex.limits.compile_cpu_s, run_label=run_id)


def manifest_languages(manifest: Manifest, manifest_path) -> list[str]:
    """The languages a manifest's task sets use (MultiPL-E's read from its files), sorted."""
    from passgate.core import kinds
    from passgate.core.manifest import resolve_path
    from passgate.core.tasks.languages import language_of_set
    found = set()
    for spec in manifest.tasks.sets:
        if kinds.get(spec.kind).grader == "language":
            found.add(language_of_set(spec.kind, resolve_path(manifest_path, spec.path), spec.language))
    return sorted(found)


def setup_language_images(manifest: Manifest, manifest_path, *, client, mirror: str | None = None,
                          log=print) -> dict[str, str]:
    """Build the image of each language the manifest uses when it is absent (and only those); a
    built image that differs from the manifest's pin is an error. Returns language -> image id."""
    from passgate.core.errors import DriftError
    from passgate.core.languages.images import ensure_image
    from passgate.core.languages.registry import spec_for
    out = {}
    for language in manifest_languages(manifest, manifest_path):
        spec = spec_for(language)
        digest = ensure_image(client, spec.toolchain, mirror=mirror, workdir="/var/tmp", log=log)
        pinned = manifest.execution.language_images.get(language)
        if pinned and digest != pinned:
            raise DriftError(f"the {spec.title} image {spec.toolchain.tag} is {digest}, but the manifest pins {pinned}")
        log(f"{spec.title}: {spec.toolchain.tag} {digest}")
        out[language] = digest
    return out


def languages_with_images(client=None) -> list[tuple[str, str]]:
    """(key, title) of every language passgate grades whose image this engine holds: what a new run
    can use without building anything."""
    from passgate.core.languages.registry import SPECS
    from passgate.core.sandbox.docker_runner import docker_client
    client = client or docker_client(timeout=30)
    tags = {tag for image in client.images.list() for tag in image.tags}
    return [(name, spec.title) for name, spec in sorted(SPECS.items()) if spec.toolchain.tag in tags]
