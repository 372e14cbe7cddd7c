"""Automatic indicators per turn, to set beside the human scores.

- **refers back**: the text points at earlier turns: a rollback or combination template
  ("I still prefer the item from the second turn", "keep the colour of the first turn"),
  an ordinal turn reference ("the second turn", "turn 2", "the original one"), or it names
  an attribute that an earlier image had, the reference lacks and the target has again.
  The phrases are the turn grammar's (``studio.language.turns.mentions_earlier_turn``).
- **attributes named**: how many distinct requests (``{facet, op, value}``: "is red",
  "has longer sleeves", "not striped") the caption reader finds in the text, knowing the
  project vocabulary's spellings; the same reader as sessions, flags and ``captions read``.
- **embedding consistency**: cos(normalise(reference + text), target) − cos(reference,
  target): positive when adding the text moves the query toward the target. Only when an
  embedding source is available; otherwise it is left out with a note.
- **target rank**: where the target lands when the gallery (the images of the target's
  category and split, the reference kept as in Fashion IQ) is searched with
  normalise(reference + text) under the project's model: 1 is best, so agreement with a
  human score shows as a *negative* rho. Same embedding source as above.

The report correlates each with the human scores (Spearman's rho over items).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from studio.language.reader import CaptionReader
from studio.language.turns import mentions_earlier_turn
from studio.quality.stats import spearman
from studio.store import Project
from studio.store.repos import transactions as transactions_repo
from studio.transactions.attribute_data import AttributeData, load_attribute_data

Item = tuple[int, int]
INDICATOR_NAMES: dict[str, str] = {
    "refers_back": "Refers to earlier turns",
    "attribute_count": "Attributes named",
    "embedding_consistency": "Embedding consistency",
    "target_rank": "Target rank (reference + text; lower is better)",
}

class Embedder(Protocol):
    """Unit vectors for images and texts from one model."""

    def image_vectors(self, image_ids: Sequence[str]) -> dict[str, np.ndarray]: ...

    def text_vectors(self, texts: Sequence[str]) -> np.ndarray: ...


class PhraseMatcher:
    """Finds which keys' phrases a text names: whole words, any case, plural allowed."""

    def __init__(self, phrases: dict[str, Sequence[str]]) -> None:
        self.patterns = {
            key: re.compile("|".join(_phrase_pattern(p) for p in options), re.IGNORECASE)
            for key, options in phrases.items()
            if options
        }

    def find(self, text: str) -> set[str]:
        return {key for key, pattern in self.patterns.items() if pattern.search(text)}


def _phrase_pattern(phrase: str) -> str:
    words = [re.escape(w) for w in re.split(r"[\s\-]+", phrase.strip().lower()) if w]
    return r"(?<!\w)" + r"[\s\-]*".join(words) + r"(?:s|es)?(?!\w)"


def _value_phrases(slot: str, value: str) -> tuple[str, ...]:
    try:
        from studio.demo.catalog import TEXT_PHRASES
    except ImportError:
        return (value,)
    return TEXT_PHRASES.get(slot, {}).get(value, (value,))


def caption_reader(project: Project) -> tuple[CaptionReader, str]:
    """The caption reader, knowing the project vocabulary's spellings of facet values."""
    from studio.attributes.vocabulary import load_vocabulary
    from studio.sessions.facets import FacetMap

    entries = load_vocabulary(project)
    if not entries:
        return CaptionReader(), "the caption reader (CAPTION_READING.md's vocabulary)"
    facet_map = FacetMap.for_vocabulary(entries)
    return (CaptionReader.for_vocabulary(entries, facet_map.facet_of),
            f"the caption reader with the project vocabulary ({len(entries)} words)")


@dataclass(frozen=True)
class TurnIndicators:
    refers_back: bool
    attribute_count: int
    embedding_consistency: float | None = None
    target_rank: int | None = None

    def value(self, name: str) -> float | None:
        raw = getattr(self, name)
        return None if raw is None else float(raw)


@dataclass
class IndicatorResult:
    values: dict[Item, TurnIndicators]
    notes: list[str] = field(default_factory=list)


def refers_back(text: str, turn: int, reference: int, images: Sequence[str],
                data: AttributeData) -> bool:
    """Does turn ``turn`` (reference image ``reference``) point at earlier turns?"""
    if mentions_earlier_turn(text):
        return True
    ref, target = images[reference], images[turn]
    for position in range(turn):
        if position == reference:
            continue
        for slot, value in data.values(images[position]).items():
            if data.values(ref).get(slot) == value or data.values(target).get(slot) != value:
                continue
            if PhraseMatcher({"v": _value_phrases(slot, value)}).find(text):
                return True
    return False


def _turns(project: Project, items: Sequence[Item]) -> dict[Item, tuple[str, int, tuple[str, ...]]]:
    out: dict[Item, tuple[str, int, tuple[str, ...]]] = {}
    images: dict[int, tuple[str, ...]] = {}
    for tid, turn in items:
        if tid not in images:
            images[tid] = transactions_repo.image_ids(project, tid)
        row = transactions_repo.turn(project, tid, turn)
        if row is not None:
            out[(tid, turn)] = (row[0], int(row[1]), images[tid])
    return out


