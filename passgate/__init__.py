"""passgate: a release-gate console for code-generation evaluation.

`passgate.core` is the engine, `passgate.tui` the Textual console, `passgate.cli` the command
line, `passgate.policies` the boundary policies; each folder is named as it is imported.
"""
