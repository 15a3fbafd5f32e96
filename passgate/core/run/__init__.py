"""A run: the engine, grading sessions, dispatch to sandbox workers, the per-candidate decisions, reruns."""
