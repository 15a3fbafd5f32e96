"""The record: the SQLite store (append-only, hash-chained) and the redaction applied before anything is written."""
