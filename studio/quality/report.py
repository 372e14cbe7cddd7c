"""The quality report: per dataset and criterion a percentage, a 95 % interval and a count;
agreement between raters; and how the automatic indicators track the human scores.

The unit of analysis is the *item* (one turn): its score on a criterion is the mean of
its raters' finished ratings. Means and intervals are over items, so an item rated by
three people does not weigh more than one rated by two. The interval is Student's t:
mean ± t(0.975, n − 1) · s / √n over item scores, then put on the percentage scale
``(mean − 1) / 4 × 100`` (1 → 0 %, 5 → 100 %). Agreement is Krippendorff's alpha with
the ordinal metric over all finished ratings, per criterion.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np

from studio.quality.criteria import CRITERIA, CRITERION_KEYS, PERCENT_FORMULA, to_percent
from studio.quality.indicators import (
    INDICATOR_NAMES,
    Embedder,
    IndicatorResult,
    compute_indicators,
    correlate,
)
from studio.quality.krippendorff import krippendorff_alpha
from studio.quality.stats import mean_ci
from studio.store import Project
from studio.store.repos import ratings as ratings_repo

Item = tuple[int, int]
MEAN = "mean"
CI_METHOD = ("95 % confidence interval: Student's t over items, "
             "mean ± t(0.975, n − 1) · s / √n, where an item's score is the mean of its "
             "raters' scores")
ALPHA_METHOD = "Agreement: Krippendorff's alpha, ordinal metric, over all finished ratings"
MIN_RELIABLE_ITEMS = 3  # an interval over fewer items is shown but marked unreliable
MIN_RELIABLE_CORRELATION = 10  # a Spearman rho over fewer items likewise
UNRELIABLE_MARK = "†"
UNRELIABLE_CELL_NOTE = (f"{UNRELIABLE_MARK} fewer than {MIN_RELIABLE_ITEMS} items: the "
                        "interval is unreliable (and clipped to 0–100 %)")
UNRELIABLE_RHO_NOTE = (f"{UNRELIABLE_MARK} Spearman's rho over fewer than "
                       f"{MIN_RELIABLE_CORRELATION} items: unreliable")


@dataclass(frozen=True)
class Cell:
    """One dataset × criterion: percentage, interval ends (percent) and counts.

    The interval is clipped to the scale, 0–100 %: a t interval over two or three items
    reaches past both ends, which no score can.
    """

    percent: float
    low: float | None
    high: float | None
    items: int
    ratings: int

    def __post_init__(self) -> None:
        if self.low is not None:
            object.__setattr__(self, "low", min(100.0, max(0.0, self.low)))
        if self.high is not None:
            object.__setattr__(self, "high", min(100.0, max(0.0, self.high)))

    @property
    def reliable(self) -> bool:
        return self.items >= MIN_RELIABLE_ITEMS

    def to_json(self) -> dict[str, object]:
        return {"percent": _round(self.percent), "ci_low": _round(self.low),
                "ci_high": _round(self.high), "items": self.items, "ratings": self.ratings,
                "reliable": self.reliable}


def rho_reliable(items: int) -> bool:
    return items >= MIN_RELIABLE_CORRELATION


@dataclass
class QualityReport:
    sample: str | None
    rows: dict[str, dict[str, Cell]]  # dataset → criterion key or "mean" → cell
    agreement: dict[str, tuple[float, int]]  # criterion → (alpha, items with ≥ 2 ratings)
    correlations: dict[str, dict[str, tuple[float | None, int]]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def columns(self) -> list[str]:
        return [*CRITERION_KEYS, MEAN]

    def to_json(self) -> dict[str, object]:
        return {
            "sample": self.sample,
            "formula": PERCENT_FORMULA,
            "ci": CI_METHOD,
            "agreement_method": ALPHA_METHOD,
            "columns": {c.key: c.short for c in CRITERIA} | {MEAN: "Mean"},
            "datasets": {d: {c: cell.to_json() for c, cell in row.items()}
                         for d, row in self.rows.items()},
            "agreement": {c: {"alpha": _round(a, 3), "items": n}
                          for c, (a, n) in self.agreement.items()},
            "indicator_correlations": {
                name: {c: {"rho": _round(r, 3), "items": n, "reliable": rho_reliable(n)}
                       for c, (r, n) in per.items()}
                for name, per in self.correlations.items()
            },
            "notes": self.notes,
        }


def _round(value: float | None, digits: int = 1) -> float | None:
    return None if value is None or math.isnan(value) else round(value, digits)


def finished_ratings(project: Project, sample: str | None = None
                     ) -> list[tuple[str, Item, int, dict[str, int]]]:
    """(dataset, item, rater id, scores) of every rating marked done."""
    rows = ratings_repo.finished(project, sample)
    found: list[tuple[str, Item, int, dict[str, int]]] = []
    for row in rows:
        scores = {key: row[key] for key in CRITERION_KEYS}
        if all(v is not None for v in scores.values()):
            item = (int(row["transaction_id"]), int(row["turn_index"]))
            found.append((row["dataset"], item, int(row["rater_id"]), scores))
    return found


def item_scores(ratings: list[tuple[str, Item, int, dict[str, int]]]
                ) -> tuple[dict[Item, dict[str, float]], dict[Item, str], dict[Item, int]]:
    """Per item: the mean score per criterion (and their mean), dataset, number of ratings."""
    sums: dict[Item, list[dict[str, int]]] = defaultdict(list)
    datasets: dict[Item, str] = {}
    for dataset, item, _, scores in ratings:
        sums[item].append(scores)
        datasets[item] = dataset
    means: dict[Item, dict[str, float]] = {}
    for item, scored in sums.items():
        per = {k: float(np.mean([s[k] for s in scored])) for k in CRITERION_KEYS}
        per[MEAN] = float(np.mean([per[k] for k in CRITERION_KEYS]))
        means[item] = per
    return means, datasets, {item: len(s) for item, s in sums.items()}


def agreement(ratings: list[tuple[str, Item, int, dict[str, int]]]
              ) -> dict[str, tuple[float, int]]:
    """Krippendorff's ordinal alpha per criterion over a raters × items table."""
    raters = sorted({r for _, _, r, _ in ratings})
    items = sorted({i for _, i, _, _ in ratings})
    column = {item: n for n, item in enumerate(items)}
    row = {rater: n for n, rater in enumerate(raters)}
    out: dict[str, tuple[float, int]] = {}
    counts: dict[Item, int] = defaultdict(int)
    for _, item, _, _ in ratings:
        counts[item] += 1
    pairable = sum(1 for c in counts.values() if c >= 2)
    for key in CRITERION_KEYS:
        table = np.full((len(raters), len(items)), np.nan)
        for _, item, rater, scores in ratings:
            table[row[rater], column[item]] = scores[key]
        alpha = krippendorff_alpha(table, "ordinal") if items else math.nan
        out[key] = (alpha, pairable)
    return out


