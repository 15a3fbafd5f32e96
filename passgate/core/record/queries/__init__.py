"""Named reads of the record: every SELECT the engine, the console and the command line run.

Callers outside `core/record/` ask these functions for typed rows; none of them writes SQL.
"""
