"""Exact search with faiss ``IndexFlatIP`` behind an id map: the default index.

At gallery sizes of this studio (thousands to a few hundred thousand images) a flat scan
takes milliseconds and is never wrong, which matters when the index is used to measure
Recall@K. Filters are applied inside the scan (faiss ``SearchParameters(sel=...)``), so a
filtered search returns the best k allowed items, not a post-filtered short list.
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
    pad_result,
)

FAISS_FILE = "flat.faiss"


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
        import faiss

        query_array = as_vectors(queries, self.dim)
        if k <= 0 or len(self) == 0:
            return empty_result(len(query_array), max(k, 0))
        params = None
        limit = len(self)
        if allowed_ids is not None:
            allowed = np.unique(as_ids(allowed_ids))
            if len(allowed) == 0:
                return empty_result(len(query_array), k)
            params = faiss.SearchParameters(sel=faiss.IDSelectorBatch(allowed))
            limit = min(limit, len(allowed))
        scores, ids = self._index.search(query_array, min(k, limit), params=params)
        return pad_result(ids, scores, k)

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
