"""Does a caption find its target? The target's rank for (reference + caption) in the gallery.

A relative caption is good when it leads a retrieval model from the reference to the
target. ``CaptionRanker`` composes the query exactly as the single-turn protocols do (the
project's strategy over the reference vector, the caption's vector and the facets the
caption asks for), scores the pair's gallery (its category and split) and returns the
target's rank. The gallery keeps the reference under the Fashion IQ convention and drops
it for CIRR pairs (``pairs.source``).

Typing asks for a rank on every pause, so everything but the caption is cached: the
gallery's vectors as one contiguous matrix per (category, split), its facet columns, and
each reference's vector. A keystroke then costs one text encoding and one matrix-vector
product. A ``CancelToken`` lets a newer query stop an older one between those steps.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import numpy as np

from studio.errors import StudioError
from studio.index_service import DEFAULT_MODEL, STATE_FILE, index_folder
from studio.jobs import CancelToken, ProgressCallback, no_progress
from studio.sessions.constraints import Constraint
from studio.sessions.scoring import ReadText, compared_column, read_text
from studio.sessions.setup import SessionContext, load_session_context
from studio.sessions.strategies import (
    DEFAULT_STRATEGY,
    CodedColumn,
    TurnInput,
    constraint_bonus,
    make_strategy,
)
from studio.store import Project
from studio.store.repos import attributes as attributes_repo
from studio.store.repos import pairs as pairs_repo

TOP_K = 5
TEXT_CACHE = 64  # text vectors kept: the drafts of the last few captions and their edits
DEFAULT_THRESHOLD = 50
MODEL_KEY = "captions.rank_model"
STRATEGY_KEY = "captions.rank_strategy"
THRESHOLD_KEY = "captions.rank_threshold"
# Sources whose protocol removes the reference from the gallery (CIRR); all others keep it.
REFERENCE_REMOVED_SOURCES = frozenset({"cirr"})

Band = Literal["top10", "top50", "beyond", "absent"]


@dataclass(frozen=True)
class RankSettings:
    """Which model and strategy rank captions, and above which rank a caption is flagged."""

    model: str = DEFAULT_MODEL
    strategy: str = DEFAULT_STRATEGY
    threshold: int = DEFAULT_THRESHOLD

    def __post_init__(self) -> None:
        if self.threshold < 1:
            raise StudioError("The rank threshold must be at least 1.")


def rank_settings(project: Project) -> RankSettings:
    """The project's choice (meta table; one for every annotator, so ranks compare), else
    the demo model, the default strategy and a threshold of 50."""
    threshold = project.get_meta(THRESHOLD_KEY)
    return RankSettings(
        model=project.get_meta(MODEL_KEY) or DEFAULT_MODEL,
        strategy=project.get_meta(STRATEGY_KEY) or DEFAULT_STRATEGY,
        threshold=int(threshold) if threshold else DEFAULT_THRESHOLD,
    )


def save_rank_settings(project: Project, settings: RankSettings, actor: str) -> None:
    make_strategy(settings.strategy)  # an unknown strategy fails before anything is written
    before = rank_settings(project)
    with project.change(
        actor, "set_rank_settings", "captions", "rank", before=before.__dict__
    ) as record:
        project.set_meta(MODEL_KEY, settings.model)
        project.set_meta(STRATEGY_KEY, settings.strategy)
        project.set_meta(THRESHOLD_KEY, str(settings.threshold))
        record["after"] = settings.__dict__


@dataclass(frozen=True)
class PairQuery:
    """What ranking needs of a pair; read once per pair, on any thread."""

    pair_id: int
    reference_id: str
    target_id: str | None
    category: str
    split: str
    keep_reference: bool


def pair_query(project: Project, pair_id: int) -> PairQuery:
    row = pairs_repo.pair_row(project, pair_id)
    if row is None:
        raise StudioError(f"Pair {pair_id} does not exist.")
    return PairQuery(
        pair_id,
        row["reference_id"],
        row["target_id"],
        row["category"] or "",
        row["split"] or "",
        keep_reference=(row["source"] or "") not in REFERENCE_REMOVED_SOURCES,
    )


@dataclass(frozen=True)
class RankResult:
    """The target's rank (1 = first; None: the target is not in the indexed gallery)."""

    pair_id: int
    text: str
    rank: int | None
    gallery_size: int
    top: tuple[tuple[str, float], ...]
    model: str
    strategy: str
    index_key: str
    seconds: float = 0.0  # wall time of ``rank``
    cpu_seconds: float = 0.0  # CPU time of the thread that ranked (the cost without waiting)
    # The files of ``top`` (None: no such image), looked up where the rank is computed so
    # that a view showing the hits reads nothing from the project on its own thread.
    top_paths: tuple[str | None, ...] = ()

    @property
    def band(self) -> Band:
        return band_of(self.rank)


