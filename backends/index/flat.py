"""Exact search over a faiss ``IndexFlatIP`` behind an id map: the default index.

At gallery sizes of this studio (thousands to a few hundred thousand images) a flat scan
takes milliseconds and is never wrong, which matters when the index is used to measure
Recall@K. faiss holds the vectors and the ids (add, remove, reconstruct, one-file
persistence); the scan itself is one BLAS matmul plus ``argpartition`` over a zero-copy
view of faiss's storage. ``bench/bench_search.py`` found that 2-4x faster than faiss's own
flat search for batches on our 2-core test machine, and free of the OpenMP slowdown faiss
shows for single queries when the CPU is shared (a desktop app shares it with the GUI and
the image decoders). Filters mask the scores before the top-k is taken, so a filtered
search returns the best k allowed items, not a post-filtered short list.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from backends.index.base import (
    IdsLike,
    VectorIndex,
    as_ids,
    as_vectors,
    check_add,
    empty_result,
    exact_topk,
)

FAISS_FILE = "flat.faiss"
SUBSET_FRACTION = 8  # scan a copied subset when fewer than 1/8 of the items are allowed


class FlatIndex(VectorIndex):
    """faiss ``IndexIDMap2(IndexFlatIP)``: exact, CPU, supports remove and reconstruct."""

    kind: ClassVar[str] = "flat"
    is_exact: ClassVar[bool] = True

    def __init__(self, dim: int, _faiss_index: Any = None) -> None:
        import faiss

        super().__init__(dim)
        self._index = (
            _faiss_index
            if _faiss_index is not None
            else faiss.IndexIDMap2(faiss.IndexFlatIP(self.dim))
        )

    def __len__(self) -> int:
        return int(self._index.ntotal)

    def ids(self) -> np.ndarray:
        import faiss

        return faiss.vector_to_array(self._index.id_map).astype(np.int64)

    def add(self, ids: IdsLike, vectors: np.ndarray) -> None:
        id_array, vector_array = check_add(ids, vectors, self.dim)
        if len(id_array) == 0:
            return
        self.remove(id_array)
        self._index.add_with_ids(vector_array, id_array)

    def remove(self, ids: IdsLike) -> int:
        import faiss

        id_array = as_ids(ids)
        if len(id_array) == 0 or len(self) == 0:
            return 0
        return int(self._index.remove_ids(faiss.IDSelectorBatch(id_array)))

    def vectors(self, ids: IdsLike) -> np.ndarray:
        """The stored vectors of ``ids`` (all must be present)."""
        return self._index.reconstruct_batch(as_ids(ids))

    def search(
        self, queries: np.ndarray, k: int, allowed_ids: IdsLike | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        query_array = as_vectors(queries, self.dim)
        if k <= 0 or len(self) == 0:
            return empty_result(len(query_array), max(k, 0))
        vectors, ids = self._storage()
        if allowed_ids is not None:
            allowed = np.unique(as_ids(allowed_ids))
            keep = np.isin(ids, allowed, assume_unique=True)
            if not keep.any():
                return empty_result(len(query_array), k)
            if keep.sum() * SUBSET_FRACTION < len(ids):  # few allowed: scan only those
                return exact_topk(query_array, vectors[keep], ids[keep], k)
            return exact_topk(query_array, vectors, ids, k, keep)
        return exact_topk(query_array, vectors, ids, k)

    def _storage(self) -> tuple[np.ndarray, np.ndarray]:
        """Zero-copy numpy views of faiss's vectors and ids (valid until the next change)."""
        import faiss

        count = len(self)
        flat = faiss.downcast_index(self._index.index)
        vectors = faiss.rev_swig_ptr(flat.get_xb(), count * self.dim).reshape(count, self.dim)
        ids = faiss.rev_swig_ptr(self._index.id_map.data(), count)
        return vectors, ids

    def _save_data(self, directory: Path) -> dict[str, Any]:
        import faiss

        tmp = directory / (FAISS_FILE + ".tmp")
        faiss.write_index(self._index, str(tmp))
        tmp.replace(directory / FAISS_FILE)
        return {"file": FAISS_FILE}

    @classmethod
    def _load_data(cls, directory: Path, meta: dict[str, Any], **options: Any) -> FlatIndex:
        import faiss

        index = faiss.read_index(str(directory / meta.get("file", FAISS_FILE)))
        if index.d != int(meta["dim"]):
            raise ValueError(f"Index in {directory} has dimension {index.d}, not {meta['dim']}.")
        return cls(int(meta["dim"]), _faiss_index=index)
