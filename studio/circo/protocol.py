"""Ranking CIRCO queries with the studio's strategies, and scoring them the authors' way.

A query is the reference image and the relative caption, composed by the chosen strategy
(``sum`` is the zero-shot baseline), searched in the whole gallery of COCO unlabeled
images with the reference *kept* (the authors' and SEARLE's evaluation do not remove
it). The top 50 ids per query form a submission, scored by ``studio.circo.metrics``
exactly as the authors' server scores one, so ``evaluate circo`` on the model and on a
submission file are the same figures. A query whose reference has no vector (its file
is missing) is searched by its caption alone and counted, so every query keeps its key,
as the server requires.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from studio.circo.metrics import TOP, Query, SubmissionError, read_submission, score
from studio.errors import StudioError
from studio.exporters.common import ExportedPair, iter_pairs
from studio.importers.circo import GALLERY, SOURCE, is_hidden_split
from studio.jobs import CancelToken, ProgressCallback, no_progress
from studio.sessions.strategies import TurnInput, rerank
from studio.stopped_runs import mark_stopped, should_stop
from studio.store import Project
from studio.store.galleries import gallery as gallery_ids

if TYPE_CHECKING:  # sessions.setup imports the exporters, which import this module
    from studio.experiments.query_log import QueryLog
    from studio.sessions.setup import SessionContext

BATCH = 128


def circo_pairs(project: Project, split: str) -> list[ExportedPair]:
    """The split's CIRCO queries in file order (every status: the query is the dataset's)."""
    pairs = [
        p
        for p in iter_pairs(project, SOURCE, ("draft", "submitted", "accepted", "rejected"))
        if p.split == split
    ]
    if not pairs:
        raise StudioError(
            f"CIRCO {split}: the project has no queries of this split; import "
            f"annotations/{split}.json with 'cir-studio import circo'."
        )
    return pairs


def query_text(pair: ExportedPair) -> str:
    """The relative caption: an edited (submitted/accepted) one, else the file's."""
    for caption in pair.captions:
        if caption["status"] in ("submitted", "accepted"):
            return str(caption["text"])
    return str(pair.extra.get("relative_caption", ""))


def scored_queries(pairs: list[ExportedPair], split: str) -> list[Query]:
    if is_hidden_split(split) or any("gt_img_ids" not in p.extra for p in pairs):
        raise StudioError(
            f"CIRCO {split}: its ground truth is not in the files (the authors keep the test "
            "ground truth on their server); write a submission with 'cir-studio export "
            f"circo-submission --split {split}' and send it to circo.micc.unifi.it."
        )
    return [Query.from_entry(p.extra) for p in pairs]


def rank_circo(
    context: SessionContext,
    pairs: list[ExportedPair],
    strategy: str = "sum",
    k: int = TOP,
    *,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
    log: QueryLog | None = None,
    keep_partial: bool = False,
) -> tuple[dict[int, list[int]], int, int]:
    """Top ``k`` image ids per query id, how many were queried by caption alone, and the
    number of gallery images searched. ``log`` keeps each query's ranks (the named
    target's, and each ground truth's) and top results as it goes. ``keep_partial``: a
    cancel ends the ranking after the batch under way with the queries done."""
    from studio.embeddings import cached_vectors

    cancel = cancel or CancelToken()
    project, index = context.project, context.index
    members = gallery_ids(project, "", GALLERY)
    allowed = np.asarray(
        sorted(p for p in (index.position(i) for i in members) if p is not None), dtype=np.int64
    )
    if not len(allowed):
        raise StudioError(
            f"CIRCO: none of the {len(members)} gallery images is in the index for model "
            f"'{context.model_name}' (image files missing, or run 'cir-studio index build')."
        )
    records = [r for r in (project.image(i) for i in sorted({p.reference_id for p in pairs})) if r]
    ids, vectors = cached_vectors(project, index.model, records)
    vector_of = dict(zip(ids, vectors, strict=True))
    composer = context.strategy(strategy)
    depth = min(k, len(allowed))
    rankings: dict[int, list[int]] = {}
    for start in range(0, len(pairs), BATCH):
        if should_stop(cancel, keep_partial, len(rankings)):
            break
        batch = pairs[start : start + BATCH]
        texts = [query_text(p) for p in batch]
        text_vectors = index.text_vectors(texts)
        for pair, text, vector in zip(batch, texts, text_vectors, strict=True):
            query = composer.compose(
                [TurnInput(vector_of.get(pair.reference_id), vector,
                           context.read_text_facets(text))]
            )
            if query.constraints:
                positions, scores = index.rank_all(query.vector, allowed)
                names = [index.image_ids[int(i)] or "" for i in positions]
                order, order_scores = rerank(names, scores, context.facets, query.constraints)
                order, order_scores = order[:depth], order_scores[:depth]
            else:
                found, found_scores = index.index.search(np.atleast_2d(query.vector), depth,
                                                         allowed_ids=allowed)
                order = [index.image_ids[int(i)] or "" for i in found[0] if i >= 0]
                order_scores = found_scores[0][found[0] >= 0]
            rankings[int(pair.extra["id"])] = [int(name) for name in order if name.isdigit()]
            if log is not None:
                _log_query(log, pair, text, rankings[int(pair.extra["id"])], order,
                           order_scores)
        progress(min(start + BATCH, len(pairs)), len(pairs), "ranking CIRCO queries")
    by_caption = sum(1 for p in pairs if p.reference_id not in vector_of)
    return rankings, by_caption, len(allowed)


