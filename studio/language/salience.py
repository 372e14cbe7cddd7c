"""Salience: how visible a difference is decides whether people name it.

An annotator looking at a reference and a target names what strikes the eye: a red dress
beside a navy one gets "is red"; a change of neckline hidden by hair goes unsaid. The
captioner's counts know how often people named each facet, not *which* of a pair's
differences they chose. Where a project has an index, the model's own image and text
vectors say how visible one difference is:

    v = (t·e_t − t·e_r) − (r·e_t − r·e_r)

with r, t the unit image vectors of the reference and the target and e_t, e_r the unit text
vectors of the target's and the reference's value ("red", "navy"): how much more the target
looks like its value, and less like the reference's, than the reference does. A change the
model cannot see scores near 0; a plain one scores high.

``SalienceModel`` learns, per facet, P(named | v) = σ(a·v + b), a one-dimensional logistic
regression fitted by Newton steps (numpy only: a dozen parameters need no library), with a
shared fit for facets with fewer than ``min_examples`` examples or fewer than ``MIN_EACH``
named or unnamed ones (a facet people never named teaches no slope). Users weigh a facet by the
*lift* P(named | v) / P(named) rather than by P(named | v): the captioner's counts already
say how often a facet is named, so multiplying by the probability would count the facet's
base rate twice; the lift keeps the counts' calibration on average and moves weight toward
the differences that show.

The vectors are of one embedding model; the model records which (``model``, ``cache_key``)
and is used only with that model's vectors. Nothing here knows about projects.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

#: (facet, target value, current value) -> visible difference, or None where unknown.
Visibility = Callable[[str, str, str], float | None]
MIN_EXAMPLES = 30  # fewer examples of a facet: its own fit is noise; the shared one is used
MIN_EACH = 5  # nor without this many named and unnamed ones: no slope can be learned
NEWTON_STEPS = 25
RIDGE = 1e-3  # keeps a fit finite where v separates named from unnamed perfectly
#: Comparatives that name a facet's change without its value ("darker" for a change of
#: colour, "more colorful" for a change of pattern): as ``learned_direction`` says them.
COMPARED_AS: dict[str, tuple[str, ...]] = {"color": ("lightness",), "pattern": ("colorful",)}


def visible_difference(reference: np.ndarray, target: np.ndarray,
                       wanted: np.ndarray, had: np.ndarray) -> float:
    """v for one facet: ``wanted``/``had`` are the text vectors of the target's and the
    reference's values."""
    return float((target @ wanted - target @ had) - (reference @ wanted - reference @ had))


def fit_logistic(x: Sequence[float] | np.ndarray, y: Sequence[bool] | np.ndarray,
                 steps: int = NEWTON_STEPS, ridge: float = RIDGE) -> tuple[float, float]:
    """(slope, intercept) of P(y | x) = σ(slope·x + intercept), by Newton's method on the
    mean log-loss with a small ridge penalty (so separable data gives a steep, finite fit)."""
    xs = np.asarray(x, dtype=np.float64)
    ys = np.asarray(y, dtype=np.float64)
    if len(xs) == 0:
        return 0.0, 0.0
    design = np.stack([xs, np.ones_like(xs)], axis=1)
    theta = np.zeros(2)
    for _ in range(steps):
        p = _sigmoid(design @ theta)
        gradient = design.T @ (p - ys) / len(xs) + ridge * theta
        hessian = (design.T * (p * (1 - p))) @ design / len(xs) + ridge * np.eye(2)
        step = np.linalg.solve(hessian, gradient)
        theta -= step
        if float(np.abs(step).max()) < 1e-9:
            break
    return float(theta[0]), float(theta[1])


def roc_auc(scores: Sequence[float], labels: Sequence[bool]) -> float | None:
    """The chance that a random named example scores above a random unnamed one (ties
    count half); None when one class is missing."""
    s = np.asarray(scores, dtype=np.float64)
    y = np.asarray(labels, dtype=bool)
    positives, negatives = int(y.sum()), int((~y).sum())
    if positives == 0 or negatives == 0:
        return None
    order = np.argsort(s, kind="mergesort")
    ranks = np.empty(len(s), dtype=np.float64)
    sorted_scores = s[order]
    start = 0
    while start < len(s):  # average ranks over ties
        end = start
        while end + 1 < len(s) and sorted_scores[end + 1] == sorted_scores[start]:
            end += 1
        ranks[order[start:end + 1]] = (start + end) / 2 + 1
        start = end + 1
    total = float(ranks[y].sum()) - positives * (positives + 1) / 2
    return total / (positives * negatives)


@dataclass(frozen=True)
class Example:
    """One differing facet of one captioned pair, as one person saw it."""

    facet: str
    visible: float
    named: bool


