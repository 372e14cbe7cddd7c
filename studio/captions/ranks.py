"""Ranks stored with captions: what a caption found when it was last ranked, and when it is stale.

A stored rank names the model, strategy and index (``ranking.index_key``) it was computed
with and the text it was computed for. It is *stale* when any of them differs from now:
another model or strategy was chosen, the index gained or lost images, or someone edited
the caption after it was ranked. Stale ranks are still shown (marked) and can be
recomputed; they are never silently passed off as current.

Writing a rank is not a person's change, so it gets no audit row (the caption's text and
status history stay in the audit log untouched).
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from studio.captions.ranking import RankResult, RankSettings, band_of, index_key
from studio.errors import StudioError
from studio.jobs import CancelToken, ProgressCallback, no_progress
from studio.store import Project
from studio.store.database import utc_now
from studio.store.repos import ranks as ranks_repo


@dataclass(frozen=True)
class StoredRank:
    caption_id: int
    rank: int | None
    gallery_size: int
    model: str
    strategy: str
    index_key: str
    text: str
    ranked_at: str

    def stale_reasons(
        self, settings: RankSettings, current_key: str | None, caption_text: str
    ) -> list[str]:
        """Why this rank may no longer hold (empty: it is current)."""
        reasons = []
        if self.model != settings.model:
            reasons.append(
                f"ranked with model '{self.model}', the project now uses '{settings.model}'"
            )
        elif current_key is not None and self.index_key != current_key:
            reasons.append("the index changed since")
        if self.strategy != settings.strategy:
            reasons.append(f"ranked with strategy '{self.strategy}', now '{settings.strategy}'")
        if " ".join(caption_text.split()) != self.text:
            reasons.append("the caption was edited since")
        return reasons

    def describe(self) -> str:
        if self.rank is None:
            return f"Target not in the indexed gallery of {self.gallery_size:,} images"
        return f"Target rank with this caption: {self.rank:,} of {self.gallery_size:,}"

    @property
    def band(self) -> str:
        return band_of(self.rank)


def _stored(row: Any) -> StoredRank:
    return StoredRank(
        int(row[0]),
        None if row[1] is None else int(row[1]),
        int(row[2] or 0),
        row[3] or "",
        row[4] or "",
        row[5] or "",
        row[6] or "",
        row[7] or "",
    )


def _as_row(result: RankResult) -> dict[str, Any]:
    return {
        "rank": result.rank,
        "gallery_size": result.gallery_size,
        "model": result.model,
        "strategy": result.strategy,
        "index_key": result.index_key,
        "text": result.text,
    }


def save_rank(project: Project, caption_id: int, result: RankResult) -> None:
    """Keep ``result`` with the caption (replacing an older rank)."""
    ranks_repo.save_ranks(project, [(caption_id, _as_row(result))], utc_now())


def stored_rank(project: Project, caption_id: int) -> StoredRank | None:
    row = ranks_repo.stored_rank(project, caption_id)
    return None if row is None else _stored(row)


def stored_ranks(project: Project, caption_ids: Iterable[int] | None = None) -> list[StoredRank]:
    """Every ranked caption (or those of ``caption_ids``), in caption id order."""
    rows = ranks_repo.stored_ranks(project)
    wanted = None if caption_ids is None else set(caption_ids)
    return [_stored(r) for r in rows if wanted is None or int(r[0]) in wanted]


def stale_count(project: Project, settings: RankSettings) -> tuple[int, int]:
    """(stale, ranked) over live captions, for the "recompute" offer."""
    key = index_key(project, settings.model)
    rows = ranks_repo.live_ranks_with_text(project)
    stale = sum(1 for row, text in rows if _stored(row).stale_reasons(settings, key, text))
    return stale, len(rows)


def rank_summary(ranks: Iterable[int | None], gallery_sizes: Iterable[int] = ()) -> dict[str, Any]:
    """Median rank, share in the top 10 and top 50, and how many were not found."""
    values = list(ranks)
    found = [r for r in values if r is not None]
    sizes = list(gallery_sizes)
    if not values:
        return {"captions": 0, "median_rank": None, "top10": None, "top50": None, "not_found": 0}
    return {
        "captions": len(values),
        "median_rank": statistics.median(found) if found else None,
        "top10": round(sum(r <= 10 for r in found) / len(values), 4),
        "top50": round(sum(r <= 50 for r in found) / len(values), 4),
        "not_found": len(values) - len(found),
        **({"mean_gallery": round(statistics.mean(sizes), 1)} if sizes else {}),
    }


LOG_BINS = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000, 100000)


def log_histogram(ranks: Iterable[int | None]) -> list[tuple[str, int]]:
    """Ranks counted in log-spaced bins ("1", "2–4", "5–9", … , "≥100000", "not found")."""
    edges = list(LOG_BINS)
    counts = [0] * (len(edges) + 1)
    for rank in ranks:
        if rank is None:
            counts[-1] += 1
            continue
        slot = len(edges) - 1
        for i in range(len(edges) - 1):
            if rank < edges[i + 1]:
                slot = i
                break
        counts[slot] += 1
    labels = [
        str(lo) if hi - lo == 1 else f"{lo}–{hi - 1}"
        for lo, hi in zip(edges, edges[1:], strict=False)
    ]
    labels += [f"≥{edges[-1]}", "not found"]
    return [(label, count) for label, count in zip(labels, counts, strict=True)]


def ranks_by_annotator(project: Project) -> dict[str, list[int | None]]:
    """Each author's stored ranks over their submitted and accepted captions."""
    by_author: dict[str, list[int | None]] = {}
    for name, rank in ranks_repo.live_ranks_by_author(project):
        by_author.setdefault(name, []).append(rank)
    return by_author


