"""Draft modification texts from attribute differences, FashionMT's way.

An ordinary turn says what the target has that the reference lacks ("is blue with long
sleeves"); a *rollback* returns to an earlier turn's item ("I still prefer the item from
the second turn, and it is red"); a *combination* keeps one attribute of an earlier turn
("keep the colour of the first turn, and has a v-neck"). The turn-reference part of those
phrases comes from ``studio.language.turns``, the grammar the session engine
reads them with. These are drafts: an annotator accepts or edits every one before it
counts.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from studio.language.turns import Keep, ParsedTurn, phrase_turn

if TYPE_CHECKING:
    from studio.transactions.attribute_data import Difference

#: catalog slot → value → ("is" | "has", phrase). Unlisted values read "is <value>".
_CATALOG_PHRASES: dict[str, dict[str, tuple[str, str]]] = {
    "pattern": {
        "solid": ("is", "solid-coloured"),
        "stripes": ("has", "stripes"),
        "dots": ("has", "polka dots"),
        "floral": ("has", "a floral print"),
        "plaid": ("is", "plaid"),
    },
    "sleeve": {
        "sleeveless": ("is", "sleeveless"),
        "short": ("has", "short sleeves"),
        "long": ("has", "long sleeves"),
    },
    "neckline": {
        "crew": ("has", "a crew neck"),
        "v-neck": ("has", "a v-neck"),
        "scoop": ("has", "a scoop neck"),
        "collar": ("has", "a collar"),
    },
    "length": {
        "mini": ("is", "mini length"),
        "knee": ("is", "knee-length"),
        "midi": ("is", "midi length"),
        "maxi": ("is", "maxi length"),
        "cropped": ("is", "cropped"),
        "regular": ("is", "regular length"),
        "long": ("is", "longline"),
    },
    "fit": {
        "slim": ("is", "slim-fit"),
        "regular": ("is", "regular fit"),
        "loose": ("is", "loose"),
    },
    "graphic": {
        "none": ("has", "a plain front"),
        "graphic": ("has", "a graphic print"),
        "text": ("has", "a text print"),
    },
}

#: label types whose words read as parts an item has rather than what it is.
_HAS_TYPES = {"part", "fabric"}


def _clause(diff: Difference, types: dict[str, str]) -> tuple[str, str]:
    """("is" | "has" | "without", phrase) for one difference."""
    if diff.new is None:
        return "without", str(diff.old)
    table = _CATALOG_PHRASES.get(diff.slot, {})
    if diff.new in table:
        return table[diff.new]
    if types.get(diff.slot) in _HAS_TYPES:
        return "has", diff.new
    return "is", diff.new


def _join(parts: Sequence[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def describe(diffs: Sequence[Difference], types: dict[str, str] | None = None) -> str:
    """"is blue and loose with long sleeves and a v-neck", from what the target changes."""
    groups: dict[str, list[str]] = {"is": [], "has": [], "without": []}
    for diff in diffs:
        verb, phrase = _clause(diff, types or {})
        groups[verb].append(phrase)
    pieces: list[str] = []
    if groups["is"]:
        pieces.append("is " + _join(groups["is"]))
        if groups["has"]:
            pieces.append("with " + _join(groups["has"]))
    elif groups["has"]:
        pieces.append("has " + _join(groups["has"]))
    if groups["without"]:
        pieces.append(("but " if pieces else "") + "without " + _join(groups["without"]))
    return " ".join(pieces) if pieces else "looks the same"


def requests_of(diffs: Sequence[Difference], types: dict[str, str] | None = None) -> list[Any]:
    """The differences as the caption reader's requests: what a person would ask for
    (an added word: ``is`` its value; a removed one: ``not``). Words the reader does not
    know are left out: nobody can check them."""
    from studio.language.reader import Request, read_caption

    wanted: list[Request] = []
    unwanted: list[Request] = []
    for diff in diffs:
        if diff.new is None:
            unwanted += [Request(r.facet, "not", r.value) for r in read_caption(str(diff.old))
                         if r.op == "is"]
        else:
            wanted += [r for r in read_caption(_clause(diff, types or {})[1]) if r.op == "is"]
    # A value replaced by another is said as the new one ("is red", not "is red and not
    # white"): people name what was removed only when nothing took its place.
    named = {r.facet for r in wanted}
    return list(dict.fromkeys([*wanted, *(r for r in unwanted if r.facet not in named)]))


class Voice:
    """How drafts are worded: the learned captioner (people's own words) where it can say
    the differences, the catalog phrases above otherwise (or always, without one)."""

    def __init__(self, captioner: Any = None, seed: int = 0) -> None:
        self.captioner = captioner
        self.random = random.Random(f"voice:{seed}")

    def say(self, diffs: Sequence[Difference], types: dict[str, str] | None = None) -> str:
        requests = requests_of(diffs, types) if self.captioner is not None else []
        if requests:
            return str(self.captioner.say(requests, self.random))
        return describe(diffs, types)

    @classmethod
    def learned(cls, seed: int = 0) -> Voice:
        from studio.language.captioner import shipped_captioner

        return cls(shipped_captioner(), seed)


class PartialVoice(Voice):
    """The learned voice, saying only as many of the differences as a person puts in one
    caption (drawn from the captioner's counts, at least one), weighted by how often
    people name each facet: people leave differences unsaid. Held-out drafts said this way
    test whether a combiner copes with what a text leaves out (see ``choose_alpha``)."""

    def __init__(self, captioner: Any = None, seed: int = 0) -> None:
        from studio.language.captioner import shipped_captioner

        super().__init__(captioner or shipped_captioner(), seed)
        self.random = random.Random(f"partial:{seed}")

    def say(self, diffs: Sequence[Difference], types: dict[str, str] | None = None) -> str:
        requests = requests_of(diffs, types)
        if not requests:
            return describe(diffs, types)
        wanted = max(1, self.captioner.how_many(self.random))
        chosen: list[Any] = []
        while requests and len(chosen) < wanted:
            weights = [self.captioner.op_weight(r.facet, r.op) + 1 for r in requests]
            chosen.append(requests.pop(self.random.choices(range(len(requests)), weights)[0]))
        return str(self.captioner.say(chosen, self.random))


def rollback_text(position: int, diffs: Sequence[Difference], types: dict[str, str] | None = None,
                  voice: Voice | None = None) -> str:
    """Back to the target of turn ``position`` (image ``position`` of the transaction)."""
    said = (voice or Voice()).say(diffs, types)
    return phrase_turn(ParsedTurn(f"it {said[:1].lower() + said[1:]}", rollback_to=position))


def combination_text(
    position: int, slot: str, diffs: Sequence[Difference], types: dict[str, str] | None = None,
    voice: Voice | None = None,
) -> str:
    """Keep ``slot`` as the target of turn ``position`` had it, and change ``diffs``."""
    rest = (voice or Voice()).say(diffs, types) if diffs else ""
    return phrase_turn(ParsedTurn(rest, keeps=(Keep(slot, position),)))
