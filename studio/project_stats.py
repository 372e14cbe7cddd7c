"""Project statistics shared by the Dashboard and ``cir-studio stats``."""

from __future__ import annotations

import itertools
import json
from collections import Counter
from datetime import datetime
from typing import Any

from studio.store import Project
from studio.store.repos import stats as stats_repo

ACTIVE_GAP_S = 600.0


def image_counts_by_category_split(project: Project) -> dict[str, dict[str, int]]:
    """{category: {split: image count}}, categories and splits in sorted order."""
    counts: dict[str, dict[str, int]] = {}
    for category, split, count, _ in stats_repo.images_by_group(project):
        counts.setdefault(category or "(none)", {})[split or "(none)"] = int(count)
    return counts


def pair_counts_by_category_split(project: Project) -> dict[str, dict[str, dict[str, int]]]:
    """{category: {split: {pairs, captions, gallery, missing}}} for ``cir-studio stats``.

    ``captions`` counts submitted and accepted ones; ``gallery`` is the images of that
    category and split; ``missing`` those whose file was absent when imported.
    """
    counts: dict[str, dict[str, dict[str, int]]] = {}

    def cell(category: str, split: str) -> dict[str, int]:
        per_split = counts.setdefault(category or "(none)", {})
        return per_split.setdefault(
            split or "(none)", {"pairs": 0, "captions": 0, "gallery": 0, "missing": 0}
        )

    for category, split, images, missing in stats_repo.images_by_group(project):
        cell(category, split).update(gallery=images, missing=missing)
    for category, split, pairs in stats_repo.pairs_by_group(project):
        cell(category, split)["pairs"] = pairs
    for category, split, captions in stats_repo.written_captions_by_group(project):
        cell(category, split)["captions"] = captions
    return {c: dict(sorted(s.items())) for c, s in sorted(counts.items())}


def caption_length_distribution(project: Project) -> dict[int, int]:
    """{number of words: captions} over submitted and accepted captions."""
    lengths: Counter[int] = Counter()
    for text in stats_repo.written_caption_texts(project):
        lengths[len(text.split())] += 1
    return dict(sorted(lengths.items()))


def frequent_words(project: Project, top: int = 20) -> list[tuple[str, int]]:
    """The most used caption words, filler words left out."""
    from studio.captions.flags import words
    from studio.language.lexicon import STOP_WORDS

    counts: Counter[str] = Counter()
    for text in stats_repo.written_caption_texts(project):
        counts.update(w for w in words(text) if w not in STOP_WORDS and len(w) > 1)
    return counts.most_common(top)


def captions_per_hour(times: list[datetime], max_gap_s: float = ACTIVE_GAP_S) -> float | None:
    """Throughput over active time: gaps longer than ``max_gap_s`` count as breaks.

    Each caption is charged the time since the previous one (at most ``max_gap_s``), so
    lunch does not halve the rate. None until there are a minute of work and two captions.
    """
    times = sorted(times)
    active = sum(min((b - a).total_seconds(), max_gap_s) for a, b in itertools.pairwise(times))
    if len(times) < 2 or active < 60:
        return None
    return round((len(times) - 1) / (active / 3600), 1)


def annotator_throughput(project: Project) -> list[dict[str, Any]]:
    """Per author: captions by status, and captions per hour from their submissions."""
    rows: dict[str, dict[str, Any]] = {}
    for name, status, count in stats_repo.captions_by_author_and_status(project):
        entry = rows.setdefault(
            name,
            {
                "name": name,
                "draft": 0,
                "submitted": 0,
                "accepted": 0,
                "rejected": 0,
                "per_hour": None,
            },
        )
        entry[status] = count
    times: dict[str, list[datetime]] = {}
    for actor, at in stats_repo.caption_submissions(project):
        times.setdefault(actor, []).append(datetime.fromisoformat(at))
    for name, stamps in times.items():
        if name in rows:
            rows[name]["per_hour"] = captions_per_hour(stamps)
    for entry in rows.values():
        entry["written"] = entry["submitted"] + entry["accepted"] + entry["rejected"]
    return sorted(rows.values(), key=lambda e: (-e["written"], e["name"]))


def caption_totals(project: Project) -> tuple[int, int]:
    """(captions written, drafts): a draft is not a caption yet, so the Dashboard's total
    counts it apart (an abandoned empty draft would otherwise count as work done)."""
    written = drafts = 0
    for _name, status, count in stats_repo.captions_by_author_and_status(project):
        if status == "draft":
            drafts += count
        else:
            written += count
    return written, drafts


def review_outcomes(project: Project) -> dict[str, dict[str, int]]:
    """Per reviewer: captions accepted as written, accepted after an edit, and rejected."""
    outcomes: dict[str, dict[str, int]] = {}
    for actor, action, before, after in stats_repo.caption_reviews(project):
        entry = outcomes.setdefault(actor, {"accepted": 0, "edited": 0, "rejected": 0})
        if action == "reject":
            entry["rejected"] += 1
        elif json.loads(before or "{}").get("text") != json.loads(after or "{}").get("text"):
            entry["edited"] += 1
        else:
            entry["accepted"] += 1
    return dict(sorted(outcomes.items()))
