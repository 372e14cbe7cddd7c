"""Chat-mode questioners: what the system asks the user after each round (ChatIR).

The offline default asks about the facet (colour, pattern, sleeve …) whose answer best
splits the current top candidates: the largest information gain, which for a question
whose answer is determined by the target is the entropy of the answer's distribution over
the candidates (weighted by their retrieval scores). It never asks about a facet twice.
A random questioner is the baseline the evaluation compares against; an LLM questioner
(``backends.questioners``) plugs in through the same interface.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

FACET_QUESTIONS = {
    "color": "What colour is it?",
    "pattern": "What pattern does it have?",
    "sleeve": "What kind of sleeves does it have?",
    "neckline": "What neckline does it have?",
    "length": "How long is it?",
    "fit": "How does it fit?",
    "graphic": "Does it have a print, a graphic or text on it?",
}


@dataclass(frozen=True)
class Question:
    facet: str
    text: str
    options: tuple[str, ...]  # suggested answers, most likely first


@dataclass(frozen=True)
class Candidate:
    """One of the current top results, with its facet values (e.g. {"color": "red"})."""

    image_id: str
    score: float
    facets: Mapping[str, str]


class Questioner(Protocol):
    name: str

    def ask(self, candidates: Sequence[Candidate], asked: Sequence[str]) -> Question | None: ...


def answer_distribution(candidates: Sequence[Candidate], facet: str) -> dict[str, float]:
    """Score-weighted share of each answer among the candidates (softmax of scores)."""
    if not candidates:
        return {}
    top = max(c.score for c in candidates)
    weights = [math.exp((c.score - top) * 20.0) for c in candidates]
    total: dict[str, float] = {}
    for candidate, weight in zip(candidates, weights, strict=True):
        answer = candidate.facets.get(facet, "unknown")
        total[answer] = total.get(answer, 0.0) + weight
    norm = sum(total.values())
    ranked = sorted(total.items(), key=lambda item: -item[1])  # stable: ties keep first seen
    return {answer: w / norm for answer, w in ranked}


def entropy(distribution: Mapping[str, float]) -> float:
    return -sum(p * math.log2(p) for p in distribution.values() if p > 0)


def facet_asked(text: str) -> str | None:
    """The facet a question of ``make_question`` asks about ("What colour is it?" →
    "color"); None for a question it does not word (a person's, ChatIR's)."""
    for facet, question in FACET_QUESTIONS.items():
        if question == text:
            return facet
    prefix, suffix = "What is its ", "?"
    if text.startswith(prefix) and text.endswith(suffix) and len(text) > len(prefix) + 1:
        return text[len(prefix) : -len(suffix)]
    return None


def make_question(facet: str, distribution: Mapping[str, float]) -> Question:
    text = FACET_QUESTIONS.get(facet, f"What is its {facet}?")
    options = tuple(answer for answer in distribution if answer != "unknown")
    return Question(facet=facet, text=text, options=options)


class InformationGainQuestioner:
    """Asks about the unasked facet with the most uncertain answer among the candidates."""

    name = "information-gain"

    def __init__(self, facets: Sequence[str]) -> None:
        self.facets = tuple(facets)

    def ask(self, candidates: Sequence[Candidate], asked: Sequence[str]) -> Question | None:
        best: tuple[float, str, dict[str, float]] | None = None
        for facet in self.facets:
            if facet in asked:
                continue
            distribution = answer_distribution(candidates, facet)
            gain = entropy(distribution)
            if best is None or gain > best[0] + 1e-12:
                best = (gain, facet, distribution)
        if best is None:
            return None
        return make_question(best[1], best[2])


class RandomQuestioner:
    """The baseline: a random unasked facet (seeded, so runs are reproducible)."""

    name = "random"

    def __init__(self, facets: Sequence[str], seed: int = 0) -> None:
        self.facets = tuple(facets)
        self._random = random.Random(seed)

    def ask(self, candidates: Sequence[Candidate], asked: Sequence[str]) -> Question | None:
        remaining = [facet for facet in self.facets if facet not in asked]
        if not remaining:
            return None
        facet = self._random.choice(remaining)
        return make_question(facet, answer_distribution(candidates, facet))
