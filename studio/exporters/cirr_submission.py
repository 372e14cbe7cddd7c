"""CIRR test-server submission: the two prediction files its evaluation server takes.

- ``test1_pred_ranks_recall.json``: ``{"version": "rc2", "metric": "recall",
  "<pairid>": [top 50 image names], …}``, the reference removed from each ranking.
- ``test1_pred_ranks_recall_subset.json``: ``"metric": "recall_subset"``, for each pair
  the top 3 of its ``img_set`` members other than the reference.

One key per pair of the split (``test1``; another split, e.g. ``val``, gives files of the
same shape for checking against known targets). Queries are composed the standard
zero-shot way: the normalised sum of the reference image's and the caption's vectors.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from studio.errors import StudioError
from studio.exporters.common import ExportedPair, iter_pairs, prepare_folder, write_text_atomic
from studio.jobs import CancelToken, ProgressCallback, no_progress
from studio.store import Project

TOP_K = 50
SUBSET_K = 3
BATCH = 128


def export_cirr_submission(
    project: Project,
    out: Path,
    *,
    source: str | None = None,
    model: str | None = None,
    device: str | None = None,
    split: str = "test1",
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
) -> dict[str, Any]:
    import json

    from studio.embeddings import cached_vectors
    from studio.index_service import ProjectIndex, compose, load_project_model

    cancel = cancel or CancelToken()
    pairs = [p for p in iter_pairs(project, source or "cirr") if p.split == split and p.captions]
    if not pairs:
        raise StudioError(
            f"CIRR {split}: no pairs to predict; import captions/cap.rc2.{split}.json first."
        )
    loaded = load_project_model(model, device)
    index = ProjectIndex.load(project, loaded, device)
    records = [r for r in (project.image(i) for i in sorted({p.reference_id for p in pairs})) if r]
    ids, vectors = cached_vectors(project, loaded, records)
    vector_of = dict(zip(ids, vectors, strict=True))
    # Every pair gets its key, as the server expects: a pair whose reference image has no
    # vector (file missing) is queried by its caption alone, and counted.
    usable = pairs
    gallery = index.allowed_positions(category=None, split=split)
    recall: dict[str, Any] = {"version": "rc2", "metric": "recall"}
    subset: dict[str, Any] = {"version": "rc2", "metric": "recall_subset"}
    for start in range(0, len(usable), BATCH):
        cancel.raise_if_cancelled()
        batch = usable[start : start + BATCH]
        texts = index.text_vectors([p.captions[0]["text"] for p in batch])
        for pair, text in zip(batch, texts, strict=True):
            reference = vector_of.get(pair.reference_id)
            query = compose([text] if reference is None else [reference, text])
            key = str(_pairid(pair))
            recall[key] = _top(index, query, gallery, pair.reference_id, TOP_K)
            members = [m for m in pair.extra.get("img_set", {}).get("members", [])]
            allowed = index.allowed_positions(ids=members)
            subset[key] = _top(index, query, allowed, pair.reference_id, SUBSET_K)
        progress(min(start + BATCH, len(usable)), len(usable), f"predicting {split}")
    out = prepare_folder(out)
    prefix = "test1" if split == "test1" else split
    files = {
        f"{prefix}_pred_ranks_recall.json": recall,
        f"{prefix}_pred_ranks_recall_subset.json": subset,
    }
    for name, data in files.items():
        write_text_atomic(out / name, json.dumps(data))
    return {
        "format": "cirr-submission",
        "out": str(out),
        "model": loaded.name,
        "files": {name: {"pairs": len(data) - 2} for name, data in files.items()},
        "queried_by_caption_only": sum(1 for p in pairs if p.reference_id not in vector_of),
    }


def _pairid(pair: ExportedPair) -> int | str:
    _, _, number = pair.external_key.rpartition(":")
    return int(number) if number.lstrip("-").isdigit() else pair.external_key


def _top(
    index: Any, query: np.ndarray, allowed: np.ndarray | None, reference: str, k: int
) -> list[str]:
    """The k best image names among ``allowed``, the reference left out."""
    skip = index.position(reference)
    if allowed is not None and skip is not None:
        allowed = allowed[allowed != skip]
    if allowed is not None and not len(allowed):
        return []
    limit = k if allowed is None else min(k, len(allowed))
    found, _ = index.index.search(np.atleast_2d(query), limit + 1, allowed_ids=allowed)
    names = [index.image_ids[int(i)] for i in found[0] if i >= 0 and int(i) != skip]
    return [name for name in names if name][:k]
