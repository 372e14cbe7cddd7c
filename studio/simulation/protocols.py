"""The standard single-turn protocols for imported datasets.

- **Fashion IQ**: see ``fashioniq_protocol`` (one split, per category, gallery = the
  category's split file, the reference *kept* in the gallery; Recall@10 and Recall@50).
- **CIRR**: gallery = the split's images with the reference *removed*; Recall@1/5/10/50,
  and Recall_subset@1/2/3, the rank of the target among the query's ``img_set`` members
  (the reference excluded).

Both use the session strategies, so "history" adds the caption's facet constraints and
"sum" is the plain zero-shot baseline.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from studio.errors import StudioError
from studio.exporters.common import ExportedPair, iter_pairs
from studio.jobs import CancelToken, ProgressCallback, no_progress
from studio.sessions.setup import SessionContext
from studio.sessions.strategies import TurnInput, rerank
from studio.simulation.fashioniq_protocol import NothingToEvaluate, evaluate_fashioniq
from studio.simulation.metrics import percentile, recall_at
from studio.stopped_runs import mark_stopped, should_stop

if TYPE_CHECKING:
    from studio.experiments.query_log import QueryLog

__all__ = ["evaluate_cirr", "evaluate_fashioniq"]

FASHIONIQ_KS = (10, 50)
CIRR_KS = (1, 5, 10, 50)
SUBSET_KS = (1, 2, 3)


def joined_captions(captions: list[str]) -> str:
    return " and ".join(text.strip().rstrip(".") for text in captions if text.strip())


def _rank_pairs(
    context: SessionContext,
    pairs: list[ExportedPair],
    strategy: str,
    *,
    keep_reference: bool,
    progress: ProgressCallback,
    cancel: CancelToken | None,
    log: QueryLog | None = None,
    keep_partial: bool = False,
) -> tuple[list[tuple[ExportedPair, list[str]]], bool]:
    """Each usable pair with its full ranking (best first) over its category/split gallery,
    and whether the run was stopped before its end (``keep_partial``: a cancel ends it with
    the queries done; ``studio.stopped_runs``); ``log`` keeps each query's rank and
    top results as it goes."""
    composer = context.strategy(strategy)
    index = context.index
    ranked: list[tuple[ExportedPair, list[str]]] = []
    for done, pair in enumerate(pairs, start=1):
        if should_stop(cancel, keep_partial, len(ranked)):
            return ranked, True
        text = joined_captions([c["text"] for c in pair.captions])
        try:
            reference = index.image_vector(pair.reference_id)
        except StudioError:
            continue  # the reference image is missing or unreadable: not evaluable
        query = composer.compose([TurnInput(reference, index.text_vectors([text])[0],
                                            context.read_text_facets(text))])
        gallery = context.project.count_images(category=pair.category or None,
                                               split=pair.split or None)
        hits = index.search(query.vector, k=gallery, category=pair.category or None,
                            split=pair.split or None,
                            exclude=() if keep_reference else (pair.reference_id,))[0]
        ids, scores = rerank([h.id for h in hits], [h.score for h in hits], context.facets,
                             query.constraints)
        ranked.append((pair, ids))
        if log is not None:
            rank = _rank(ids, pair.target_id or "")
            log.add(str(pair.id), category=pair.category, reference=pair.reference_id,
                    target=pair.target_id, texts=[c["text"] for c in pair.captions],
                    ranks=[rank], top_ids=ids[: log.keep_top],
                    top_scores=scores[: log.keep_top])
        progress(done, len(pairs), f"query {done} of {len(pairs)}")
    return ranked, False


def _evaluable(context: SessionContext, source: str | None) -> list[ExportedPair]:
    pairs = [p for p in iter_pairs(context.project, source) if p.target_id and p.captions]
    if not pairs:
        raise StudioError("No captioned pairs with a target to evaluate; import a dataset "
                          "(cir-studio import …) or caption some pairs first.")
    return pairs


def _rank(ids: list[str], target: str) -> int | None:
    try:
        return ids.index(target) + 1
    except ValueError:
        return None


def evaluate_cirr(
    context: SessionContext,
    strategy: str = "sum",
    source: str | None = None,
    *,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
    log: QueryLog | None = None,
    keep_partial: bool = False,
) -> dict[str, Any]:
    """CIRR's figures; ``keep_partial``: a cancel ends the run with the queries done, its
    figures over those and the report marked stopped."""
    pairs = _evaluable(context, source)
    ranked, stopped = _rank_pairs(context, pairs, strategy, keep_reference=False,
                                  progress=progress, cancel=cancel, log=log,
                                  keep_partial=keep_partial)
    if not ranked:
        split = ", ".join(sorted({p.split or "(no split)" for p in pairs}))
        raise NothingToEvaluate(
            f"CIRR {split}: nothing to evaluate, none of the {len(pairs)} pairs' reference "
            f"images has a vector for model '{context.model_name}' (image files missing, or "
            "the index was built before the import: run 'cir-studio index build')."
        )
    ranks, subset_ranks = [], []
    for pair, ids in ranked:
        ranks.append(_rank(ids, pair.target_id or ""))
        members = set(pair.extra.get("img_set", {}).get("members", [])) - {pair.reference_id}
        if members:
            subset_ranks.append(_rank([i for i in ids if i in members], pair.target_id or ""))
    size = round(sum(len(ids) for _, ids in ranked) / max(1, len(ranked)))
    report = {
        "protocol": "cirr", "strategy": strategy, "model": context.model_name,
        **{f"recall@{k}": recall_at(ranks, k).to_json() for k in CIRR_KS},
        **{f"recall_subset@{k}": recall_at(subset_ranks, k).to_json() for k in SUBSET_KS},
        "percentile": percentile(ranks, max(1, size)).to_json(),
        "queries": len(ranked), "subset_queries": len(subset_ranks),
        "skipped_without_image": 0 if stopped else len(pairs) - len(ranked),
    }
    if stopped:
        mark_stopped(report, len(ranked), len(pairs), f"CIRR · {strategy}")
    return report
