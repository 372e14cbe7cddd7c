"""Automatic caption checks a reviewer sees, each with the reason in plain words.

They are heuristics meant to direct attention, not verdicts: a flagged caption may be
fine. ``text_flags`` is pure (text in, flags out); ``caption_flags`` gathers the pair's
other captions and product titles from the project.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from studio.captions.records import Caption
from studio.store import Project

FlagKind = Literal["empty", "short", "reference_only", "colour_conflict", "duplicate"]

COLOURS = {
    "beige",
    "black",
    "blue",
    "brown",
    "burgundy",
    "coral",
    "cream",
    "gold",
    "green",
    "grey",
    "ivory",
    "khaki",
    "lavender",
    "maroon",
    "navy",
    "olive",
    "orange",
    "peach",
    "pink",
    "purple",
    "red",
    "silver",
    "tan",
    "teal",
    "turquoise",
    "violet",
    "white",
    "yellow",
}
SYNONYMS = {"gray": "grey", "colour": "color"}
# Words after which a colour is the one *not* wanted ("blue instead of red").
NEGATIONS = {
    "not",
    "no",
    "without",
    "less",
    "instead",
    "than",
    "rather",
    "fewer",
    "except",
    "minus",
    "lose",
    "remove",
    "removed",
}
# Words that show a caption compares rather than describes.
COMPARISONS = NEGATIONS | {
    "more",
    "longer",
    "shorter",
    "darker",
    "lighter",
    "brighter",
    "bigger",
    "smaller",
    "looser",
    "tighter",
    "different",
    "change",
    "changed",
    "add",
    "added",
    "also",
    "but",
    "same",
}
STOPWORDS = {
    "a",
    "an",
    "and",
    "the",
    "is",
    "are",
    "it",
    "its",
    "with",
    "of",
    "in",
    "on",
    "has",
    "have",
    "to",
    "for",
    "this",
    "that",
    "one",
    "as",
    "at",
    "by",
    "or",
    "be",
    "s",
    "women",
    "womens",
    "men",
    "mens",
}
MIN_WORDS = 2
MIN_LETTERS = 4


@dataclass(frozen=True)
class Flag:
    kind: FlagKind
    reason: str


def words(text: str) -> list[str]:
    return [SYNONYMS.get(w, w) for w in re.findall(r"[a-z0-9]+", text.lower())]


def normalise(text: str) -> str:
    return " ".join(words(text))


def colours(text: str) -> set[str]:
    """Colours the text asks for, leaving out those it negates ("not red", "than blue")."""
    tokens = words(text)
    wanted = set()
    for index, token in enumerate(tokens):
        if token in COLOURS and not NEGATIONS & set(tokens[max(0, index - 2) : index]):
            wanted.add(token)
    return wanted


def text_flags(
    text: str, others: Sequence[str] = (), reference_title: str = "", target_title: str = ""
) -> list[Flag]:
    """Flags of one caption given the pair's other captions and the two product titles."""
    tokens = words(text)
    if not tokens:
        return [Flag("empty", "The caption is empty.")]
    flags = []
    letters = sum(len(t) for t in tokens)
    if len(tokens) < MIN_WORDS or letters < MIN_LETTERS:
        flags.append(
            Flag(
                "short",
                f"Very short ({len(tokens)} word"
                f"{'s' if len(tokens) != 1 else ''}): say what differs.",
            )
        )
    reference_only = _describes_reference(tokens, reference_title, target_title)
    if reference_only:
        flags.append(
            Flag(
                "reference_only",
                "Describes only the provided image ("
                + ", ".join(f"'{w}'" for w in reference_only)
                + ") and nothing of the wanted one.",
            )
        )
    mine = colours(text)
    for other in others:
        theirs = colours(other)
        if mine and theirs and not mine & theirs:
            flags.append(
                Flag(
                    "colour_conflict",
                    f"Colour contradicts the other caption: "
                    f"{'/'.join(sorted(mine))} here, {'/'.join(sorted(theirs))} in "
                    f"\u201c{other}\u201d.",
                )
            )
            break
    if any(normalise(other) == normalise(text) for other in others):
        flags.append(Flag("duplicate", "Same text as another caption of this pair."))
    return flags


def _describes_reference(tokens: list[str], reference_title: str, target_title: str) -> list[str]:
    """Caption words found only in the reference's title, if it names nothing of the target."""
    if not reference_title or not target_title or COMPARISONS & set(tokens):
        return []
    reference = set(words(reference_title)) - STOPWORDS
    target = set(words(target_title)) - STOPWORDS
    content = [t for t in tokens if t not in STOPWORDS]
    only_reference = [t for t in content if t in reference - target]
    if only_reference and not any(t in target - reference for t in content):
        return sorted(set(only_reference))
    return []


def caption_flags(project: Project, caption: Caption) -> list[Flag]:
    """Flags of a stored caption: its pair's other captions, titles, the author's history."""
    rows = project.db.execute(
        "SELECT r.title, t.title FROM pairs p JOIN images r ON r.id = p.reference_id "
        "LEFT JOIN images t ON t.id = p.target_id WHERE p.id = ?",
        [caption.pair_id],
    ).fetchone()
    reference_title, target_title = (rows[0] or "", rows[1] or "") if rows else ("", "")
    others = [
        row[0]
        for row in project.db.execute(
            "SELECT text FROM captions WHERE pair_id = ? AND id != ? AND status != 'rejected'",
            [caption.pair_id, caption.id],
        )
    ]
    flags = text_flags(caption.text, others, reference_title, target_title)
    if caption.author and len(words(caption.text)) >= 3:
        copies = project.db.execute(
            "SELECT count(*) FROM captions c JOIN people a ON a.id = c.author_id "
            "WHERE a.name = ? AND c.text = ? AND c.pair_id != ?",
            [caption.author, caption.text, caption.pair_id],
        ).fetchone()[0]
        if copies:
            flags.append(
                Flag(
                    "duplicate",
                    f"{caption.author} wrote the same text for "
                    f"{copies} other pair{'s' if copies != 1 else ''}.",
                )
            )
    return flags
