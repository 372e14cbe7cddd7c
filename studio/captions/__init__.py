"""Relative captions: writing with autosave and undo, review, queues and automatic flags."""