def _log_query(log: QueryLog, pair: ExportedPair, text: str, ranking: list[int],
               order: list[str], scores: Any) -> None:
    """The named target's rank (CIRCO's Recall@K) and each ground truth's, within the top."""
    where = {image: position for position, image in enumerate(ranking, start=1)}
    truths = [int(i) for i in pair.extra.get("gt_img_ids", [])]
    target = pair.extra.get("target_img_id")
    log.add(str(pair.extra["id"]), category=pair.category, reference=pair.reference_id,
            target=pair.target_id, texts=[text], ranks=[where.get(i) for i in truths],
            rank=where.get(int(target)) if target is not None else None,
            ground_truths=[str(i) for i in truths], top_ids=order[: log.keep_top],
            top_scores=scores[: log.keep_top])


def evaluate_circo(
    context: SessionContext,
    split: str = "val",
    strategy: str = "sum",
    *,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
    log: QueryLog | None = None,
    keep_partial: bool = False,
) -> dict[str, Any]:
    """The authors' figures for the project's model and strategy on ``split``;
    ``keep_partial``: a cancel ends the run with the queries done, the figures over
    those and the report marked stopped (``studio.stopped_runs``)."""
    pairs = circo_pairs(context.project, split)
    queries = scored_queries(pairs, split)
    rankings, by_caption, gallery = rank_circo(context, pairs, strategy,
                                               max(TOP, log.keep_top if log else 0),
                                               progress=progress, cancel=cancel, log=log,
                                               keep_partial=keep_partial)
    report = score(queries, {key: ranking[:TOP] for key, ranking in rankings.items()})
    stopped = len(rankings) < len(pairs)
    result = {
        "protocol": "circo", "split": split, "strategy": strategy, "model": context.model_name,
        **report, "queried_by_caption_only": by_caption,
        "gallery": gallery,
        "label": f"CIRCO {split} · {strategy} · mAP@10 {_figure(report['mAP']['10'])}",
    }
    return mark_stopped(result, len(rankings), len(pairs)) if stopped else result


def evaluate_submission(project: Project, split: str, path: Path,
                        log: QueryLog | None = None) -> dict[str, Any]:
    """The authors' figures for a submission file (query id → top-50 ids); no model."""
    pairs = circo_pairs(project, split)
    queries = scored_queries(pairs, split)
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise SubmissionError(f"{path}: malformed JSON: {error.msg} at line {error.lineno}") \
            from None
    predictions = read_submission(data, [q.id for q in queries], str(path))
    if log is not None:  # a submission has ranked ids, no scores
        for pair in pairs:
            ranking = [int(i) for i in predictions.get(int(pair.extra["id"]), [])]
            _log_query(log, pair, query_text(pair), ranking, [str(i) for i in ranking], [])
    report = score(queries, predictions)
    return {
        "protocol": "circo", "split": split, "predictions": str(path), **report,
        "label": f"CIRCO {split} · {Path(path).name} · mAP@10 {_figure(report['mAP']['10'])}",
    }


def _figure(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def table(report: dict[str, Any]) -> str:
    """The authors' printout: mAP@K, Recall@K, then mAP@10 per semantic aspect (percent)."""
    lines = [f"CIRCO {report['split']}: {report['queries']} queries"
             + (f", model {report['model']}, strategy {report['strategy']}"
                if "model" in report else f", submission {report['predictions']}")]
    lines += [f"mAP@{k}: {_figure(v)}" for k, v in report["mAP"].items()]
    lines += [f"Recall@{k}: {_figure(v)}" for k, v in report["recall"].items()]
    counts = report["semantic_queries"]
    lines += [f"Semantic mAP@10 for aspect '{name}': {_figure(value)} ({counts[name]} queries)"
              for name, value in report["semantic_mAP@10"].items()]
    if report.get("queried_by_caption_only"):
        lines.append(f"{report['queried_by_caption_only']} queries searched by caption alone "
                     "(reference image missing)")
    return "\n".join(lines)
