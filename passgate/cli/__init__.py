"""The `passgate` command line: the only place besides the console that imports both the engine and the UI."""
