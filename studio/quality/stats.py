"""Small statistics with numpy only: Student's t quantile, mean with a t interval, Spearman.

SciPy is not a dependency, so the t quantile inverts the t distribution function, which
is written with the regularised incomplete beta function (continued fraction, as in
Numerical Recipes §6.4). Accurate to about 1e-10, far below what a report shows.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


def _beta_continued_fraction(a: float, b: float, x: float) -> float:
    tiny, eps = 1e-300, 1e-15
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        for numerator in (m * (b - m) * x / ((qam + m2) * (a + m2)),
                          -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < eps:
            break
    return h


def incomplete_beta(a: float, b: float, x: float) -> float:
    """The regularised incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = (math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
                 + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _beta_continued_fraction(a, b, x) / a
    return 1.0 - math.exp(log_front) * _beta_continued_fraction(b, a, 1.0 - x) / b


def t_cdf(t: float, df: float) -> float:
    tail = 0.5 * incomplete_beta(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t >= 0 else tail


def t_quantile(p: float, df: float) -> float:
    """The ``p`` quantile of Student's t with ``df`` degrees of freedom (bisection)."""
    if not 0.0 < p < 1.0 or df <= 0:
        raise ValueError("need 0 < p < 1 and df > 0")
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    low, high = 0.0, 1.0
    while t_cdf(high, df) < p:
        high *= 2.0
    for _ in range(200):
        middle = (low + high) / 2.0
        if t_cdf(middle, df) < p:
            low = middle
        else:
            high = middle
        if high - low < 1e-12:
            break
    return (low + high) / 2.0


@dataclass(frozen=True)
class MeanCI:
    """A mean with its 95 % t interval over ``n`` items (no interval below two items)."""

    mean: float
    low: float | None
    high: float | None
    n: int


def mean_ci(values: Sequence[float], level: float = 0.95) -> MeanCI:
    """Mean ± t(1 − α/2, n − 1) · s / √n, s the sample standard deviation (ddof = 1)."""
    array = np.asarray(values, dtype=float)
    n = int(array.size)
    if n == 0:
        return MeanCI(math.nan, None, None, 0)
    mean = float(array.mean())
    if n < 2:
        return MeanCI(mean, None, None, n)
    half = t_quantile(0.5 + level / 2.0, n - 1) * float(array.std(ddof=1)) / math.sqrt(n)
    return MeanCI(mean, mean - half, mean + half, n)


def ranks(values: Sequence[float]) -> np.ndarray:
    """1-based ranks, ties sharing their average rank."""
    array = np.asarray(values, dtype=float)
    order = np.argsort(array, kind="mergesort")
    ranked = np.empty(array.size, dtype=float)
    sorted_values = array[order]
    start = 0
    while start < array.size:
        end = start
        while end + 1 < array.size and sorted_values[end + 1] == sorted_values[start]:
            end += 1
        ranked[order[start : end + 1]] = (start + end) / 2.0 + 1.0
        start = end + 1
    return ranked


def spearman(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Spearman's rho (Pearson on average ranks); None below 3 pairs or with no spread."""
    if len(x) != len(y):
        raise ValueError("x and y need the same length")
    if len(x) < 3:
        return None
    rx, ry = ranks(x), ranks(y)
    rx, ry = rx - rx.mean(), ry - ry.mean()
    denominator = math.sqrt(float((rx * rx).sum() * (ry * ry).sum()))
    if denominator == 0.0:
        return None
    return float((rx * ry).sum() / denominator)
