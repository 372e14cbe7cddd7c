"""Fetching a dataset's pictures from its published URL lists (Fashion IQ's asin2url)."""
