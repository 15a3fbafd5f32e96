"""Exports of a report: JSON, Markdown, JUnit and SVG."""