def compute_indicators(
    project: Project,
    items: Sequence[Item],
    embedder: Embedder | None = None,
    no_embedder_reason: str = "no embedding vectors are available",
) -> IndicatorResult:
    turns = _turns(project, items)
    data = load_attribute_data(project, {i for _, _, ims in turns.values() for i in ims})
    reader, reader_source = caption_reader(project)
    notes = [f"Attributes named are the distinct requests read by {reader_source}.",
             f"Earlier-turn attributes come from {data.source}."]
    consistency, ranks = _consistency(turns, embedder, notes, no_embedder_reason,
                                      _galleries(project, turns))
    values = {
        item: TurnIndicators(
            refers_back=refers_back(text, item[1], reference, images, data),
            attribute_count=len(set(reader.read(text))),
            embedding_consistency=consistency.get(item),
            target_rank=ranks.get(item),
        )
        for item, (text, reference, images) in turns.items()
    }
    return IndicatorResult(values, notes)


def _galleries(project: Project, turns: dict[Item, tuple[str, int, tuple[str, ...]]]
               ) -> dict[str, tuple[str, ...]]:
    """Each turn target's gallery: the images of its category and split (gallery members
    included, as ``Project.iter_images`` reads them)."""
    targets = {images[turn] for (_, turn), (_, _, images) in turns.items()}
    galleries: dict[tuple[str, str], tuple[str, ...]] = {}
    out: dict[str, tuple[str, ...]] = {}
    for image_id in sorted(targets):
        record = project.image(image_id)
        if record is None:
            continue
        key = (record.category, record.split)
        if key not in galleries:
            galleries[key] = tuple(
                i.id for i in project.iter_images(key[0] or None, key[1] or None) if not i.missing
            )
        out[image_id] = galleries[key]
    return out


def _consistency(turns: dict[Item, tuple[str, int, tuple[str, ...]]],
                 embedder: Embedder | None, notes: list[str], reason: str,
                 galleries: dict[str, tuple[str, ...]] | None = None,
                 ) -> tuple[dict[Item, float], dict[Item, int]]:
    """Embedding consistency and the target's rank per turn (both need vectors)."""
    if embedder is None:
        notes.append(f"Embedding consistency was not computed: {reason}.")
        notes.append(f"Target rank was not computed: {reason}.")
        return {}, {}
    galleries = galleries or {}
    ids = sorted({i for _, _, images in turns.values() for i in images}
                 | {i for gallery in galleries.values() for i in gallery})
    vectors = embedder.image_vectors(ids)
    keys = list(turns)
    texts = embedder.text_vectors([turns[k][0] for k in keys])
    out: dict[Item, float] = {}
    ranks: dict[Item, int] = {}
    matrices: dict[tuple[str, ...], np.ndarray] = {}
    for key, text_vector in zip(keys, texts, strict=True):
        _, reference, images = turns[key]
        ref, target = vectors.get(images[reference]), vectors.get(images[key[1]])
        if ref is None or target is None:
            continue
        query = ref + text_vector
        query = query / (np.linalg.norm(query) or 1.0)
        out[key] = float(query @ target - ref @ target)
        gallery = galleries.get(images[key[1]])
        if gallery:
            if gallery not in matrices:
                matrices[gallery] = np.stack([vectors[i] for i in gallery if i in vectors])
            scores = matrices[gallery] @ query
            ranks[key] = int(np.count_nonzero(scores > float(query @ target))) + 1
    missing = len(keys) - len(out)
    if missing:
        notes.append(f"Embedding consistency is missing for {missing} turns whose images "
                     "have no vectors yet.")
    if ranks:
        notes.append("Target rank: the gallery is the target's category and split with the "
                     "reference kept (Fashion IQ); lower is better, so a negative rho means "
                     "the rank agrees with the human score.")
    return out, ranks


def correlate(indicators: dict[Item, TurnIndicators],
              scores: dict[Item, dict[str, float]],
              criteria: Sequence[str]) -> dict[str, dict[str, tuple[float | None, int]]]:
    """indicator → criterion → (Spearman rho or None, number of items).

    An indicator with no value on any item (embedding consistency without vectors) is
    left out rather than shown as a row of blanks.
    """
    out: dict[str, dict[str, tuple[float | None, int]]] = {}
    for name in INDICATOR_NAMES:
        if all(turn.value(name) is None for turn in indicators.values()):
            continue
        out[name] = {}
        for criterion in criteria:
            pairs = [
                (value, scores[item][criterion])
                for item, turn in indicators.items()
                if item in scores and criterion in scores[item]
                and (value := turn.value(name)) is not None
            ]
            rho = spearman([p[0] for p in pairs], [p[1] for p in pairs]) if pairs else None
            out[name][criterion] = (rho, len(pairs))
    return out
