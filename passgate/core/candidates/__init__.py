"""Candidates: the pinned pipeline inputs, samples files and their formats, generation from an endpoint, prompts."""
