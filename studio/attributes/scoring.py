"""Zero-shot attribute scores: prompts per type, prompt averaging and calibration.

Raw image-text similarities are not comparable across attributes. A prompt such as "a
photo of a dress with lyocell", whose attribute word the model does not know, is almost
the bare-category prompt "a photo of a dress" (cosine ≈ 0.95 with the demo model),
while "a photo of a red dress" moves far from it (≈ 0.3). So every image that looks
like a typical dress scores high on *every* unknown word at once, and those words flood
the top N. The default calibration, ``type-softmax``, therefore:

1. removes the bare-category direction from each attribute's prompt vector and scores
   the image against what is left: ``s_a = img·t_a − (t_a·n)(img·n)`` where ``n`` is the
   category's prompt without attribute. Unknown words keep a short, noisy residual and
   score near 0; known words keep most of their vector;
2. turns the scores of each *type* into probabilities with a softmax at CLIP's
   temperature (logit scale 100), with one extra "none of these" option whose logit is
   ``log(number of attributes of the type)``, so a type the model cannot tell apart
   (every residual near 0) gives each of its words a small share and they stay out of
   the top N, while a confident type (one clear colour) gives its word nearly 1.

With the shipped demo model on the 2,000-image demo this gives precision@8 0.45 and
recall@8 0.55, against 0.35 / 0.41 for raw cosine (see BENCHMARKS.md). ``zscore`` (each attribute standardised over the project's
images, then the normal CDF) and ``raw`` (cosine mapped to [0, 1]) remain for
comparison; ``bench/bench_attribute_suggestions.py`` measures all three.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

TEMPLATES: dict[str, tuple[str, ...]] = {
    "color": ("a photo of a {attribute} {category}", "a {attribute} {category}",
              "a {category} in {attribute}"),
    "texture": ("a photo of a {attribute} {category}", "a {attribute} {category}",
                "a {category} with a {attribute} pattern"),
    "fabric": ("a photo of a {attribute} {category}", "a {category} made of {attribute}"),
    "shape": ("a photo of a {attribute} {category}", "a {attribute} {category}"),
    "part": ("a photo of a {category} with {attribute}", "a {category} with {attribute}",
             "a {attribute} {category}"),
    "style": ("a photo of a {attribute} {category}", "a {attribute} {category}",
              "a {category} with a {attribute}"),
}
NULL_TEMPLATES = ("a photo of a {category}", "a {category}")
CATEGORY_NOUNS = {"toptee": "top", "": "garment"}
TEMPERATURE = 100.0
CALIBRATIONS = ("type-softmax", "zscore", "raw")


def category_noun(category: str) -> str:
    """How prompts name a category ("toptee" reads as "top"; none as "garment")."""
    return CATEGORY_NOUNS.get(category, category)


def prompts(attribute: str, type_: str, category: str) -> list[str]:
    noun = category_noun(category)
    return [t.format(attribute=attribute, category=noun) for t in TEMPLATES[type_]]


def null_prompts(category: str) -> list[str]:
    """The category's prompts without any attribute: the direction unknown words share."""
    noun = category_noun(category)
    return [t.format(category=noun) for t in NULL_TEMPLATES]


def average_prompts(vectors: np.ndarray, counts: Sequence[int]) -> np.ndarray:
    """Mean of each run of ``counts[i]`` consecutive prompt vectors, re-normalised.

    CLIP's prompt ensembling: one vector per attribute from all its prompts.
    """
    ends = np.cumsum(counts)
    starts = ends - np.asarray(counts)
    means = np.stack([vectors[a:b].mean(axis=0) for a, b in zip(starts, ends, strict=True)])
    norms = np.linalg.norm(means, axis=1, keepdims=True)
    return (means / np.maximum(norms, 1e-12)).astype(np.float32)


def _softmax(x: np.ndarray) -> np.ndarray:
    x = x - x.max(axis=1, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=1, keepdims=True)


def calibrate(
    images: np.ndarray,
    attributes: np.ndarray,
    null: np.ndarray,
    types: Sequence[str],
    method: str,
) -> np.ndarray:
    """Comparable confidences in [0, 1], shape (images, attributes).

    ``images`` (N, d), ``attributes`` (A, d) and ``null`` (d,) are unit vectors: the
    images, the attributes' averaged prompts and the category's bare prompt.
    """
    if method not in CALIBRATIONS:
        raise ValueError(
            f"Unknown calibration {method!r}; the available ones are {', '.join(CALIBRATIONS)}."
        )
    sims = np.asarray(images @ attributes.T, dtype=np.float64)
    if method == "raw":
        return ((sims + 1.0) / 2.0).clip(0.0, 1.0).astype(np.float32)
    if method == "zscore":
        if len(sims) < 2:
            return np.full(sims.shape, 0.5, dtype=np.float32)
        z = (sims - sims.mean(axis=0)) / np.maximum(sims.std(axis=0), 1e-6)
        erf = np.vectorize(math.erf)
        return (0.5 * (1.0 + erf(z / math.sqrt(2.0)))).astype(np.float32)
    residual = sims - np.outer(images @ null, attributes @ null)
    out = np.zeros_like(residual)
    kinds = np.asarray(types)
    for type_ in dict.fromkeys(types):
        columns = np.flatnonzero(kinds == type_)
        none_of_these = np.full((len(residual), 1), math.log(len(columns)))
        probabilities = _softmax(np.hstack([TEMPERATURE * residual[:, columns], none_of_these]))
        out[:, columns] = probabilities[:, :-1]
    return out.astype(np.float32)


def top_n(confidences: np.ndarray, n: int) -> np.ndarray:
    """Column indices of each row's ``n`` highest confidences, best first."""
    n = min(n, confidences.shape[1])
    part = np.argpartition(-confidences, n - 1, axis=1)[:, :n]
    order = np.argsort(-np.take_along_axis(confidences, part, axis=1), axis=1, kind="stable")
    return np.take_along_axis(part, order, axis=1)
