"""Turn references: the rollback and keep phrase grammar, written and read in one place.

Everything that writes a turn that refers back (the Retrieval pane's menus, the
transaction builder's drafts, the simulated users) uses :func:`rollback_phrase`,
:func:`keep_phrase` and :func:`phrase_turn`; everything that reads one uses
:func:`parse_turn_text`. A test checks ``parse_turn_text(phrase_turn(x)) == x`` for every
turn reference and facet, so the two halves cannot drift apart.

Reading: recognise rollback and combination in typed turn text (FashionMT-style templates).

A *rollback* makes an earlier turn's image the reference again ("go back to turn 2",
"I still prefer the item from the second turn, and …", "Compared to this one I prefer the
one in the first turn …", "I would rather choose the third one …"). A *combination*
keeps an attribute of an earlier turn ("keep the colour of turn 1 and the neckline of the
second turn"). What remains after the reference phrases is the modification text.

Only explicit turn references count: "I prefer blue" or "the second button" are not
rollbacks, so ordinary captions are never misread.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

ORDINALS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5,
    "sixth": 6, "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10,
    "1st": 1, "2nd": 2, "3rd": 3, "4th": 4, "5th": 5, "6th": 6, "7th": 7, "8th": 8,
    "9th": 9, "10th": 10, "last": -1, "previous": -1,
}
# Words people use for a facet in "keep the … of turn 1", and the facet each names.
FACET_WORDS = {
    "color": "color", "colour": "color", "shade": "color",
    "pattern": "pattern", "print": "pattern", "texture": "pattern",
    "sleeve": "sleeve", "sleeves": "sleeve",
    "neckline": "neckline", "neck": "neckline", "collar": "neckline",
    "length": "length", "hem": "length",
    "fit": "fit", "cut": "fit", "silhouette": "fit",
    "graphic": "graphic", "logo": "graphic", "text": "graphic",
}
FACETS: tuple[str, ...] = tuple(sorted(set(FACET_WORDS.values())))
# How a facet is written in a keep phrase (the word a shopper would use).
FACET_NOUNS = {"color": "colour", "sleeve": "sleeves"}
# Ordinal words the phrases use (1 … 10); later turns are written "turn 11".
ORDINAL_WORDS = {n: w for w, n in ORDINALS.items() if w.isalpha() and n > 0}
_ORDINAL = r"(?:" + "|".join(sorted(map(re.escape, ORDINALS), key=len, reverse=True)) + r")"
# "turn 2", "the second turn", "the 2nd round", "step 3"
_TURN_REF = (
    rf"(?:(?:turn|round|step)\s+(?P<num>\d+)|(?:the\s+)?(?P<ord>{_ORDINAL})\s+(?:turn|round|step|one|item|image))"
)

_ROLLBACK_PATTERNS = [
    rf"\bgo(?:ing)?\s+back\s+to\s+{_TURN_REF}",
    rf"\bback\s+to\s+{_TURN_REF}",
    rf"\bcompared\s+to\s+this\s+one,?\s+i\s+prefer\s+the\s+(?:item|one|image)\s+(?:from|in|of)\s+{_TURN_REF}",
    rf"\bi\s+(?:still\s+)?prefer\s+the\s+(?:item|one|image|dress|shirt|top)\s+(?:from|in|of)\s+{_TURN_REF}",
    rf"\bi\s+would\s+rather\s+(?:choose|have|take)\s+{_TURN_REF}",
    rf"\bi\s+would\s+rather\s+(?:choose|have|take)\s+the\s+(?:item|one|image)\s+(?:from|in|of)\s+{_TURN_REF}",
]
_ROLLBACK = [re.compile(p, re.IGNORECASE) for p in _ROLLBACK_PATTERNS]

_KEEP_CLAUSE = re.compile(
    rf"\b(?:keep|keeping|retain|with)\s+the\s+(?P<attr>[a-z][a-z\- ]{{1,30}}?)\s+(?:of|in|from)\s+{_TURN_REF}",
    re.IGNORECASE,
)
_AND_CLAUSE = re.compile(
    rf"^\s*(?:,\s*)?and\s+the\s+(?P<attr>[a-z][a-z\- ]{{1,30}}?)\s+(?:of|in|from)\s+{_TURN_REF}",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Keep:
    """Keep ``attribute`` as it was in turn ``turn`` (1-based; -1 = the previous turn)."""

    attribute: str
    turn: int


@dataclass(frozen=True)
class ParsedTurn:
    text: str
    rollback_to: int | None = None
    keeps: tuple[Keep, ...] = field(default_factory=tuple)

    @property
    def kind(self) -> str:
        if self.keeps:
            return "combination"
        return "rollback" if self.rollback_to is not None else "composed"


def _turn_number(match: re.Match[str]) -> int:
    if match.group("num"):
        return int(match.group("num"))
    return ORDINALS[match.group("ord").lower()]


def parse_turn_text(text: str) -> ParsedTurn:
    """Split a typed turn into rollback target, kept attributes and the remaining request."""
    rest = text
    rollback: int | None = None
    for pattern in _ROLLBACK:
        match = pattern.search(rest)
        if match:
            rollback = _turn_number(match)
            rest = rest[: match.start()] + rest[match.end():]
            break
    keeps: list[Keep] = []
    match = _KEEP_CLAUSE.search(rest)
    while match:
        keeps.append(Keep(_normalise_attribute(match.group("attr")), _turn_number(match)))
        tail = rest[match.end():]
        rest = rest[: match.start()]
        follow = _AND_CLAUSE.match(tail)
        while follow:
            keeps.append(Keep(_normalise_attribute(follow.group("attr")), _turn_number(follow)))
            tail = tail[follow.end():]
            follow = _AND_CLAUSE.match(tail)
        rest = rest + tail
        match = _KEEP_CLAUSE.search(rest)
    return ParsedTurn(text=_tidy(rest), rollback_to=rollback, keeps=tuple(keeps))


# Looser mentions of an earlier turn, which a rater counts as Historical Awareness though
# they name no turn the session could go back to ("like the original one", "as before",
# "the 12th item"): the quality indicators' *refers to earlier turns*.
_EARLIER = rf"(?:{_ORDINAL}|\d+(?:st|nd|rd|th)|original|earlier|initial)"
_MENTION_PATTERNS = [
    rf"\b{_EARLIER}\s+(?:turn|round|step|one|item|image|dress|shirt|top)s?\b",
    r"\b(?:turn|round|step)\s+\d+\b",
    r"\b(?:still|rather)\s+prefer\b",
    r"\b(?:go(?:ing)?|went)\s+back\b",
    r"\bkeep(?:ing)?\s+the\s+[a-z\- ]{1,30}?\s+(?:of|from|in)\s+the\b",
    r"\b(?:as|like)\s+before\b",
]
_MENTION = re.compile("|".join(f"(?:{p})" for p in _MENTION_PATTERNS), re.IGNORECASE)


def mentions_earlier_turn(text: str) -> bool:
    """Does the text point back at an earlier turn: a rollback or keep this grammar reads,
    or a looser mention ("like the original one", "as before")?"""
    parsed = parse_turn_text(text)
    return parsed.rollback_to is not None or bool(parsed.keeps) or bool(_MENTION.search(text))


def resolve_turn(reference: int, current_turn: int) -> int:
    """Turn number to 1-based index; -1 ("previous", "last") means the turn before this one."""
    return current_turn - 1 if reference == -1 else reference


def _normalise_attribute(words: str) -> str:
    """The facet a word names ("colour" → "color", "sleeves" → "sleeve"), else the words."""
    words = " ".join(words.strip().lower().split())
    return FACET_WORDS.get(words, words)


def _tidy(text: str) -> str:
    text = re.sub(r"\s+", " ", text)
    text = re.sub(r"\s+([,.;])", r"\1", text)
    # Separators and connectives left where phrases were removed (", and, and is red").
    text = re.sub(r"^(?:[\s,;.]|\b(?:and|but)\b)+", "", text, flags=re.IGNORECASE)
    text = re.sub(r"^[\s,;.]+|[\s,;]+$", "", text)
    return text.strip()


# -- writing -------------------------------------------------------------------------


def turn_reference(turn: int) -> str:
    """How a phrase names turn ``turn`` (1-based; -1 = the previous turn)."""
    if turn == -1:
        return "the previous turn"
    if turn < 1:
        raise ValueError(f"Turn numbers start at 1 (or -1 for the previous turn), got {turn}.")
    word = ORDINAL_WORDS.get(turn)
    return f"the {word} turn" if word else f"turn {turn}"


def facet_noun(facet: str) -> str:
    """The word a keep phrase uses for ``facet`` ("color" → "colour")."""
    return FACET_NOUNS.get(facet, facet)


def rollback_phrase(turn: int) -> str:
    """"I still prefer the item from the second turn" (FashionMT's rollback template)."""
    return f"I still prefer the item from {turn_reference(turn)}"


def keep_phrase(keeps: tuple[Keep, ...] | list[Keep]) -> str:
    """"keep the colour of the first turn and the sleeves of the second turn"."""
    if not keeps:
        raise ValueError("A keep phrase needs at least one kept facet.")
    parts = [f"the {facet_noun(k.attribute)} of {turn_reference(k.turn)}" for k in keeps]
    return "keep " + " and ".join(parts)


def phrase_turn(turn: ParsedTurn) -> str:
    """The text of a turn: rollback, then kept facets, then the modification text.

    ``parse_turn_text(phrase_turn(t)) == t`` for every rollback, facet and turn number.
    """
    parts = []
    if turn.rollback_to is not None:
        parts.append(rollback_phrase(turn.rollback_to))
    if turn.keeps:
        parts.append(keep_phrase(turn.keeps))
    if turn.text:
        parts.append(turn.text)
    return ", and ".join(parts)
