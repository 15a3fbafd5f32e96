"""The repository grader sent into a sandbox container: apply.py (strict unified-diff application),
grader.py (unpack, apply, build, run the tests) and plugin.py (the pytest plugin that streams each
test's outcome to the grader). Standard library only: the image holds nothing else for it."""
