"""The five rating criteria, their short names and the rubric a rater sees.

Scores run 1–5. The report turns a mean into a percentage with
``(mean − 1) / 4 × 100``, so 1 is 0 % and 5 is 100 %.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Criterion:
    key: str  # the column in ``ratings``
    name: str
    short: str  # the report's column heading
    rubric: str


CRITERIA: tuple[Criterion, ...] = (
    Criterion("accuracy", "Accuracy", "Acc",
              "The text reflects the actual differences between reference and target."),
    Criterion("historical_awareness", "Historical Awareness", "HA",
              "The text involves attributes of earlier turns (it knows the history)."),
    Criterion("granularity", "Granularity", "Gra",
              "The text gives enough detail to tell apart subtle differences."),
    Criterion("consistency", "Consistency", "Con",
              "The differences across turns are realistic and do not contradict each other."),
    Criterion("coverage", "Coverage", "Cov",
              "The text covers all major differences between reference and target."),
)
CRITERION_KEYS: tuple[str, ...] = tuple(c.key for c in CRITERIA)
SCALE = (1, 2, 3, 4, 5)
SCALE_LABELS = {1: "very poor", 2: "poor", 3: "fair", 4: "good", 5: "excellent"}
PERCENT_FORMULA = "percentage = (mean score − 1) / 4 × 100  (1 → 0 %, 5 → 100 %)"


def to_percent(score: float) -> float:
    """A 1–5 score (or mean, or interval end) on the 0–100 % scale."""
    return (score - 1.0) / 4.0 * 100.0
