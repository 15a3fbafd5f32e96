"""Scores: pass@k, intervals, the report and its sections, comparisons, what-if."""
