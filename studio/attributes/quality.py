"""How good are suggestions? Precision and recall against what people decided.

With review, truth is partial: a suggestion nobody decided on is neither right nor
wrong, so precision counts only decided suggestions (accepted = true positive, rejected
= false positive). Recall is the share of accepted attributes the source suggested, on
images it ran on and someone reviewed. With a complete truth (the demo catalog) every
attribute not in the truth counts as rejected. Counts are pooled (micro-averaged) per
attribute, per type and overall.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from studio.attributes.query import reviewed, suggestions
from studio.attributes.vocabulary import load_vocabulary
from studio.store import Project


@dataclass
class Counts:
    tp: int = 0
    fp: int = 0
    fn: int = 0

    @property
    def precision(self) -> float | None:
        judged = self.tp + self.fp
        return self.tp / judged if judged else None

    @property
    def recall(self) -> float | None:
        relevant = self.tp + self.fn
        return self.tp / relevant if relevant else None

    def to_json(self) -> dict[str, object]:
        return {"tp": self.tp, "fp": self.fp, "fn": self.fn,
                "precision": self.precision, "recall": self.recall}


@dataclass
class QualityReport:
    images: int = 0
    overall: Counts = field(default_factory=Counts)
    per_type: dict[str, Counts] = field(default_factory=dict)
    per_attribute: dict[str, Counts] = field(default_factory=dict)

    def to_json(self) -> dict[str, object]:
        return {
            "images": self.images,
            "overall": self.overall.to_json(),
            "per_type": {k: v.to_json() for k, v in sorted(self.per_type.items())},
            "per_attribute": {k: v.to_json() for k, v in sorted(self.per_attribute.items())},
        }


def precision_recall(
    predicted: Mapping[str, set[str]],
    accepted: Mapping[str, set[str]],
    types: Mapping[str, str],
    rejected: Mapping[str, set[str]] | None = None,
) -> QualityReport:
    """Score ``predicted`` on the images present in both it and ``accepted``.

    ``rejected=None`` means the truth is complete: whatever is not accepted is wrong.
    Attributes missing from ``types`` are grouped under the type "unknown".
    """
    report = QualityReport()

    def bump(name: str, kind: str) -> None:
        for counts in (
            report.overall,
            report.per_type.setdefault(types.get(name, "unknown"), Counts()),
            report.per_attribute.setdefault(name, Counts()),
        ):
            setattr(counts, kind, getattr(counts, kind) + 1)

    for image_id in sorted(predicted.keys() & accepted.keys()):
        report.images += 1
        guessed, true = predicted[image_id], accepted[image_id]
        false = None if rejected is None else rejected.get(image_id, set())
        for name in guessed:
            if name in true:
                bump(name, "tp")
            elif false is None or name in false:
                bump(name, "fp")
        for name in true - guessed:
            bump(name, "fn")
    return report


def mean_precision_recall_at_k(
    predicted: Mapping[str, set[str]], truth: Mapping[str, set[str]], k: int
) -> tuple[float, float]:
    """Per-image precision@k (hits / k) and recall@k (hits / |truth|), averaged over images."""
    images = [i for i in predicted if truth.get(i)]
    if not images:
        return 0.0, 0.0
    hits = [len(predicted[i] & truth[i]) for i in images]
    precision = sum(h / k for h in hits) / len(images)
    recall = sum(h / len(truth[i]) for h, i in zip(hits, images, strict=True)) / len(images)
    return precision, recall


def suggestion_quality(project: Project, source: str = "model", model: str = "") -> QualityReport:
    """Quality of one source's suggestions against the project's review decisions."""
    decisions = reviewed(project)
    types = {entry.name: entry.type for entry in load_vocabulary(project)}
    return precision_recall(
        suggestions(project, source, model),
        {i: acc for i, (acc, _) in decisions.items()},
        types,
        rejected={i: rej for i, (_, rej) in decisions.items()},
    )