@dataclass(frozen=True)
class Fit:
    slope: float
    intercept: float
    examples: int
    rate: float  # share named: the facet's base rate

    def probability(self, visible: float) -> float:
        return _sigmoid_scalar(self.slope * visible + self.intercept)

    def to_json(self) -> list[float]:
        return [self.slope, self.intercept, self.examples, self.rate]

    @classmethod
    def from_json(cls, data: Sequence[float]) -> Fit:
        return cls(float(data[0]), float(data[1]), int(data[2]), float(data[3]))


def _fit(examples: Sequence[Example]) -> Fit:
    named = [e.named for e in examples]
    slope, intercept = fit_logistic([e.visible for e in examples], named)
    rate = (sum(named) + 0.5) / (len(named) + 1.0)  # smoothed: never 0 or 1
    return Fit(slope, intercept, len(examples), rate)


@dataclass
class SalienceModel:
    """Per facet P(named | visible difference), learned from a project's captions."""

    model: str  # the embedding model whose vectors ``visible`` is measured in
    cache_key: str = ""  # its weights: vectors of other weights are not comparable
    facets: dict[str, Fit] = field(default_factory=dict)
    shared: Fit = field(default_factory=lambda: Fit(0.0, 0.0, 0, 0.5))
    min_examples: int = MIN_EXAMPLES

    @classmethod
    def fit(cls, examples: Iterable[Example], model: str, cache_key: str = "",
            min_examples: int = MIN_EXAMPLES) -> SalienceModel:
        given = list(examples)
        by_facet: dict[str, list[Example]] = defaultdict(list)
        for example in given:
            by_facet[example.facet].append(example)
        fitted = cls(model, cache_key, min_examples=min_examples, shared=_fit(given))
        for facet, found in sorted(by_facet.items()):
            named = sum(e.named for e in found)
            if len(found) >= min_examples and min(named, len(found) - named) >= MIN_EACH:
                fitted.facets[facet] = _fit(found)
        return fitted

    def _for(self, facet: str) -> Fit:
        return self.facets.get(facet, self.shared)

    def probability(self, facet: str, visible: float) -> float:
        """P(a person names ``facet`` | its visible difference)."""
        return self._for(facet).probability(visible)

    def base_rate(self, facet: str) -> float:
        """P(a person names ``facet``) when it differs, not knowing how visibly."""
        return self._for(facet).rate

    def weight(self, facet: str, visible: float) -> float:
        """The lift P(named | v) / P(named): how much more (or less) likely than usual a
        person is to name this difference (see the module docstring for why a lift)."""
        return self.probability(facet, visible) / self.base_rate(facet)

    @property
    def examples(self) -> int:
        return self.shared.examples

    def to_json(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "cache_key": self.cache_key,
            "min_examples": self.min_examples,
            "shared": self.shared.to_json(),
            "facets": {f: fit.to_json() for f, fit in sorted(self.facets.items())},
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SalienceModel:
        return cls(
            model=str(data["model"]),
            cache_key=str(data.get("cache_key", "")),
            facets={str(f): Fit.from_json(v) for f, v in data.get("facets", {}).items()},
            shared=Fit.from_json(data["shared"]),
            min_examples=int(data.get("min_examples", MIN_EXAMPLES)),
        )


class ImageLooks:
    """Visible differences between a project's images, from one model's vectors.

    ``vector_of(image_id)`` gives an image's unit vector (None when it has none);
    ``encode_texts(texts)`` the same model's unit text vectors. A value's text vector is
    the value word itself ("red", "v-neck"), the words the caption reader reads as that
    value; each is encoded once.
    """

    def __init__(self, vector_of: Callable[[str], np.ndarray | None],
                 encode_texts: Callable[[Sequence[str]], np.ndarray]) -> None:
        self._vector_of = vector_of
        self._encode = encode_texts
        self._texts: dict[str, np.ndarray] = {}

    def text(self, value: str) -> np.ndarray:
        found = self._texts.get(value)
        if found is None:
            found = np.asarray(self._encode([value])[0], dtype=np.float32)
            self._texts[value] = found
        return found

    def difference(self, reference_id: str, target_id: str, target_value: str,
                   reference_value: str) -> float | None:
        reference, target = self._vector_of(reference_id), self._vector_of(target_id)
        if reference is None or target is None:
            return None
        return visible_difference(reference, target, self.text(target_value),
                                  self.text(reference_value))

    def between(self, reference_id: str, target_id: str) -> Visibility | None:
        """The visibility of any facet's change from ``reference_id`` to ``target_id``."""
        reference, target = self._vector_of(reference_id), self._vector_of(target_id)
        if reference is None or target is None:
            return None

        def visible(facet: str, target_value: str, current_value: str) -> float | None:
            return visible_difference(reference, target, self.text(target_value),
                                      self.text(current_value))

        return visible


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return np.asarray(1.0 / (1.0 + np.exp(-np.clip(z, -500, 500))))


def _sigmoid_scalar(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-500.0, min(500.0, z))))
