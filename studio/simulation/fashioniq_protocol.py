"""Fashion IQ's evaluation protocol, as its papers report it.

One split (``val`` by default, the official protocol), each category on its own: every
captioned pair with a target is a query (reference image + its two captions joined as
"c1 and c2"), searched in that category's gallery — exactly the images its split file
lists (``gallery_members``), the reference kept in the gallery as Fashion IQ does. The
table gives Recall@10 and Recall@50 in percent per category with the number of queries
and the gallery size, their average over categories, and the leaderboard score
(R@10 + R@50) / 2.

A pair whose reference or target has no vector (its image file is missing, or the index
was built before the import) cannot be evaluated; such pairs are counted, never scored
as misses. A category with no evaluable pair raises one ``StudioError`` saying which and
why, so nothing half-measured is printed or stored.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from studio.errors import StudioError
from studio.exporters.common import ExportedPair, iter_pairs
from studio.jobs import CancelToken, ProgressCallback, no_progress
from studio.sessions.setup import SessionContext
from studio.sessions.strategies import TurnInput, rerank
from studio.stopped_runs import mark_stopped, should_stop
from studio.store.galleries import gallery as gallery_ids

if TYPE_CHECKING:
    from studio.experiments.query_log import QueryLog

KS = (10, 50)
BATCH = 128


class NothingToEvaluate(StudioError):
    """No query of the asked split/category can be evaluated; the message says why."""


def joined_captions(captions: Sequence[str]) -> str:
    """Fashion IQ's convention for a pair's two captions: "c1 and c2"."""
    return " and ".join(text.strip().rstrip(".") for text in captions if text.strip())


@dataclass
class CategoryResult:
    category: str
    ranks: list[int | None]
    gallery: int
    skipped: int
    stopped: bool = False  # a cancel ended it after the batches in ``ranks``

    def recall(self, k: int) -> float:
        hits = sum(1 for rank in self.ranks if rank is not None and rank <= k)
        return 100.0 * hits / len(self.ranks)


def evaluate_fashioniq(
    context: SessionContext,
    split: str = "val",
    category: str | None = None,
    *,
    strategy: str = "sum",
    source: str | None = None,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
    log: QueryLog | None = None,
    keep_partial: bool = False,
) -> dict[str, Any]:
    """The paper's table for one split; see the module docstring. ``log`` keeps every
    query's rank and top results (``studio.experiments.query_log``). ``keep_partial``: a
    cancel ends the run after the batch under way, the table over the queries (and
    categories) done and marked stopped (``studio.stopped_runs``)."""
    cancel = cancel or CancelToken()
    by_category = _queries(context, split, category, source)
    total = sum(len(pairs) for pairs in by_category.values())
    done = 0
    results: list[CategoryResult] = []
    stopped = False
    for name, pairs in sorted(by_category.items()):
        finished = sum(len(r.ranks) for r in results)
        if should_stop(cancel, keep_partial, finished):
            stopped = True
            break

        def report(in_category: int, name: str = name, before: int = done) -> None:
            progress(before + in_category, total, f"{name}/{split}")

        try:
            result = _evaluate_category(context, name, split, pairs, strategy, cancel, log,
                                        report, keep_partial=keep_partial, before=finished)
        except NothingToEvaluate as error:
            if category is None and len(by_category) > 1:
                others = ", ".join(c for c in sorted(by_category) if c != name)
                raise NothingToEvaluate(
                    f"{error} The average needs every category; evaluate the others one "
                    f"by one with --category ({others})."
                ) from error
            raise
        if result.ranks:
            results.append(result)
        done += len(pairs)
        if result.stopped:
            stopped = True
            break
    if stopped:
        return mark_stopped(_report(context, split, strategy, results),
                            sum(len(r.ranks) for r in results), total)
    return _report(context, split, strategy, results)


def _queries(
    context: SessionContext, split: str, category: str | None, source: str | None
) -> dict[str, list[ExportedPair]]:
    by_category: dict[str, list[ExportedPair]] = {}
    seen_split = False
    for pair in iter_pairs(context.project, source):
        if pair.split != split or not pair.category:
            continue
        seen_split = True
        if category is not None and pair.category != category:
            continue
        if pair.target_id and pair.captions:
            by_category.setdefault(pair.category, []).append(pair)
    where = f"Fashion IQ {category + '/' if category else ''}{split}"
    if not by_category:
        if not seen_split:
            why = "the project has no pairs of this split (import its caption files first)"
        elif split == "test" or category is None:
            why = "no captioned pair has a target (test files carry none)"
        else:
            why = f"there is no pair of category '{category}' in this split"
        raise NothingToEvaluate(f"{where}: nothing to evaluate, {why}.")
    return by_category


def _evaluate_category(
    context: SessionContext,
    category: str,
    split: str,
    pairs: list[ExportedPair],
    strategy: str,
    cancel: CancelToken,
    log: QueryLog | None = None,
    progress: Callable[[int], None] | None = None,
    *,
    keep_partial: bool = False,
    before: int = 0,
) -> CategoryResult:
    """One category's ranks; ``progress(queries done in it)`` after each batch. Stopped
    (``keep_partial``, ``before`` queries done in earlier categories), it returns the
    batches done, ``stopped`` set."""
    from studio.embeddings import cached_vectors

    index = context.index
    project = context.project
    members = gallery_ids(project, category, split)
    where = f"Fashion IQ {category}/{split}"
    if not members:
        raise NothingToEvaluate(
            f"{where}: nothing to evaluate, the category has no gallery "
            f"(import image_splits/split.{category}.{split}.json)."
        )
    allowed = np.asarray(
        sorted(p for p in (index.position(i) for i in members) if p is not None), dtype=np.int64
    )
    references = sorted({pair.reference_id for pair in pairs})
    records = [r for r in (project.image(i) for i in references) if r is not None]
    ids, vectors = cached_vectors(project, index.model, records)
    vector_of = dict(zip(ids, vectors, strict=True))
    usable = [
        p
        for p in pairs
        if p.reference_id in vector_of and index.position(p.target_id or "") is not None
    ]
    if not usable or not len(allowed):
        raise NothingToEvaluate(f"{where}: nothing to evaluate, {_why(context, pairs)}.")
    composer = context.strategy(strategy)
    ranks: list[int | None] = []
    depth = min(len(allowed), max(max(KS), log.keep_top if log else 0))
    for start in range(0, len(usable), BATCH):
        if should_stop(cancel, keep_partial, before + len(ranks)):
            return CategoryResult(category, ranks, len(allowed), 0, stopped=True)
        batch = usable[start : start + BATCH]
        texts = [joined_captions([c["text"] for c in p.captions]) for p in batch]
        text_vectors = index.text_vectors(texts)
        queries = [
            composer.compose(
                [TurnInput(vector_of[p.reference_id], vector, context.read_text_facets(text))]
            )
            for p, text, vector in zip(batch, texts, text_vectors, strict=True)
        ]
        # Plain queries are searched together (one matrix product); a query with facet
        # constraints re-ranks every candidate's score, so it takes the full ranking.
        plain = [n for n, q in enumerate(queries) if not q.constraints]
        orders: dict[int, list[str]] = {}
        scored: dict[int, Any] = {}
        if plain:
            found, found_scores = index.index.search(
                np.stack([queries[n].vector for n in plain]), depth, allowed_ids=allowed
            )
            for n, row, row_scores in zip(plain, found, found_scores, strict=True):
                orders[n] = [index.image_ids[int(i)] or "" for i in row if i >= 0]
                scored[n] = row_scores[row >= 0]
        for n, query in enumerate(queries):
            if n not in orders:
                positions, scores = index.rank_all(query.vector, allowed)
                ids = [index.image_ids[int(i)] or "" for i in positions]
                orders[n], scored[n] = rerank(ids, scores, context.facets, query.constraints)
        for n, pair in enumerate(batch):
            top = orders[n][:depth]
            rank = top.index(pair.target_id) + 1 if pair.target_id in top else None
            ranks.append(rank)
            if log is not None:
                log.add(str(pair.id), category=category, reference=pair.reference_id,
                        target=pair.target_id, texts=[c["text"] for c in pair.captions],
                        ranks=[rank], top_ids=top, top_scores=scored[n][:depth])
        if progress is not None:
            progress(min(start + BATCH, len(usable)))
    return CategoryResult(category, ranks, len(allowed), len(pairs) - len(usable))


def _why(context: SessionContext, pairs: list[ExportedPair]) -> str:
    """Why none of ``pairs`` has both vectors: missing image files, or no index entries."""
    wanted = {i for p in pairs for i in (p.reference_id, p.target_id) if i}
    missing = 0
    for image_id in wanted:
        record = context.project.image(image_id)
        missing += record is None or record.missing
    if missing == len(wanted):
        return f"none of its {len(wanted)} images has an image file (import them with --images)"
    return (
        f"its images are not in the index for model '{context.model_name}' "
        f"({missing} of {len(wanted)} image files missing; run 'cir-studio index build')"
    )


def _report(
    context: SessionContext, split: str, strategy: str, results: list[CategoryResult]
) -> dict[str, Any]:
    categories = {
        r.category: {
            "R@10": round(r.recall(10), 4),
            "R@50": round(r.recall(50), 4),
            "queries": len(r.ranks),
            "gallery": r.gallery,
        }
        for r in results
    }
    average = {
        f"R@{k}": round(sum(c[f"R@{k}"] for c in categories.values()) / len(categories), 4)
        for k in KS
    }
    average["score"] = round((average["R@10"] + average["R@50"]) / 2, 4)
    return {
        "split": split,
        "categories": categories,
        "average": average,
        "model": context.model_name,
        "strategy": strategy,
        "skipped_without_vectors": {r.category: r.skipped for r in results},
    }


def official_json(report: dict[str, Any]) -> dict[str, Any]:
    """The ``--json`` file: split, categories and average, nothing else."""
    return {key: report[key] for key in ("split", "categories", "average")}


def table(report: dict[str, Any]) -> str:
    """The paper's table: R@10 and R@50 (%) per category, average, score."""
    lines = [
        f"Fashion IQ {report['split']} · model {report['model']} · strategy "
        f"{report['strategy']} · reference kept in the gallery",
        f"{'category':<10} {'R@10':>7} {'R@50':>7} {'queries':>8} {'gallery':>8}",
    ]
    for name, row in report["categories"].items():
        lines.append(
            f"{name:<10} {row['R@10']:>7.2f} {row['R@50']:>7.2f} "
            f"{row['queries']:>8} {row['gallery']:>8}"
        )
    average = report["average"]
    lines.append(f"{'average':<10} {average['R@10']:>7.2f} {average['R@50']:>7.2f}")
    lines.append(f"score (R@10 + R@50) / 2 = {average['score']:.2f}")
    skipped = {k: v for k, v in report["skipped_without_vectors"].items() if v}
    if skipped:
        lines.append(
            "not evaluated (reference or target image without a vector): "
            + ", ".join(f"{k} {v}" for k, v in skipped.items())
        )
    return "\n".join(lines)
