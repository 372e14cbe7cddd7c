"""Metrics against hand-computed cases, including ties and targets outside the gallery."""

from __future__ import annotations

import numpy as np
import pytest

from studio.simulation.metrics import (
    cumulative_hits,
    mean_estimate,
    mean_rank,
    percentile,
    rank_from_scores,
    recall_at,
    wilson,
)


def test_recall_counts_ranks_within_k_and_misses_for_absent_targets() -> None:
    ranks = [1, 3, 10, 11, None]
    assert recall_at(ranks, 1).value == pytest.approx(1 / 5)
    assert recall_at(ranks, 10).value == pytest.approx(3 / 5)
    assert recall_at(ranks, 50).value == pytest.approx(4 / 5)  # None never counts


def test_percentile_is_mean_of_one_minus_rank_over_n() -> None:
    # N = 10: ranks 1 and 5 → (0.9 + 0.5) / 2; an absent target scores 0.
    assert percentile([1, 5], 10).value == pytest.approx(0.7)
    assert percentile([1, None], 10).value == pytest.approx(0.45)


def test_ties_share_the_rank() -> None:
    others = np.array([0.9, 0.5, 0.5, 0.1])
    assert rank_from_scores(0.5, others) == pytest.approx(1 + 1 + 2 / 2)  # 3.0
    assert rank_from_scores(0.95, others) == 1.0
    assert rank_from_scores(0.0, others) == 5.0


def test_cumulative_hits_keep_a_first_hit() -> None:
    dialogs = [
        [20, 5, 30],  # hit at round 2, then lost: still counts at round 3
        [50, 40, 8],  # hit at round 3
        [None, None, None],
        [1, 1, 1],
    ]
    values = [e.value for e in cumulative_hits(dialogs, 10)]
    assert values == pytest.approx([0.25, 0.5, 0.75])


def test_cumulative_hits_need_equal_lengths() -> None:
    with pytest.raises(ValueError):
        cumulative_hits([[1, 2], [1]], 10)


def test_mean_rank_ignores_absent_targets() -> None:
    assert mean_rank([2, 4, None]).value == pytest.approx(3.0)
    assert mean_rank([2, 4, None]).n == 2


def test_confidence_intervals_by_hand() -> None:
    estimate = mean_estimate([1.0, 2.0, 3.0, 4.0])
    # sd = 1.2910, se = 0.6455, half width = 1.96 * 0.6455 = 1.2652
    assert (estimate.low, estimate.high) == pytest.approx((2.5 - 1.2652, 2.5 + 1.2652), abs=1e-3)
    interval = wilson(0, 10)
    assert interval.low == 0.0 and interval.high == pytest.approx(0.2775, abs=1e-3)
    assert wilson(10, 10).high == pytest.approx(1.0)
