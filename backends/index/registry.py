"""Index kinds by name: an explicit dict of real classes, and loading by saved metadata."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from backends.index.base import VectorIndex, read_meta
from backends.index.flat import FlatIndex
from backends.index.ivf import IVFIndex
from backends.index.torch_gpu import TorchIndex

INDEXES: dict[str, type[VectorIndex]] = {
    "flat": FlatIndex,
    "ivf": IVFIndex,
    "torch": TorchIndex,
}


def available_indexes() -> list[str]:
    return list(INDEXES)


def index_class(kind: str) -> type[VectorIndex]:
    if kind not in INDEXES:
        raise ValueError(
            f"Unsupported index '{kind}'. The available indexes are: {', '.join(INDEXES)}"
        )
    return INDEXES[kind]


def create_index(kind: str, dim: int, **options: Any) -> VectorIndex:
    """A new empty index; ``options`` go to the class (``nprobe`` for ivf, ``device`` for torch)."""
    return index_class(kind)(dim, **options)


def load_index(directory: Path | str, **options: Any) -> VectorIndex:
    """Load whatever index ``save`` wrote into ``directory``."""
    kind = str(read_meta(directory).get("kind"))
    return index_class(kind).load(directory, **options)
