"""Serialiser runtimes: source text in each language, shipped into the sandbox with the harness."""
