"""Vector indexes behind one interface: exact faiss (flat), approximate faiss (ivf), torch GPU."""

from backends.index.base import VectorIndex
from backends.index.registry import (
    INDEXES,
    available_indexes,
    create_index,
    index_class,
    load_index,
)

__all__ = [
    "INDEXES",
    "VectorIndex",
    "available_indexes",
    "create_index",
    "index_class",
    "load_index",
]