def build_report(project: Project, sample: str | None = None, *, indicators: bool = True,
                 embedder: Embedder | None = None,
                 no_embedder_reason: str = "no embedding vectors were given") -> QualityReport:
    ratings = finished_ratings(project, sample)
    means, datasets, counts = item_scores(ratings)
    rows: dict[str, dict[str, Cell]] = {}
    for dataset in sorted(set(datasets.values())):
        items = [i for i, d in datasets.items() if d == dataset]
        row: dict[str, Cell] = {}
        for key in [*CRITERION_KEYS, MEAN]:
            ci = mean_ci([means[i][key] for i in items])
            row[key] = Cell(
                to_percent(ci.mean),
                None if ci.low is None else to_percent(ci.low),
                None if ci.high is None else to_percent(ci.high),
                ci.n,
                sum(counts[i] for i in items),
            )
        rows[dataset] = row
    report = QualityReport(sample, rows, agreement(ratings))
    if not ratings:
        report.notes.append("No finished ratings yet.")
    if indicators and means:
        result: IndicatorResult = compute_indicators(project, sorted(means), embedder,
                                                     no_embedder_reason)
        report.correlations = correlate(result.values, means, [*CRITERION_KEYS, MEAN])
        report.notes.extend(result.notes)
    if any(not cell.reliable for row in rows.values() for cell in row.values()):
        report.notes.append(UNRELIABLE_CELL_NOTE)
    if any(rho is not None and not rho_reliable(n)
           for per in report.correlations.values() for rho, n in per.values()):
        report.notes.append(UNRELIABLE_RHO_NOTE)
    return report


def indicator_label(name: str) -> str:
    return INDICATOR_NAMES.get(name, name)
