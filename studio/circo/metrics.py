"""CIRCO's metrics exactly as the authors' evaluation server computes them.

For a query with ground truths G and a ranking r (best first):

- precision at position i counts only positions holding a ground truth:
  ``p_i = (#ground truths in r[:i]) / i`` where ``r[i-1]`` is in G, else 0;
- ``AP@K = sum(p_1 … p_K) / min(|G|, K)`` — divided by min(K, number of ground truths),
  not by the number found, so missing a ground truth costs;
- ``Recall@K`` is 1 when the one named target (the image the caption was written for)
  is in ``r[:K]``;
- mAP@10 per semantic aspect averages AP@10 over the queries that have that aspect.

Means are over the queries of the submission. A submission must give every query of the
split exactly once (the server checks the keys are all the query ids) and no ranking may
list an image twice (the server refuses duplicates).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from studio.errors import StudioError

KS = (5, 10, 25, 50)
TOP = 50
ASPECT_K = 10


class SubmissionError(StudioError):
    """A submission the authors' evaluation would refuse; the message says which query."""


@dataclass(frozen=True)
class Query:
    """What scoring needs from one CIRCO entry."""

    id: int
    target: int
    ground_truths: tuple[int, ...]
    aspects: tuple[str, ...] = ()

    @classmethod
    def from_entry(cls, entry: Mapping[str, Any]) -> Query:
        return cls(
            id=int(entry["id"]),
            target=int(entry["target_img_id"]),
            ground_truths=tuple(int(i) for i in entry["gt_img_ids"]),
            aspects=tuple(entry.get("semantic_aspects", ())),
        )


def average_precision(ranking: Sequence[int], truths: Sequence[int], k: int) -> float:
    """AP@k of one ranking as the authors define it (see the module docstring)."""
    wanted = set(truths)
    found = 0
    total = 0.0
    for position, image_id in enumerate(ranking[:k], start=1):
        if image_id in wanted:
            found += 1
            total += found / position
    return total / min(len(truths), k)


def score(
    queries: Sequence[Query], predictions: Mapping[int, Sequence[int]], ks: Sequence[int] = KS
) -> dict[str, Any]:
    """mAP@K, Recall@K (in percent) and mAP@10 per semantic aspect over ``predictions``."""
    by_id = {query.id: query for query in queries}
    aps: dict[int, list[float]] = {k: [] for k in ks}
    recalls: dict[int, list[float]] = {k: [] for k in ks}
    aspects: dict[str, list[float]] = {}
    for query_id, ranking in predictions.items():
        query = by_id[query_id]
        for k in ks:
            aps[k].append(average_precision(ranking, query.ground_truths, k))
            recalls[k].append(float(query.target in ranking[:k]))
        at10 = average_precision(ranking, query.ground_truths, ASPECT_K)
        for aspect in query.aspects:
            aspects.setdefault(aspect, []).append(at10)
    count = len(predictions)
    names = [*SEMANTIC_ORDER, *sorted(set(aspects) - set(SEMANTIC_ORDER))]
    return {
        "queries": count,
        "mAP": {str(k): _percent(aps[k]) for k in ks},
        "recall": {str(k): _percent(recalls[k]) for k in ks},
        "semantic_mAP@10": {name: _percent(aspects.get(name, [])) for name in names},
        "semantic_queries": {name: len(aspects.get(name, [])) for name in names},
    }


SEMANTIC_ORDER = (
    "cardinality",
    "addition",
    "negation",
    "direct_addressing",
    "compare_change",
    "comparative_statement",
    "statement_with_conjunction",
    "spatial_relations_background",
    "viewpoint",
)


def _percent(values: list[float]) -> float | None:
    """Mean in percent; None (JSON null) when no query has the figure, never NaN."""
    return 100.0 * sum(values) / len(values) if values else None


def read_submission(data: Any, query_ids: Sequence[int], where: str) -> dict[int, list[int]]:
    """A submission (query id → ranked image ids) checked as the server checks it.

    Keys must be exactly the split's query ids (the server asserts they are all of them),
    each ranking a list of image ids with no image twice (the server raises on duplicates).
    Rankings longer than 50 are scored as the server scores them (only the top K counts).
    """
    if not isinstance(data, dict):
        raise SubmissionError(
            f"{where}: expected a JSON object mapping query ids to lists of image ids, found "
            f"{type(data).__name__}"
        )
    predictions: dict[int, list[int]] = {}
    for key, ranking in data.items():
        try:
            query_id = int(key)
        except (TypeError, ValueError):
            raise SubmissionError(f"{where}: key {key!r} is not a query id") from None
        if query_id in predictions:
            raise SubmissionError(f"{where}: query {query_id} is given twice")
        if not isinstance(ranking, list) or not all(_is_image_id(i) for i in ranking):
            raise SubmissionError(
                f"{where}: query {key}: expected a list of image ids, found {ranking!r:.100}"
            )
        if len(set(ranking)) != len(ranking):
            raise SubmissionError(
                f"{where}: query {key} has duplicate predictions; each image may appear once"
            )
        predictions[query_id] = [int(i) for i in ranking]
    expected = set(query_ids)
    missing = sorted(expected - set(predictions))
    unknown = sorted(set(predictions) - expected)
    if missing or unknown:
        parts = []
        if missing:
            parts.append(f"{len(missing)} queries missing (first {missing[:5]})")
        if unknown:
            parts.append(f"{len(unknown)} unknown query ids (first {unknown[:5]})")
        raise SubmissionError(
            f"{where}: the keys must be all the query ids of the split: {'; '.join(parts)}"
        )
    return predictions


def _is_image_id(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return value >= 0
    return isinstance(value, str) and value.isdigit()
