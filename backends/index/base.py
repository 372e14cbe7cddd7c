"""One interface for every vector index: add, remove, filtered top-k search, save, load.

Vectors are L2-normalised float32 rows and scores are inner products (cosine similarity).
Ids are int64 chosen by the caller (the project maps its image ids to them). A search
always returns arrays of shape (queries, k); where fewer than k items qualify, the tail is
padded with id -1 and score -inf. With ``allowed_ids`` every index returns the best k of
the allowed items, not the allowed items that happen to be in an unfiltered top k.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Iterable
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

META_FILE = "index.json"
FORMAT_VERSION = 1
MISSING_ID = -1
SCORE_BUDGET = 1 << 24  # score-matrix elements per query chunk in exact_topk (64 MB)

IdsLike = Iterable[int] | np.ndarray


class VectorIndex(ABC):
    """Base class; capability flags let callers pick or warn (fiftyone-brain style)."""

    kind: ClassVar[str]
    is_exact: ClassVar[bool]
    supports_remove: ClassVar[bool] = True

    def __init__(self, dim: int) -> None:
        if dim < 1:
            raise ValueError("dim must be positive")
        self.dim = int(dim)

    @property
    def on_gpu(self) -> bool:
        return False

    @abstractmethod
    def __len__(self) -> int: ...

    @abstractmethod
    def ids(self) -> np.ndarray:
        """All ids in the index (int64, any order)."""

    @abstractmethod
    def add(self, ids: IdsLike, vectors: np.ndarray) -> None:
        """Add vectors; an id already present is replaced, never duplicated."""

    @abstractmethod
    def remove(self, ids: IdsLike) -> int:
        """Remove ids (unknown ids are ignored); returns how many were removed."""

    @abstractmethod
    def search(
        self, queries: np.ndarray, k: int, allowed_ids: IdsLike | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Top-``k`` by inner product: ``(ids int64 (q, k), scores float32 (q, k))``."""

    @abstractmethod
    def _save_data(self, directory: Path) -> dict[str, Any]:
        """Write the index's own files; return extra metadata to store."""

    @classmethod
    @abstractmethod
    def _load_data(cls, directory: Path, meta: dict[str, Any], **options: Any) -> VectorIndex:
        """Rebuild an index from files written by ``_save_data``."""

    def save(self, directory: Path | str) -> None:
        """Write the index into ``directory`` (created if needed), metadata last."""
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        extra = self._save_data(directory)
        meta = {"kind": self.kind, "dim": self.dim, "count": len(self), "version": FORMAT_VERSION}
        meta.update(extra)
        tmp = directory / (META_FILE + ".tmp")
        tmp.write_text(json.dumps(meta, indent=2))
        tmp.replace(directory / META_FILE)

    @classmethod
    def load(cls, directory: Path | str, **options: Any) -> VectorIndex:
        meta = read_meta(directory)
        if meta.get("kind") != cls.kind:
            raise ValueError(f"{directory} holds a '{meta.get('kind')}' index, not '{cls.kind}'.")
        return cls._load_data(Path(directory), meta, **options)


def read_meta(directory: Path | str) -> dict[str, Any]:
    path = Path(directory) / META_FILE
    if not path.is_file():
        raise FileNotFoundError(f"No saved index in {directory} (missing {META_FILE}).")
    meta: dict[str, Any] = json.loads(path.read_text())
    if int(meta.get("version", 0)) > FORMAT_VERSION:
        raise ValueError(f"The index in {directory} was written by a newer version.")
    return meta


def as_ids(ids: IdsLike) -> np.ndarray:
    """Ids as a contiguous 1-D int64 array."""
    if isinstance(ids, set | frozenset):
        ids = list(ids)
    array = np.ascontiguousarray(np.asarray(ids, dtype=np.int64).reshape(-1))
    if (array == MISSING_ID).any():
        raise ValueError(f"Id {MISSING_ID} is reserved for 'no result'.")
    return array


def as_vectors(vectors: np.ndarray, dim: int) -> np.ndarray:
    """Vectors as a contiguous (n, dim) float32 array; a single vector becomes one row."""
    array = np.asarray(vectors, dtype=np.float32)
    if array.ndim == 1:
        array = array[None, :]
    if array.ndim != 2 or array.shape[1] != dim:
        raise ValueError(f"Expected vectors of dimension {dim}, got shape {array.shape}.")
    return np.ascontiguousarray(array)


def check_add(ids: IdsLike, vectors: np.ndarray, dim: int) -> tuple[np.ndarray, np.ndarray]:
    """Validate an ``add``: one vector per id, ids unique within the call."""
    id_array, vector_array = as_ids(ids), as_vectors(vectors, dim)
    if len(id_array) != len(vector_array):
        raise ValueError(f"Got {len(id_array)} ids for {len(vector_array)} vectors.")
    if len(np.unique(id_array)) != len(id_array):
        raise ValueError("Ids passed to add() must be unique.")
    return id_array, vector_array


def empty_result(n_queries: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    ids = np.full((n_queries, k), MISSING_ID, dtype=np.int64)
    return ids, np.full((n_queries, k), -np.inf, dtype=np.float32)


def pad_result(ids: np.ndarray, scores: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Pad (or keep) results to width ``k`` and mark missing slots as (-1, -inf)."""
    out_ids, out_scores = empty_result(ids.shape[0], k)
    width = min(k, ids.shape[1])
    out_ids[:, :width] = ids[:, :width]
    out_scores[:, :width] = scores[:, :width]
    out_scores[out_ids == MISSING_ID] = -np.inf
    return out_ids, out_scores


def exact_topk(
    queries: np.ndarray,
    vectors: np.ndarray,
    ids: np.ndarray,
    k: int,
    keep: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Brute-force top-k with numpy: BLAS matmul + ``argpartition``, in query chunks.

    ``keep`` (a boolean mask over rows) scores the other rows -inf, so they never appear.
    """
    n_queries = queries.shape[0]
    width = min(k, len(ids) if keep is None else int(keep.sum()))
    out_ids, out_scores = empty_result(n_queries, max(k, 0))
    if width <= 0:
        return out_ids, out_scores
    chunk = max(1, SCORE_BUDGET // len(ids))
    for start in range(0, n_queries, chunk):
        scores = queries[start : start + chunk] @ vectors.T
        if keep is not None:
            scores[:, ~keep] = -np.inf
        if width < len(ids):
            part = np.argpartition(-scores, width - 1, axis=1)[:, :width]
        else:
            part = np.broadcast_to(np.arange(len(ids)), (len(scores), len(ids)))
        part_scores = np.take_along_axis(scores, part, axis=1)
        best = np.take_along_axis(part, np.argsort(-part_scores, axis=1, kind="stable"), axis=1)
        rows = slice(start, start + len(scores))
        out_ids[rows, :width] = ids[best]
        out_scores[rows, :width] = np.take_along_axis(scores, best, axis=1)
    return out_ids, out_scores
