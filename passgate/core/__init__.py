"""passgate engine: no UI imports here."""
