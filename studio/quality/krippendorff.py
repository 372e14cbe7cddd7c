"""Krippendorff's alpha, written out with numpy (Krippendorff 2011, "Computing
Krippendorff's Alpha-Reliability").

alpha = 1 − D_o / D_e: observed over expected disagreement, both from the coincidence
matrix of pairable values (units with at least two values). The ordinal metric weighs a
disagreement between c and k by how many pairable values lie between them:
δ²(c, k) = (Σ_{g=c..k} n_g − (n_c + n_k) / 2)².
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

import numpy as np

Metric = Literal["nominal", "ordinal", "interval"]


def coincidences(data: np.ndarray, values: np.ndarray) -> np.ndarray:
    """o[c, k]: pairs of values (c, k) within units, each unit weighted 1 / (m_u − 1)."""
    counts = np.stack([(data == v).sum(axis=0) for v in values], axis=1).astype(float)
    pairable = counts.sum(axis=1)
    counts = counts[pairable >= 2]
    weights = 1.0 / (counts.sum(axis=1) - 1.0)
    within = np.einsum("u,uc,uk->ck", weights, counts, counts)
    return within - np.diag((counts * weights[:, None]).sum(axis=0))


def distance_squared(values: np.ndarray, totals: np.ndarray, metric: Metric) -> np.ndarray:
    size = len(values)
    if metric == "nominal":
        return 1.0 - np.eye(size)
    if metric == "interval":
        return (values[:, None] - values[None, :]) ** 2
    if metric == "ordinal":
        cumulative = np.concatenate([[0.0], np.cumsum(totals)])
        c, k = np.meshgrid(np.arange(size), np.arange(size), indexing="ij")
        low, high = np.minimum(c, k), np.maximum(c, k)
        between = cumulative[high + 1] - cumulative[low]
        return (between - (totals[c] + totals[k]) / 2.0) ** 2
    raise ValueError(f"Unsupported metric '{metric}'. The available metrics are: "
                     "nominal, ordinal, interval")


def krippendorff_alpha(data: Sequence[Sequence[float | None]] | np.ndarray,
                       metric: Metric = "ordinal") -> float:
    """Alpha for a coders × units table; ``None``/NaN marks a missing value.

    Returns NaN when it is undefined: fewer than two pairable values, or no variation at
    all (every pairable value the same, so no disagreement could be expected).
    """
    table = np.array(
        [[math.nan if v is None else float(v) for v in row] for row in data], dtype=float
    ) if not isinstance(data, np.ndarray) else data.astype(float)
    if table.ndim != 2 or table.size == 0:
        return math.nan
    values = np.unique(table[~np.isnan(table)])
    if values.size < 2:
        return math.nan
    observed = coincidences(table, values)
    totals = observed.sum(axis=1)
    n = totals.sum()
    if n < 2:
        return math.nan
    delta = distance_squared(values, totals, metric)
    disagreement_observed = float((observed * delta).sum())
    disagreement_expected = float((np.outer(totals, totals) * delta).sum() / (n - 1.0))
    if disagreement_expected == 0.0:
        return math.nan
    return 1.0 - disagreement_observed / disagreement_expected