def band_of(rank: int | None) -> Band:
    if rank is None:
        return "absent"
    return "top10" if rank <= 10 else "top50" if rank <= 50 else "beyond"


def index_key(project: Project, model_name: str) -> str | None:
    """A fingerprint of the model's index: its weights and exactly which images it holds.

    It changes when the model's weights change or the index gains, loses or replaces an
    image, and not when a rebuild changes nothing, so a stored rank goes stale only when
    it could differ. None when the model has no index. Cached by the state file's stamp.
    """
    path = index_folder(project, model_name) / STATE_FILE
    try:
        stat = path.stat()
    except OSError:
        return None
    stamp = (str(path), stat.st_mtime_ns, stat.st_size)
    cached = _KEYS.get(stamp[0])
    if cached is not None and cached[0] == stamp:
        return cached[1]
    state = json.loads(Path(path).read_text())
    digest = hashlib.sha1(
        json.dumps([state["image_ids"], state["hashes"]]).encode("utf-8")
    ).hexdigest()[:12]
    key = f"{str(state['cache_key'])[:12]}:{digest}"
    _KEYS[stamp[0]] = (stamp, key)
    return key


_KEYS: dict[str, tuple[tuple[str, int, int], str]] = {}


@dataclass
class _Gallery:
    positions: np.ndarray  # index positions of the gallery's images, ascending
    matrix: np.ndarray  # their vectors, one row each, C-contiguous float32
    columns: dict[str, tuple[np.ndarray, dict[str, int]]]  # facet -> (codes, value -> code)
    rows: list[dict[str, str]] | None = None  # each row's facets, read once for the columns
    compared: dict[str, np.ndarray] = field(default_factory=dict)  # comparatives' columns

    def row_of(self, position: int) -> int:
        """The row of an index position, -1 when it is not in the gallery (a binary
        search over the sorted positions: no 100,000-entry dict to build per gallery)."""
        row = int(np.searchsorted(self.positions, position))
        found = row < len(self.positions) and int(self.positions[row]) == position
        return row if found else -1


class NoIndexError(StudioError):
    """The project has no usable index for the model (build it first)."""


