"""Training triplets from a project: (reference image, modification text, target image).

- every submitted or accepted caption of a pair is one triplet (``captions``);
- every accepted turn of a multi-turn transaction is one (``turns``): the image it
  modifies (an earlier one after a rollback), its text, the image it leads to;
- with a drafted share, triplets drafted from images alone (``drafted``, InstructCIR's
  idea): each target paired with references chosen as the pair miner chooses them
  (``studio.pairs.mining``): the images of its category whose titles share the most
  informative words (``tfidf``) and those nearest by embedding (``embedding``), the two
  rankings taken in turn, ``per_image`` references that differ in at least one attribute;
  the text written from those differences in the transaction builder's voice: the
  learned captioner's (annotators' own words) by default, or the catalog phrases ("is
  blue with long sleeves").

Why the miner's choice: the pairs people caption, and retrieve with, are mined pairs.
Drafts made only from embedding neighbours differing in one to three attributes trained
combiners that lost R@10 to the image + text sum on human-phrased captions of mined val
pairs; the same count drafted on the miner's train pairs beat it (BENCHMARKS, zero-shot).

A triplet's split is its target's. Train-split triplets train; val-split triplets decide
early stopping. Drafts are made from train-split images only.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

import numpy as np

from studio.errors import StudioError
from studio.exporters.common import iter_pairs
from studio.language import voices
from studio.pairs.tfidf import TitleTfidf
from studio.store import Project
from studio.store.repos import transactions as transactions_repo
from studio.transactions.attribute_data import load_attribute_data

Origin = str  # "caption" | "turn" | "drafted"
DRAFT_NEIGHBOURS = 30  # of each ranking, per target: deeper references are poor pairs


@dataclass(frozen=True)
class Triplet:
    reference_id: str
    text: str
    target_id: str
    split: str
    origin: Origin


def annotated_triplets(project: Project) -> list[Triplet]:
    """Triplets from submitted and accepted captions and from accepted transaction turns."""
    splits = {image.id: image.split for image in project.iter_images()}
    out: list[Triplet] = []
    for pair in iter_pairs(project):
        if not pair.target_id:
            continue
        for caption in pair.captions:
            text = " ".join(str(caption["text"]).split())
            if text:
                out.append(
                    Triplet(
                        pair.reference_id,
                        text,
                        pair.target_id,
                        splits.get(pair.target_id, pair.split),
                        "caption",
                    )
                )
    images = transactions_repo.all_images(project)
    for tid, index, reference, text in transactions_repo.accepted_turns(project):
        source, target = images.get((tid, reference)), images.get((tid, index))
        text = " ".join(str(text or "").split())
        if source and target and text and source != target:
            out.append(Triplet(source, text, target, splits.get(target, ""), "turn"))
    return out


def drafted_count(share: float, annotated_train: int, train_images: int,
                  per_image: int = 1) -> int:
    """How many triplets to draft so they make up ``share`` of the training set.

    With nothing annotated (or a share of 1) ``per_image`` drafts per train-split image.
    """
    if not 0.0 <= share <= 1.0:
        raise StudioError("--drafted takes a share between 0 and 1 (e.g. 0.5).")
    if per_image < 1:
        raise StudioError("--drafts-per-image must be at least 1.")
    if share == 0.0:
        return 0
    if share >= 1.0 or annotated_train == 0:
        return train_images * per_image
    return int(round(annotated_train * share / (1.0 - share)))


def draft_triplets(
    project: Project,
    count: int,
    vectors: Callable[[Sequence[str]], tuple[list[str], np.ndarray]],
    seed: int = 0,
    split: str = "train",
    per_image: int = 1,
    voice: voices.Voice | None = None,
    targets: Collection[str] | None = None,
) -> list[Triplet]:
    """Up to ``count`` triplets drafted from ``split``'s images (see the module docstring).

    ``vectors(ids)`` returns the ids that have a unit image vector, and those vectors.
    ``targets``, when given, drafts only for those targets: the same (reference, target)
    pairs as an unfiltered call with the same ``per_image``, so held-out drafts can be
    worded again in another voice.
    """
    voice = voice or voices.Voice()
    if count <= 0:
        return []
    images = [image for image in project.iter_images(split=split) if not image.missing]
    data = load_attribute_data(project, [image.id for image in images])
    record = {image.id: image for image in images}
    by_category: dict[str, list[str]] = {}
    for image in images:
        if image.id in data:
            by_category.setdefault(image.category, []).append(image.id)
    rng = random.Random(f"drafted:{seed}")
    candidates: list[Triplet] = []
    for _category, ids in sorted(by_category.items()):
        ids, matrix = vectors(ids)
        if len(ids) < 2:
            continue
        titles = TitleTfidf([record[i].title for i in ids])
        similarity = matrix @ matrix.T
        np.fill_diagonal(similarity, -np.inf)
        for row, target in enumerate(ids):
            if targets is not None and target not in targets:
                continue
            found = 0
            for column in _as_the_miner_ranks(titles.scores(row), similarity[row], row % 2):
                reference = ids[column]
                copy = record[target].content_hash is not None and (
                    record[reference].content_hash == record[target].content_hash)
                diffs = [] if copy else data.differences(reference, target)
                if diffs:
                    text = voice.say(diffs, data.types)
                    candidates.append(Triplet(reference, text, target, split, "drafted"))
                    found += 1
                    if found >= per_image:
                        break
    rng.shuffle(candidates)
    return candidates[:count]  # at most ``per_image`` drafts per target image


def _as_the_miner_ranks(title_scores: np.ndarray, similarity: np.ndarray,
                        embedding_first: int) -> list[int]:
    """One target's references, best first, as the miner's two methods rank them: title
    words (positive scores only, as the miner requires an informative overlap) and image
    neighbours, taken in turn; which goes first alternates between targets, so one draft
    a target gives half the targets a ``tfidf`` pair and half an ``embedding`` pair, as
    mining with both methods does."""
    by_title = [int(i) for i in np.argsort(-title_scores, kind="stable")[:DRAFT_NEIGHBOURS]
                if title_scores[i] > 0]
    by_image = [int(i) for i in np.argsort(-similarity, kind="stable")[:DRAFT_NEIGHBOURS]]
    rankings = (by_image, by_title) if embedding_first else (by_title, by_image)
    order: dict[int, None] = {}
    for depth in range(DRAFT_NEIGHBOURS):
        for ranking in rankings:
            if depth < len(ranking):
                order.setdefault(ranking[depth])
    return list(order)
