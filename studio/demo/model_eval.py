"""How well a model retrieves demo catalog items by their product text, and vice versa.

The demo model's acceptance figure: for each test-split item, query with its product title
over the whole gallery (all splits) and check whether that very item is in the top 10.
Titles are often shared by several items ("Red Dress"), so 100% is out of reach even for a
perfect model; the exact own-item criterion is kept because it is what a user notices.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from backends.embedding import embed_images
from backends.models.base import EmbeddingModel
from studio.demo.catalog import CatalogItem


def ranks_of_targets(scores: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """0-based rank of ``targets[i]`` in row ``i`` of ``scores`` (ties count against it)."""
    own = scores[np.arange(len(targets)), targets]
    return (scores > own[:, None]).sum(axis=1) + (scores == own[:, None]).sum(axis=1) - 1


def recall_at(ranks: np.ndarray, k: int) -> float:
    return float((ranks < k).mean()) if len(ranks) else 0.0


def evaluate_catalog(
    model: EmbeddingModel, root: Path, items: list[CatalogItem], split: str = "test"
) -> dict[str, float | int]:
    """Title-to-image over the whole gallery, plus text/image recall within ``split``."""
    paths = [Path(root) / item.file for item in items]
    result = embed_images(model, paths, batch_size=128)
    if len(result.skipped):
        raise RuntimeError(f"{len(result.skipped)} catalog images could not be read")
    images = np.zeros((len(items), model.dim), dtype=np.float32)
    images[result.indices] = result.vectors
    query_rows = np.array([i for i, item in enumerate(items) if item.split == split])
    titles = model.encode_texts([items[i].title for i in query_rows])
    ranks_all = ranks_of_targets(titles @ images.T, query_rows)
    split_images = images[query_rows]
    local = np.arange(len(query_rows))
    t2i = ranks_of_targets(titles @ split_images.T, local)
    i2t = ranks_of_targets(split_images @ titles.T, local)
    return {
        "gallery_size": len(items),
        "queries": len(query_rows),
        "title_top10_in_full_gallery": recall_at(ranks_all, 10),
        "title_r1_full_gallery": recall_at(ranks_all, 1),
        "title_r5_full_gallery": recall_at(ranks_all, 5),
        "text_to_image_r1": recall_at(t2i, 1),
        "text_to_image_r10": recall_at(t2i, 10),
        "image_to_text_r1": recall_at(i2t, 1),
        "image_to_text_r10": recall_at(i2t, 10),
        "median_rank_full_gallery": float(np.median(ranks_all) + 1),
    }