class CaptionRanker:
    """Ranks captions of one project with one model and strategy; caches all but the text."""

    def __init__(self, context: SessionContext, strategy: str = DEFAULT_STRATEGY) -> None:
        self.context = context
        self.strategy_name = strategy
        self.strategy = make_strategy(strategy)
        self.index_key = index_key(context.project, context.model_name) or ""
        self._galleries: dict[tuple[str, str], _Gallery] = {}
        self._references: dict[str, np.ndarray | None] = {}
        self._paths: dict[str, str | None] = {}
        self._texts: OrderedDict[str, np.ndarray] = OrderedDict()  # newest last
        self._encoder_warm = False
        self.ahead_cpu_seconds = 0.0  # CPU spent encoding texts ahead of their rank

    @classmethod
    def open(
        cls,
        project: Project,
        model_name: str = DEFAULT_MODEL,
        strategy: str = DEFAULT_STRATEGY,
        device: str | None = None,
        *,
        progress: ProgressCallback = no_progress,
        cancel: CancelToken | None = None,
    ) -> CaptionRanker:
        """Load the model, its index and the facets (raises ``StudioError`` without an index)."""
        make_strategy(strategy)
        if index_key(project, model_name) is None:
            raise NoIndexError(f"No index for model '{model_name}' yet: build it to see ranks.")
        context = load_session_context(
            project, model_name, device, progress=progress, cancel=cancel
        )
        return cls(context, strategy)

    @property
    def model_name(self) -> str:
        return self.context.model_name

    # -- caches ----------------------------------------------------------------------

    def gallery(self, category: str, split: str) -> _Gallery:
        key = (category, split)
        if key not in self._galleries:
            index = self.context.index
            allowed = index.allowed_positions(category or None, split or None)
            if allowed is None:
                allowed = np.asarray(
                    sorted(
                        p
                        for p in (index.position(i) for i in index.image_ids if i)
                        if p is not None
                    ),
                    np.int64,
                )
            matrix = self._vectors(allowed)
            self._galleries[key] = _Gallery(
                allowed, np.ascontiguousarray(matrix, dtype=np.float32), {}
            )
        return self._galleries[key]

    def _vectors(self, positions: np.ndarray) -> np.ndarray:
        store = self.context.index.index
        if hasattr(store, "vectors"):  # the flat index holds them (one reconstruct call)
            return np.asarray(store.vectors(positions), dtype=np.float32)
        from studio.embeddings import cached_vectors

        names = [self.context.index.image_ids[int(p)] for p in positions]
        records = [self.context.project.image(name or "") for name in names]
        ids, vectors = cached_vectors(
            self.context.project, self.context.index.model, [r for r in records if r is not None]
        )
        by_id = dict(zip(ids, vectors, strict=True))
        return np.stack([by_id[name or ""] for name in names])

    def _column(self, gallery: _Gallery, facet: str) -> tuple[np.ndarray, dict[str, int]]:
        """Each row's value of ``facet`` as an integer code (-1 where unknown), built once."""
        if facet not in gallery.columns:
            rows = self._facet_rows(gallery)
            codes: dict[str, int] = {}
            column = np.fromiter(
                (
                    -1 if (value := row.get(facet)) is None else codes.setdefault(value, len(codes))
                    for row in rows
                ),
                dtype=np.int32,
                count=len(rows),
            )
            gallery.columns[facet] = (column, codes)
        return gallery.columns[facet]

    def _facet_rows(self, gallery: _Gallery) -> list[dict[str, str]]:
        """Each gallery row's facets (one lookup per image, kept for the gallery's columns)."""
        if gallery.rows is None:
            names = self.context.index.image_ids
            facets = self.context.facets
            gallery.rows = [facets.get(names[int(p)] or "") or {} for p in gallery.positions]
        return gallery.rows

    def bonus(
        self, gallery: _Gallery, constraints: Mapping[str, str | Constraint]
    ) -> np.ndarray:
        """The sessions' re-ranking rule (``strategies.constraint_bonus``) on this gallery,
        with label columns integer-coded so that a keystroke does not compare 100,000
        Python strings."""
        columns: dict[str, np.ndarray | CodedColumn] = {}
        for facet, wanted in constraints.items():
            if isinstance(wanted, Constraint) and wanted.comparative:
                columns[facet] = self._compared(gallery, facet, wanted)
            else:
                codes, lookup = self._column(gallery, facet)
                columns[facet] = CodedColumn(codes, lookup)
        bonus = np.zeros(len(gallery.positions), dtype=np.float64)
        bonus += constraint_bonus(columns, constraints)
        return bonus

    def _compared(self, gallery: _Gallery, facet: str, constraint: Constraint) -> np.ndarray:
        """A comparative's column over the gallery ("darker": lightness), built once."""
        if facet not in gallery.compared:
            names = self.context.index.image_ids
            gallery.compared[facet] = compared_column(
                facet, constraint, [names[int(p)] for p in gallery.positions],
                self.context.facets, self.context.measures,
            )
        return gallery.compared[facet]

    def read(self, reference_id: str, text: str) -> ReadText:
        """What ``text`` asks for relative to the reference, as a session reads it."""
        context = self.context
        return read_text(
            text, context.reader.read, context.reader.affirmative_text,
            context.facets.get(reference_id, {}),
            lambda measure: context.measures.value(reference_id, measure),
        )

    def warm(self, pair: PairQuery) -> None:
        """Build what the pair's first rank needs before the first keystroke: its gallery
        matrix, the reference vector, the text tower's first pass (torch's first call
        allocates and dispatches much more than the next ones) and every facet's column
        (otherwise the first caption to name a facet pays 20-60 ms for its column)."""
        gallery = self.gallery(pair.category, pair.split)
        self.reference_vector(pair.reference_id)
        if not self._encoder_warm:
            self._encode("warm")
            self._encoder_warm = True
        self._build_columns(gallery)

    def _build_columns(self, gallery: _Gallery) -> None:
        """Every facet's column of ``gallery``."""
        for facet in sorted({f for row in self._facet_rows(gallery) for f in row}):
            self._column(gallery, facet)

    def reference_vector(self, image_id: str) -> np.ndarray | None:
        if image_id not in self._references:
            try:
                self._references[image_id] = self.context.index.image_vector(image_id)
            except StudioError:
                self._references[image_id] = None  # missing or unreadable file
        return self._references[image_id]

    # -- ranking ---------------------------------------------------------------------

    def rank(
        self, pair: PairQuery, text: str, k: int = TOP_K, cancel: CancelToken | None = None
    ) -> RankResult:
        """The target's rank for (reference + ``text``) in the pair's gallery, and the top k."""
        started, cpu_started = time.perf_counter(), time.thread_time()
        text = " ".join(text.split())
        gallery = self.gallery(pair.category, pair.split)
        reference = self.reference_vector(pair.reference_id)
        if cancel is not None:
            cancel.raise_if_cancelled()
        read = self.read(pair.reference_id, text)
        text_vector = self.text_vector(read.phrase) if read.phrase else None
        if reference is None and text_vector is None:
            raise StudioError(
                f"The reference image of pair {pair.pair_id} cannot be read, "
                "and there is no caption text to search with."
            )
        if cancel is not None:
            cancel.raise_if_cancelled()
        query = self.strategy.compose([TurnInput(reference, text_vector, read.constraints)])
        # einsum runs on this thread: BLAS would wake its thread pool for one matrix-vector
        # product, which costs tens of milliseconds on a busy 2-core machine.
        scores = np.einsum("ij,j->i", gallery.matrix, query.vector.astype(np.float32))
        scores = scores.astype(np.float64)
        if query.constraints:
            scores += self.bonus(gallery, query.constraints)
        size = len(scores)
        if not pair.keep_reference:
            row = gallery.row_of(self._position(pair.reference_id))
            if row >= 0:
                scores[row] = -np.inf
                size -= 1
        rank = None
        target_row = gallery.row_of(self._position(pair.target_id))
        if target_row >= 0:
            rank = int(np.count_nonzero(scores > scores[target_row])) + 1
        top = self._top(gallery, scores, min(k, size))
        return RankResult(
            pair.pair_id,
            text,
            rank,
            size,
            top,
            self.model_name,
            self.strategy_name,
            self.index_key,
            round(time.perf_counter() - started, 4),
            round(time.thread_time() - cpu_started, 4),
            tuple(self._path(image_id) for image_id, _ in top),
        )

    def _path(self, image_id: str) -> str | None:
        """An image's file, read once per ranker."""
        if image_id not in self._paths:
            project = self.context.project
            record = project.image(image_id)
            self._paths[image_id] = None if record is None else str(project.image_path(record))
        return self._paths[image_id]

    def encode_ahead(self, text: str) -> None:
        """Encode ``text`` now, while the person is still typing, so that its rank, asked
        for once they pause, finds the vector made. The text tower is the costliest and
        the coldest step of a rank: after a few hundred ms of idling its first pass takes
        up to ten times longer than the next one (caches and CPU cold)."""
        text = " ".join(text.split())
        phrase = self.context.reader.affirmative_text(text) if text else text
        if phrase and phrase not in self._texts:
            started = time.thread_time()
            self.text_vector(phrase)
            self.ahead_cpu_seconds += time.thread_time() - started

    def text_vector(self, text: str) -> np.ndarray:
        """The caption's vector, from the last few texts encoded or encoded now."""
        vector = self._texts.get(text)
        if vector is None:
            vector = self._encode(text)
            self._texts[text] = vector
            if len(self._texts) > TEXT_CACHE:
                self._texts.popitem(last=False)
        else:
            self._texts.move_to_end(text)
        return vector

    def _encode(self, text: str) -> np.ndarray:
        """One short text on one torch thread: the text tower is tiny for one caption, and
        waking torch's intra-op pool for it costs more than it saves (2-3 ms on one
        thread against tens to hundreds of ms on a loaded 2-core machine)."""
        import torch

        threads = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            return self.context.index.text_vectors([text])[0]
        finally:
            torch.set_num_threads(threads)

    def _position(self, image_id: str | None) -> int:
        position = self.context.index.position(image_id) if image_id else None
        return -1 if position is None else position

    def _top(self, gallery: _Gallery, scores: np.ndarray, k: int) -> tuple[tuple[str, float], ...]:
        if k <= 0:
            return ()
        best = np.argpartition(-scores, k - 1)[:k] if k < len(scores) else np.arange(len(scores))
        best = best[np.argsort(-scores[best], kind="stable")]
        names = self.context.index.image_ids
        return tuple((names[int(gallery.positions[r])] or "", float(scores[r])) for r in best)


def build_rank_index(
    project: Project,
    model_name: str,
    actor: str,
    device: str | None = None,
    *,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
) -> object:
    """Build the index ranks need; labels from product text first if the project has none
    (the default strategy reads the facets a caption asks for from them)."""
    from studio.attributes.extract import extract_from_text
    from studio.index_service import build_index, ensure_index_buildable, load_project_model

    ensure_index_buildable(project)  # read-only: one clear line before any work
    if not attributes_repo.any_labels(project):
        extract_from_text(project, actor, progress=progress, cancel=cancel)
    model = load_project_model(model_name, device)
    return build_index(project, model, progress=progress, cancel=cancel)
