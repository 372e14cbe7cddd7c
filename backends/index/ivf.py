"""Approximate search for very large galleries: faiss IVF-Flat (inverted lists, raw vectors).

Why IVF-Flat rather than HNSW: a studio gallery changes (images are added and removed),
and IVF supports ``remove_ids`` and incremental adds natively, whereas faiss HNSW cannot
delete at all. IVF also builds in a fraction of HNSW's time on a laptop CPU (k-means on a
sample plus one assignment pass), keeps vectors uncompressed (scores are exact cosine
values; only the candidate set is approximate) and saves to one file. Its one knob at query
time, ``nprobe``, trades recall for speed; ``bench/bench_search.py`` measures it.

Below ``min_train`` vectors the index stays a flat, exact index (k-means needs data, and a
small gallery gains nothing from clustering); it trains itself once it grows past that.
Filtered searches over few allowed items are answered exactly over those items, and any
row that IVF could not fill to k is redone exactly, so filters still give a full top-k.
"""

from __future__ import annotations

import math
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
    pad_result,
)
from backends.index.flat import FlatIndex

IVF_FILE = "ivf.faiss"
IDS_FILE = "ids.npy"
SAMPLE_PER_LIST = 64
TRAIN_SEED = 1234


def default_nlist(count: int) -> int:
    """About sqrt(n) lists: ~1000 vectors per list at 1M (faiss guidance: 1x to 16x sqrt(n))."""
    return int(min(65536, max(16, round(math.sqrt(count)))))


