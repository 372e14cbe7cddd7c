"""Draft transactions from the catalog: N+1 similar images of one category, texts drafted.

Each next image is the nearest unused image of the category by attribute differences
(at least one, preferably at most ``max_differences``), ties broken by embedding
similarity when a vector index is available, else by the seeded draw. From turn 3 on, a
share of turns look back as FashionMT's do: a *rollback* starts again from an earlier
turn's item, a *combination* keeps one attribute of an earlier turn. Every turn is saved
as a ``draft`` until an annotator accepts or edits it.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from studio.errors import StudioError
from studio.jobs import CancelToken, ProgressCallback, no_progress
from studio.language import voices
from studio.store import Project
from studio.transactions.attribute_data import AttributeData, load_attribute_data
from studio.transactions.records import Transaction, Turn
from studio.transactions.store import save_transactions

Similarity = Callable[[str, str], float]


@dataclass(frozen=True)
class BuildOptions:
    count: int = 10
    turns: int = 3
    category: str | None = None  # None: the project's categories in turn
    seed: int = 0
    retrospective_share: float = 0.5  # of the turns from 3 on
    max_differences: int = 3
    dataset: str = "built"
    voice: str = "learned"  # "learned": the shipped captioner's words; "catalog": fixed phrases

    def __post_init__(self) -> None:
        if self.count < 1 or self.turns < 1:
            raise StudioError("Build at least one transaction of at least one turn.")
        if not 0.0 <= self.retrospective_share <= 1.0:
            raise StudioError("The share of retrospective turns must lie between 0 and 1.")
        if self.max_differences < 1:
            raise StudioError("Allow at least one attribute difference per turn.")
        if self.voice not in ("learned", "catalog"):
            raise StudioError(f"Unsupported voice '{self.voice}'. The available voices are: "
                              "learned, catalog")


@dataclass
class BuildResult:
    transactions: list[Transaction]
    notes: list[str]
    attribute_source: str


class _Drafter:
    """Builds one transaction; holds the pool, the data and the draw."""

    def __init__(self, data: AttributeData, pool: list[str], options: BuildOptions,
                 rng: random.Random, similarity: Similarity | None) -> None:
        self.data, self.pool, self.options = data, pool, options
        self.rng, self.similarity = rng, similarity
        self.images: list[str] = []
        self.voice = (
            voices.Voice.learned(options.seed) if options.voice == "learned" else voices.Voice()
        )

    def nearest(self, anchor: str, keep: tuple[str, str | None] | None = None) -> str | None:
        """The unused image closest to ``anchor``; with ``keep``, one holding that value."""
        best: tuple[tuple[float, ...], str] | None = None
        for image in self.pool:
            if image in self.images:
                continue
            if keep is not None and self.data.values(image).get(keep[0]) != keep[1]:
                continue
            distance = self.data.distance(anchor, image)
            if distance == 0:
                continue
            tie = -self.similarity(anchor, image) if self.similarity else self.rng.random()
            key = (float(distance > self.options.max_differences), float(distance), tie)
            if best is None or key < best[0]:
                best = (key, image)
        return None if best is None else best[1]

    def plain(self, k: int) -> Turn | None:
        anchor = self.images[k - 1]
        target = self.nearest(anchor)
        if target is None:
            return None
        self.images.append(target)
        text = self.voice.say(self.data.differences(anchor, target), self.data.types)
        return Turn(index=k, text=text, reference_position=k - 1, status="draft")

    def rollback(self, k: int) -> Turn | None:
        position = self.rng.randrange(1, k - 1)
        anchor = self.images[position]
        target = self.nearest(anchor)
        if target is None:
            return None
        self.images.append(target)
        diffs = self.data.differences(anchor, target)
        text = voices.rollback_text(position, diffs, self.data.types, self.voice)
        return Turn(index=k, text=text, reference_position=position, status="draft")

    def combination(self, k: int) -> Turn | None:
        position = self.rng.randrange(1, k - 1)
        earlier, current = self.images[position], self.images[k - 1]
        kept = [d.slot for d in self.data.differences(current, earlier) if d.new is not None]
        self.rng.shuffle(kept)
        for slot in kept:
            target = self.nearest(current, keep=(slot, self.data.values(earlier).get(slot)))
            if target is None:
                continue
            self.images.append(target)
            diffs = [d for d in self.data.differences(current, target) if d.slot != slot]
            text = voices.combination_text(position, slot, diffs, self.data.types, self.voice)
            return Turn(index=k, text=text, reference_position=k - 1, status="draft")
        return None

    def draft(self, start: str) -> list[Turn] | None:
        self.images = [start]
        turns: list[Turn] = []
        for k in range(1, self.options.turns + 1):
            turn = None
            if k >= 3 and self.rng.random() < self.options.retrospective_share:
                turn = self.rollback(k) if self.rng.random() < 0.5 else self.combination(k)
            turn = turn or self.plain(k)
            if turn is None:
                return None
            turns.append(turn)
        return turns


def build_transactions(
    project: Project,
    options: BuildOptions,
    *,
    similarity: Similarity | None = None,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
) -> BuildResult:
    """Draft ``options.count`` transactions (not saved; see ``build_and_save``)."""
    data = load_attribute_data(project)
    if not data.images:
        raise StudioError(
            "No attribute data to build from: label attributes first, or use a project with "
            "a catalog.jsonl (such as the demo)."
        )
    categories = [options.category] if options.category else project.categories()
    pools = {
        c: [i.id for i in project.iter_images(category=c) if i.id in data] for c in categories
    }
    transactions: list[Transaction] = []
    notes: list[str] = []
    for n in range(options.count):
        if cancel is not None:
            cancel.raise_if_cancelled()
        category = categories[n % len(categories)] if categories else ""
        pool = pools.get(category, [])
        if len(pool) < options.turns + 1:
            notes.append(f"{category or 'no category'}: {len(pool)} images with attributes, "
                         f"too few for {options.turns} turns")
            continue
        rng = random.Random(f"build:{options.seed}:{n}:{category}")
        drafter = _Drafter(data, pool, options, rng, similarity)
        turns = drafter.draft(rng.choice(pool))
        if turns is None:
            notes.append(f"transaction {n}: ran out of distinct {category} images")
            continue
        transactions.append(Transaction(
            dataset=options.dataset,
            external_key=f"seed{options.seed}-turns{options.turns}-{n:04d}-{category}",
            image_ids=tuple(drafter.images),
            turns=tuple(turns),
            category=category,
            origin="built",
        ))
        progress(n + 1, options.count, category)
    return BuildResult(transactions, sorted(set(notes)), data.source)


def build_and_save(
    project: Project,
    options: BuildOptions,
    actor: str,
    *,
    similarity: Similarity | None = None,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
) -> tuple[BuildResult, list[int]]:
    """Draft and store; building with the same options twice adds nothing new."""
    result = build_transactions(project, options, similarity=similarity, progress=progress,
                                cancel=cancel)
    ids, _ = save_transactions(project, result.transactions, actor, "build transactions",
                               {"dataset": options.dataset, "seed": options.seed})
    return result, ids