def per_annotator(project: Project) -> dict[str, dict[str, Any]]:
    """For each author: summary of their live captions' stored ranks and the histogram."""
    return {
        name: {**rank_summary(ranks), "histogram": log_histogram(ranks)}
        for name, ranks in ranks_by_annotator(project).items()
    }


def rank_captions(
    project: Project,
    model: str | None = None,
    strategy: str | None = None,
    source: str | None = None,
    device: str | None = None,
    *,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
) -> dict[str, Any]:
    """Rank every submitted or accepted caption (of pairs from ``source``) and keep the ranks.

    Model and strategy default to the project's rank settings. Returns per-caption ranks,
    a summary and the per-annotator distribution.
    """
    from studio.captions.ranking import CaptionRanker, pair_query, rank_settings

    settings = rank_settings(project)
    model, strategy = model or settings.model, strategy or settings.strategy
    rows = ranks_repo.captions_to_rank(project, source)
    if not rows:
        raise StudioError(
            "No submitted captions of pairs with a target to rank"
            + (f" from source '{source}'." if source else ".")
        )
    ranker = CaptionRanker.open(project, model, strategy, device, cancel=cancel)
    results = []
    pairs: dict[int, Any] = {}
    for done, (caption_id, pair_id, text, author) in enumerate(rows, start=1):
        if cancel is not None and done % 20 == 0:
            cancel.raise_if_cancelled()
        if pair_id not in pairs:
            pairs[pair_id] = pair_query(project, pair_id)
        result = ranker.rank(pairs[pair_id], text)
        results.append((caption_id, author, result))
        progress(done, len(rows), f"caption {done} of {len(rows)}")
    # all ranks or none: a cancelled run changes nothing
    ranks_repo.save_ranks(
        project, [(caption_id, _as_row(result)) for caption_id, _, result in results], utc_now()
    )
    return {
        "model": model,
        "strategy": strategy,
        "index_key": ranker.index_key,
        "captions": [
            {
                "caption_id": caption_id,
                "pair_id": result.pair_id,
                "author": author,
                "text": result.text,
                "rank": result.rank,
                "gallery_size": result.gallery_size,
            }
            for caption_id, author, result in results
        ],
        "summary": rank_summary(
            [r.rank for _, _, r in results], [r.gallery_size for _, _, r in results]
        ),
        "annotators": per_annotator(project),
    }
