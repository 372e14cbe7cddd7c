"""Retrieval metrics with 95% confidence intervals.

Ranks are 1-based; ``None`` means the target is not in the gallery (or was filtered out)
and counts as a miss everywhere: it never reaches a top-K and its percentile is 0.

- Recall@K: share of queries whose target ranks within K.
- Ranking percentile P = mean(1 − rank / N) over queries (Fashion IQ), N = gallery size.
- Cumulative Hits@K per round (ChatIR): share of dialogs whose target reached the top K
  at *any* round so far — a first hit is never taken back.
- Mean rank: average target rank over queries with a rank.

Intervals are normal approximations (mean ± 1.96·sd/√n) for means, and Wilson score
intervals for proportions, which behave at 0 and 1 where the normal one does not.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np

Z95 = 1.959963984540054
# Up to this many distinct paired differences, the bootstrap draws counts per value.
DISTINCT_FOR_COUNTS = 256


@dataclass(frozen=True)
class Estimate:
    value: float
    low: float
    high: float
    n: int

    def to_json(self) -> dict[str, float | int | None]:
        """Rounded; an undefined value (no queries) is ``None``, JSON's null, never NaN."""
        return {
            k: (None if math.isnan(v) else round(v, 6)) if isinstance(v, float) else v
            for k, v in asdict(self).items()
        }


def rank_from_scores(target_score: float, other_scores: np.ndarray) -> float:
    """Rank of a target among other items, ties shared: 1 + higher + ties / 2."""
    others = np.asarray(other_scores, dtype=np.float64)
    higher = int(np.sum(others > target_score))
    ties = int(np.sum(others == target_score))
    return 1.0 + higher + ties / 2.0


def wilson(successes: int, n: int) -> Estimate:
    if n == 0:
        return Estimate(float("nan"), float("nan"), float("nan"), 0)
    p = successes / n
    denominator = 1 + Z95**2 / n
    centre = (p + Z95**2 / (2 * n)) / denominator
    half = Z95 * math.sqrt(p * (1 - p) / n + Z95**2 / (4 * n * n)) / denominator
    return Estimate(p, max(0.0, centre - half), min(1.0, centre + half), n)


def mean_estimate(values: Sequence[float]) -> Estimate:
    data = np.asarray(values, dtype=np.float64)
    n = len(data)
    if n == 0:
        return Estimate(float("nan"), float("nan"), float("nan"), 0)
    mean = float(data.mean())
    if n == 1:
        return Estimate(mean, mean, mean, 1)
    half = Z95 * float(data.std(ddof=1)) / math.sqrt(n)
    return Estimate(mean, mean - half, mean + half, n)


def recall_at(ranks: Sequence[float | None], k: int) -> Estimate:
    hits = sum(1 for rank in ranks if rank is not None and rank <= k)
    return wilson(hits, len(ranks))


def percentile(ranks: Sequence[float | None], gallery_size: int) -> Estimate:
    if gallery_size <= 0:
        raise ValueError("the gallery must not be empty")
    return mean_estimate([0.0 if r is None else 1.0 - r / gallery_size for r in ranks])


def mean_rank(ranks: Sequence[float | None]) -> Estimate:
    return mean_estimate([r for r in ranks if r is not None])


def hits_at(ranks: Sequence[float | None], k: int) -> np.ndarray:
    """1.0 where a query's target ranks within ``k``, else 0.0 (a missing rank is a miss)."""
    return np.array([r is not None and r <= k for r in ranks], dtype=float)


def paired_bootstrap(a: np.ndarray, b: np.ndarray, seed: int = 0, n: int = 2000
                     ) -> tuple[float, float, float]:
    """Mean of ``a - b`` (paired per query) and the 95 % percentile bootstrap interval of it:
    ``n`` resamples of the queries with replacement, one seeded generator. The benches and
    the query-by-query comparison of two runs both use this one function.

    A resample with replacement takes each distinct difference a multinomial number of
    times (its share of the queries as the probability): drawing those counts is the same
    resampling without drawing one index per query. Hits (differences -1, 0, 1) have three
    values, so 2,000 resamples of 100,000 queries take milliseconds; differences with many
    distinct values are resampled by query index, in blocks of about 4 million indices."""
    rng = np.random.default_rng(seed)
    differences = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    size = len(differences)
    if not size:
        raise ValueError("paired_bootstrap needs at least one paired value")
    values, counts = np.unique(differences, return_counts=True)
    if len(values) <= DISTINCT_FOR_COUNTS:
        drawn = rng.multinomial(size, counts / size, size=n)
        diffs = drawn @ values / size
    else:
        diffs = np.empty(n)
        block = max(1, 4_000_000 // size)
        for start in range(0, n, block):
            rows = min(block, n - start)
            idx = rng.integers(0, size, (rows, size))
            diffs[start : start + rows] = differences[idx].mean(axis=1)
    return (float(np.mean(differences)), float(np.quantile(diffs, 0.025)),
            float(np.quantile(diffs, 0.975)))


def cumulative_hits(rounds: Sequence[Sequence[float | None]], k: int = 10) -> list[Estimate]:
    """``rounds[d][t]`` is dialog d's target rank after round t (all dialogs equally long)."""
    if not rounds:
        return []
    length = len(rounds[0])
    if any(len(dialog) != length for dialog in rounds):
        raise ValueError("every dialog needs the same number of rounds")
    hit_so_far = [False] * len(rounds)
    estimates = []
    for t in range(length):
        for d, dialog in enumerate(rounds):
            rank = dialog[t]
            hit_so_far[d] = hit_so_far[d] or (rank is not None and rank <= k)
        estimates.append(wilson(sum(hit_so_far), len(rounds)))
    return estimates