def default_nprobe(nlist: int) -> int:
    """Probe 1/64 of the lists, at least 16.

    On embedding-like data in ``bench/bench_search.py`` this gave recall@10 of about 0.97
    at 1M vectors (nlist 1000) at ~30x the exact index's batched QPS, and more recall on
    smaller galleries, which probe a larger share of their lists.
    """
    return int(min(nlist, max(16, nlist // 64)))


class IVFIndex(VectorIndex):
    """faiss ``IndexIVFFlat`` (inner product) with a hashtable direct map for removal."""

    kind: ClassVar[str] = "ivf"
    is_exact: ClassVar[bool] = False
    #: filtered searches over at most this many allowed items are answered exactly
    exact_subset_limit: int = 4096

    def __init__(
        self,
        dim: int,
        nlist: int | None = None,
        nprobe: int | None = None,
        min_train: int = 20_000,
    ) -> None:
        super().__init__(dim)
        self._requested_nlist = nlist
        self._nprobe = nprobe
        self.min_train = int(min_train)
        self._flat: FlatIndex | None = FlatIndex(self.dim)
        self._ivf: Any = None
        self._quantizer: Any = None  # keeps the coarse quantizer alive beside the IVF
        self._ids = np.zeros(0, dtype=np.int64)

    @property
    def trained(self) -> bool:
        return self._ivf is not None

    @property
    def nlist(self) -> int | None:
        return int(self._ivf.nlist) if self._ivf is not None else None

    @property
    def nprobe(self) -> int | None:
        if self._ivf is None:
            return self._nprobe
        return self._nprobe or default_nprobe(int(self._ivf.nlist))

    @nprobe.setter
    def nprobe(self, value: int | None) -> None:
        if value is not None and value < 1:
            raise ValueError("nprobe must be at least 1")
        self._nprobe = value

    def __len__(self) -> int:
        return len(self._ids)

    def ids(self) -> np.ndarray:
        return self._ids.copy()

    def add(self, ids: IdsLike, vectors: np.ndarray) -> None:
        id_array, vector_array = check_add(ids, vectors, self.dim)
        if len(id_array) == 0:
            return
        if self._flat is not None:
            self._flat.add(id_array, vector_array)
            self._ids = np.union1d(self._ids, id_array)
            if len(self._flat) >= self.min_train:
                self.train()
            return
        self.remove(id_array)
        self._ivf.add_with_ids(vector_array, id_array)
        self._ids = np.union1d(self._ids, id_array)

    def remove(self, ids: IdsLike) -> int:
        import faiss

        id_array = np.intersect1d(as_ids(ids), self._ids)
        if len(id_array) == 0:
            return 0
        self._ids = np.setdiff1d(self._ids, id_array, assume_unique=True)
        if self._flat is not None:
            return self._flat.remove(id_array)
        return int(
            self._ivf.remove_ids(faiss.IDSelectorArray(len(id_array), faiss.swig_ptr(id_array)))
        )

    def train(self, nlist: int | None = None) -> None:
        """Cluster the current vectors and move them into inverted lists (idempotent)."""
        import faiss

        if self._flat is None:
            return
        count = len(self._flat)
        nlist = nlist or self._requested_nlist or default_nlist(count)
        if count < nlist:
            raise ValueError(f"Cannot train {nlist} lists on {count} vectors.")
        ids = self._flat.ids()
        vectors = self._flat.vectors(ids)
        rng = np.random.default_rng(TRAIN_SEED)
        sample_size = min(count, SAMPLE_PER_LIST * nlist)
        sample = vectors[np.sort(rng.choice(count, sample_size, replace=False))]
        quantizer = faiss.IndexFlatIP(self.dim)
        ivf = faiss.IndexIVFFlat(quantizer, self.dim, nlist, faiss.METRIC_INNER_PRODUCT)
        ivf.cp.seed = TRAIN_SEED
        ivf.cp.min_points_per_centroid = 1  # silence the warning; we sample enough anyway
        ivf.train(sample)
        ivf.set_direct_map_type(faiss.DirectMap.Hashtable)
        ivf.add_with_ids(vectors, ids)
        self._ivf, self._quantizer, self._flat = ivf, quantizer, None

    def search(
        self, queries: np.ndarray, k: int, allowed_ids: IdsLike | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        import faiss

        query_array = as_vectors(queries, self.dim)
        if self._flat is not None:
            return self._flat.search(query_array, k, allowed_ids)
        if k <= 0 or len(self) == 0:
            return empty_result(len(query_array), max(k, 0))
        nprobe = int(self.nprobe or 1)
        if allowed_ids is None:
            params = faiss.SearchParametersIVF(nprobe=nprobe)
            scores, ids = self._ivf.search(query_array, min(k, len(self)), params=params)
            return pad_result(ids, scores, k)
        allowed = np.intersect1d(as_ids(allowed_ids), self._ids)
        if len(allowed) == 0:
            return empty_result(len(query_array), k)
        scanned = len(self) * nprobe / max(1, self._ivf.nlist)
        if len(allowed) <= max(self.exact_subset_limit, scanned):
            return self._exact_subset(query_array, allowed, k)
        selector = faiss.IDSelectorBatch(allowed)
        params = faiss.SearchParametersIVF(nprobe=nprobe, sel=selector)
        scores, ids = self._ivf.search(query_array, min(k, len(allowed)), params=params)
        ids, scores = pad_result(ids, scores, k)
        short = (ids[:, : min(k, len(allowed))] == -1).any(axis=1)
        if short.any():
            ids[short], scores[short] = self._exact_subset(query_array[short], allowed, k)
        return ids, scores

    def _exact_subset(
        self, queries: np.ndarray, allowed: np.ndarray, k: int
    ) -> tuple[np.ndarray, np.ndarray]:
        vectors = self._ivf.reconstruct_batch(allowed)
        return exact_topk(queries, vectors, allowed, k)

    def _save_data(self, directory: Path) -> dict[str, Any]:
        import faiss

        if self._flat is not None:
            self._flat._save_data(directory)
        else:
            tmp = directory / (IVF_FILE + ".tmp")
            faiss.write_index(self._ivf, str(tmp))
            tmp.replace(directory / IVF_FILE)
        np.save(directory / IDS_FILE, self._ids)
        return {
            "trained": self.trained,
            "nlist": self._requested_nlist,
            "nprobe": self._nprobe,
            "min_train": self.min_train,
        }

    @classmethod
    def _load_data(cls, directory: Path, meta: dict[str, Any], **options: Any) -> IVFIndex:
        import faiss

        index = cls(
            int(meta["dim"]),
            nlist=meta.get("nlist"),
            nprobe=options.get("nprobe", meta.get("nprobe")),
            min_train=int(meta.get("min_train", 20_000)),
        )
        index._ids = np.load(directory / IDS_FILE)
        if meta.get("trained"):
            index._ivf = faiss.read_index(str(directory / IVF_FILE))
            index._flat = None
        else:
            flat_meta = dict(meta, kind=FlatIndex.kind)
            index._flat = FlatIndex._load_data(directory, flat_meta)
        return index
