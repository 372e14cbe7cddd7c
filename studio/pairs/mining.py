"""Pair mining: choose a reference for target images of the same category and split.

Two methods: ``tfidf`` (Fashion IQ's title-word overlap, see ``studio.pairs.tfidf``) and
``embedding`` (nearest image neighbour through the index service, when the build has
one). Each mined pair keeps its method and score. ``count`` new pairs are spread over
the (category, split) groups in proportion to their images (a group with too few good
targets leaves its share to the best of the others), and within a group the
best-scoring targets come first. A target that already has a pair of the method is not
mined again, so running the miner twice extends the set instead of repeating it.

Two look-alike images are often each other's best reference, which would give both A→B
and B→A: one pair's differences described twice, backwards. Unless ``mirrored`` is asked
for, a mined pair whose mirror is already in the project (or better-scored in this run)
is left out.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from studio.errors import StudioError
from studio.jobs import CancelToken, ProgressCallback, no_progress
from studio.pairs.tfidf import TitleTfidf
from studio.store import Project
from studio.store.database import utc_now
from studio.store.repos import pairs as pairs_repo

METHODS = ("tfidf", "embedding")
SOURCE = "mined"


@dataclass(frozen=True)
class MinedPair:
    reference_id: str
    target_id: str
    category: str
    split: str
    score: float


@dataclass
class MiningReport:
    method: str
    added: int
    per_group: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"method": self.method, "added": self.added, "per_group": self.per_group}


def embedding_available() -> bool:
    return importlib.util.find_spec("studio.index_service") is not None


def mine_pairs(
    project: Project,
    method: str,
    count: int,
    *,
    category: str | None = None,
    split: str | None = None,
    actor: str = "miner",
    model: str | None = None,
    device: str | None = None,
    mirrored: bool = False,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
) -> MiningReport:
    """Mine up to ``count`` new pairs and store them in one transaction.

    ``model`` and ``device`` choose the embedding model (``embedding`` method only);
    ``mirrored`` keeps B→A when A→B exists (see the module doc).
    """
    cancel = cancel or CancelToken()
    if method not in METHODS:
        raise StudioError(
            f"Unknown mining method {method!r}. The available methods are {', '.join(METHODS)}."
        )
    if method == "embedding" and not embedding_available():
        raise StudioError(
            "Embedding mining needs the index service, which this build does "
            "not have; use --method tfidf."
        )
    if count < 1:
        raise StudioError("Ask for at least one pair (--count 1 or more).")
    groups = _groups(project, category, split)
    if not groups:
        raise StudioError(
            "No images with a category and split to pair (missing image files are left out)."
        )
    quotas = allocate(count, {key: len(images) for key, images in groups.items()})
    done_targets = _mined_targets(project, method)
    paired = None if mirrored else _existing_pairs(project)
    miner = None
    if method == "embedding":
        from studio.pairs.embedding_mining import EmbeddingMiner

        miner = EmbeddingMiner(project, model, device, progress, cancel)
    total = sum(len(images) for images in groups.values())
    seen = 0
    chosen: list[MinedPair] = []
    spare: list[MinedPair] = []
    for (group_category, group_split), images in groups.items():
        if miner is None:
            scored = _mine_group_tfidf(images, done_targets, cancel)
        else:
            scored = miner.mine_group(group_category, group_split, images, done_targets, cancel)
        found = [MinedPair(r, t, group_category, group_split, s) for r, t, s in scored]
        if paired is not None:
            found = _without_mirrors(found, paired)
        quota = quotas[(group_category, group_split)]
        chosen += found[:quota]
        spare += found[quota:]
        seen += len(images)
        progress(seen, total, f"{group_category}/{group_split}")
    # Groups with fewer good targets than their share leave room for the others' best.
    spare.sort(key=lambda p: (-p.score, p.category, p.split, p.target_id))
    mined = chosen + spare[: count - len(chosen)]
    return _store(project, method, mined, actor)


def allocate(count: int, sizes: dict[tuple[str, str], int]) -> dict[tuple[str, str], int]:
    """Split ``count`` over groups in proportion to ``sizes`` (largest remainder)."""
    total = sum(sizes.values())
    exact = {key: count * size / total for key, size in sizes.items()}
    quotas = {key: int(value) for key, value in exact.items()}
    leftover = count - sum(quotas.values())
    for key in sorted(exact, key=lambda k: (quotas[k] - exact[k], k))[:leftover]:
        quotas[key] += 1
    return quotas


def _groups(
    project: Project, category: str | None, split: str | None
) -> dict[tuple[str, str], list[tuple[str, str, str | None]]]:
    """(id, title, content hash) of the visible images of each (category, split)."""
    groups: dict[tuple[str, str], list[tuple[str, str, str | None]]] = {}
    for row in pairs_repo.visible_images_by_group(project, category, split):
        groups.setdefault((row[0], row[1]), []).append((row[2], row[3], row[4]))
    return {key: images for key, images in groups.items() if len(images) > 1}


def _mined_targets(project: Project, method: str) -> set[str]:
    return pairs_repo.targets_of_method(project, method)


def _existing_pairs(project: Project) -> set[frozenset[str]]:
    """Every pair of the project as an unordered set of its two images."""
    return pairs_repo.image_pairs(project)


def _without_mirrors(found: list[MinedPair], paired: set[frozenset[str]]) -> list[MinedPair]:
    """``found`` (best first) less any pair whose two images are already paired."""
    kept = []
    for pair in found:
        key = frozenset((pair.reference_id, pair.target_id))
        if key not in paired:
            paired.add(key)
            kept.append(pair)
    return kept


def _mine_group_tfidf(
    images: list[tuple[str, str, str | None]], done: set[str], cancel: CancelToken
) -> list[tuple[str, str, float]]:
    """(reference, target, score) for every new target of one group, best first."""
    model = TitleTfidf([title for _, title, _ in images])
    copies: dict[str, list[int]] = {}
    for index, (_, _, content_hash) in enumerate(images):
        if content_hash:
            copies.setdefault(content_hash, []).append(index)
    candidates = []
    for index, (image_id, _, content_hash) in enumerate(images):
        if index % 200 == 0:
            cancel.raise_if_cancelled()
        if image_id in done:
            continue
        same = copies.get(content_hash or "", [])
        best = model.best_reference(
            index, np.asarray(same, dtype=np.int64) if len(same) > 1 else None
        )
        if best is not None:
            candidates.append((images[best[0]][0], image_id, best[1]))
    candidates.sort(key=lambda c: (-c[2], c[1]))
    return candidates


def _store(project: Project, method: str, mined: list[MinedPair], actor: str) -> MiningReport:
    now = utc_now()
    per_group: dict[str, int] = {}
    with project.change(actor, "mine", "pairs", method) as record:
        added = pairs_repo.add_pairs(
            project,
            (
                {
                    "reference_id": p.reference_id,
                    "target_id": p.target_id,
                    "category": p.category,
                    "split": p.split,
                    "method": method,
                    "score": round(p.score, 6),
                    "source": SOURCE,
                    "external_key": f"{method}:{p.reference_id}>{p.target_id}",
                }
                for p in mined
            ),
            now,
        )
        for pair in mined:
            key = f"{pair.category}/{pair.split}"
            per_group[key] = per_group.get(key, 0) + 1
        record["after"] = {"added": added, "per_group": per_group}
    return MiningReport(method, added, per_group)
