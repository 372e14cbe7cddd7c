"""Simulated users: what a person who knows the target would type at each turn.

Every simulator sees the target's facets and the current reference's facets (the item
the session carried forward) and writes one turn. They never state something false
unless noise is asked for: the texts mention only real differences.

- ``AttributeDifferenceUser``: direct ("is blue with long sleeves") or comparative
  ("is darker and has longer sleeves") phrases for up to ``max_facets`` differing facets.
- ``RetrospectiveUser``: the same, but from turn 3 on it refers back as FashionMT does —
  a *rollback* when an earlier turn's item was closer to the target than the current one,
  a *combination* when an earlier item had a facet value the target shares and the
  current one lacks.
- ``ChatAnswerer``: answers the questioner's facet question with the target's value.
Dataset captions (the ground-truth relative captions of imported pairs) are used by the
single-turn protocols in ``studio.simulation.protocols``.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from studio.sessions.turn_references import Keep, ParsedTurn, phrase_turn

Facets = Mapping[str, str]

# Facets with an order, for comparative phrases: (values in order, word for "more").
ORDERED = {
    "length": (("cropped", "mini", "regular length", "knee-length", "midi", "longline",
                "maxi", "ankle-length"), ("longer", "shorter")),
    "sleeve": (("strapless", "spaghetti strap", "sleeveless", "cap sleeve", "short sleeve",
                "elbow sleeve", "3/4 sleeve", "long sleeve"),
               ("has longer sleeves", "has shorter sleeves")),
    "fit": (("bodycon", "slim fit", "tailored", "regular fit", "boxy", "loose fit", "oversized"),
            ("looser", "tighter")),
}
LIGHTNESS = {
    "white": 0.97, "beige": 0.85, "yellow": 0.82, "pink": 0.75, "orange": 0.65, "grey": 0.55,
    "green": 0.45, "red": 0.42, "blue": 0.4, "purple": 0.33, "brown": 0.3, "navy": 0.18,
    "black": 0.05,
}
DIRECT = {
    "color": "is {v}", "pattern": "is {v}", "sleeve": "has {v}s", "neckline": "has a {v}",
    "length": "is {v}", "fit": "is {v}", "graphic": "has a {v}",
}
PARAPHRASE_OPENERS = ("", "I want one that ", "make it so it ", "something that ")


def differences(target: Facets, current: Facets) -> list[str]:
    """Facets on which the target differs from the current item (known on both sides)."""
    return sorted(f for f in target if f in current and current[f] != target[f])


def direct_phrase(facet: str, value: str) -> str:
    if facet == "sleeve" and value in ("sleeveless", "strapless"):
        return f"is {value}"
    if facet == "graphic" and value == "plain front":
        return "has a plain front"
    return DIRECT.get(facet, "is {v}").format(v=value)


def comparative_phrase(facet: str, target: str, current: str) -> str | None:
    if facet == "color" and target in LIGHTNESS and current in LIGHTNESS:
        if abs(LIGHTNESS[target] - LIGHTNESS[current]) < 0.08:
            return None
        return "is darker" if LIGHTNESS[target] < LIGHTNESS[current] else "is lighter"
    if facet in ORDERED:
        order, (more, less) = ORDERED[facet]
        if target in order and current in order:
            return more if order.index(target) > order.index(current) else less
    return None


def join(phrases: Sequence[str]) -> str:
    if len(phrases) <= 1:
        return "".join(phrases)
    return ", ".join(phrases[:-1]) + " and " + phrases[-1]


@dataclass
class AttributeDifferenceUser:
    """Describes the target relative to the current item from their facets."""

    seed: int = 0
    max_facets: int = 2
    comparative: float = 0.0  # share of phrases given in comparative form when possible
    noise: float = 0.0  # chance to drop a difference and name a wrong value instead
    paraphrase: bool = False
    name: str = "attribute"

    def __post_init__(self) -> None:
        self.random = random.Random(self.seed)

    def describe(self, target: Facets, current: Facets, all_values: Mapping[str, Sequence[str]]
                 ) -> str:
        diffs = differences(target, current)
        self.random.shuffle(diffs)
        phrases = []
        for facet in diffs[: self.max_facets]:
            value = target[facet]
            if self.noise and self.random.random() < self.noise:
                wrong = [v for v in all_values.get(facet, ()) if v != value]
                value = self.random.choice(wrong) if wrong else value
            phrase = None
            if self.comparative and self.random.random() < self.comparative:
                phrase = comparative_phrase(facet, value, current[facet])
            phrases.append(phrase or direct_phrase(facet, value))
        if not phrases:
            phrases = ["is the same but a little different"] if not target else [
                direct_phrase(f, v) for f, v in list(target.items())[:1]]
        text = join(phrases)
        if self.paraphrase:
            text = self.random.choice(PARAPHRASE_OPENERS) + text
        return text

    def turn(self, number: int, target: Facets, history: Sequence[Facets],
             all_values: Mapping[str, Sequence[str]]) -> str:
        """The text of turn ``number`` given the items carried forward so far."""
        return self.describe(target, history[-1], all_values)


@dataclass
class RetrospectiveUser(AttributeDifferenceUser):
    """Adds FashionMT-style rollback and combination turns from turn 3 on."""

    retrospect: float = 0.6  # chance that a turn from 3 on refers back when it can
    name: str = "retrospective"

    def turn(self, number: int, target: Facets, history: Sequence[Facets],
             all_values: Mapping[str, Sequence[str]]) -> str:
        # history[i] is the item carried forward from turn i (history[0]: the start image).
        current = history[-1]
        if number >= 3 and len(history) >= 3 and self.random.random() < self.retrospect:
            earlier = range(1, len(history) - 1)
            misses = {i: len(differences(target, history[i])) for i in earlier}
            best = min(misses, key=lambda i: (misses[i], -i), default=None)
            if best is not None and misses[best] < len(differences(target, current)):
                rest = self.describe(target, history[best], all_values)
                return phrase_turn(ParsedTurn(f"it {rest}", rollback_to=best))
            for i in earlier:
                kept = [f for f in differences(target, current) if history[i].get(f) == target[f]]
                if kept:
                    facet = self.random.choice(kept)
                    rest = self.describe(target, {**current, facet: target[facet]}, all_values)
                    return phrase_turn(ParsedTurn(f"it {rest}", keeps=(Keep(facet, i),)))
        return self.describe(target, current, all_values)


@dataclass
class ChatAnswerer:
    """Answers a facet question with the target's value ("unknown" if it has none)."""

    name: str = "chat"

    def answer(self, facet: str, target: Facets) -> str:
        return target.get(facet, "unknown")


def describe_target(target: Facets, category: str, rng: random.Random) -> str:
    """A chat session's opening description: the category and one facet of the target."""
    if not target:
        return f"a {category}"
    facet = rng.choice(sorted(target))
    return f"a {category} that {direct_phrase(facet, target[facet])}"
