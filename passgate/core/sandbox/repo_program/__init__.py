"""The repository grader sent into a sandbox container, each file a module of the package `pgw`
(docker_runner.BOOT imports `pgw.worker` and calls its `main()`): worker (the host protocol), grader
(one patch: unpack, apply, build, test), apply (strict unified-diff application), suites (the build
and the pytest runs), candidate (work done as the candidate uid), tree (in-memory trees) and
settings (the boot line's config). plugin.py travels in each job instead: the pytest plugin that
streams each test's outcome to the grader. Standard library only: the image holds nothing else."""
