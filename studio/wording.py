"""Counts written as people read them: "1 caption", "18 ratings", "no drafts".

One helper for every message, so no view writes "(s)", "1 drafts" or "18 rating" again;
``tests/unit/test_wording.py`` greps the views for those patterns.
"""

from __future__ import annotations

from studio.language import lexicon


def plural(noun: str, n: int) -> str:
    """``noun`` as it goes with ``n``: "caption" for 1, "captions" otherwise."""
    if n == 1:
        return noun
    head, _, last = noun.rpartition(" ")
    word = lexicon.plural(last)
    return f"{head} {word}" if head else word


def count(n: int, noun: str) -> str:
    """"1 caption", "12,032 captions", "0 drafts" (thousands separated)."""
    return f"{n:,} {plural(noun, n)}"
