"""Embed a list of image files as a job: batched, prefetched, cancellable, resumable by batch.

Decoding JPEGs and resizing them costs about as much as a small model's forward pass, so
worker threads load and preprocess the next batches while the model runs the current one
(PIL and torchvision release the GIL for the heavy parts). Bad files are skipped with a
reason and never abort the job. ``iter_embedded_batches`` yields each batch so a caller can
persist it at once; ``embed_images`` collects everything for callers that do not care.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from backends.images import load_image
from backends.models.base import EmbeddingModel
from backends.protocols import Cancellable, NeverCancelled, Progress, no_progress

if TYPE_CHECKING:
    import torch

Prepared = tuple["torch.Tensor | None", str]


@dataclass
class EmbeddedBatch:
    """One batch: ``indices`` are positions in the input path list, rows of ``vectors``."""

    indices: np.ndarray
    vectors: np.ndarray
    skipped: list[tuple[Path, str]] = field(default_factory=list)


def default_workers() -> int:
    """Decode threads: enough to keep a GPU fed, never more than the machine has cores."""
    return max(1, min(8, os.cpu_count() or 1))


def prepare_image(model: EmbeddingModel, path: Path) -> Prepared:
    """Load and preprocess one file on a worker thread; ``(None, reason)`` if it is bad."""
    image, reason = load_image(path)
    if image is None:
        return None, reason
    try:
        return model.preprocess(image), ""
    except Exception as error:  # noqa: BLE001 - one odd image must not stop the job
        return None, f"preprocessing failed ({error})"


def iter_embedded_batches(
    model: EmbeddingModel,
    paths: Sequence[Path],
    batch_size: int = 64,
    progress: Progress = no_progress,
    cancel: Cancellable | None = None,
    workers: int | None = None,
    prefetch: int = 2,
) -> Iterator[EmbeddedBatch]:
    """Yield embedded batches in input order; ``prefetch`` batches are prepared ahead.

    ``cancel.raise_if_cancelled()`` is called before every batch, so cancelling raises the
    token's exception (``studio.jobs.JobCancelled``) within one batch; pending decodes are
    dropped when the generator exits for any reason.
    """
    import torch

    if batch_size < 1:
        raise ValueError("batch_size must be at least 1")
    cancel = cancel or NeverCancelled()
    paths = [Path(path) for path in paths]
    total = len(paths)
    starts = iter(range(0, total, batch_size))
    done = skipped_total = 0
    pool = ThreadPoolExecutor(max_workers=workers or default_workers(), thread_name_prefix="embed")
    pending: deque[tuple[int, list[Future[Prepared]]]] = deque()

    def submit_next() -> None:
        start = next(starts, None)
        if start is not None:
            chunk = paths[start : start + batch_size]
            pending.append((start, [pool.submit(prepare_image, model, path) for path in chunk]))

    try:
        progress(0, total, "Embedding images")
        for _ in range(prefetch + 1):
            submit_next()
        while pending:
            cancel.raise_if_cancelled()
            start, futures = pending.popleft()
            submit_next()
            tensors, indices, skipped = [], [], []
            for offset, future in enumerate(futures):
                tensor, reason = future.result()
                if tensor is None:
                    skipped.append((paths[start + offset], reason))
                else:
                    tensors.append(tensor)
                    indices.append(start + offset)
            cancel.raise_if_cancelled()
            if tensors:
                vectors = model.encode_images(torch.stack(tensors))
            else:
                vectors = np.zeros((0, model.dim), dtype=np.float32)
            done += len(futures)
            skipped_total += len(skipped)
            message = f"Embedding images ({skipped_total} skipped)" if skipped_total else ""
            progress(done, total, message or "Embedding images")
            yield EmbeddedBatch(np.asarray(indices, dtype=np.int64), vectors, skipped)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


class EmbeddingResult(NamedTuple):
    """All embedded images: ``vectors[i]`` belongs to ``paths[indices[i]]``; unpacks as a tuple."""

    indices: np.ndarray
    vectors: np.ndarray
    skipped: list[tuple[Path, str]]


def embed_images(
    model: EmbeddingModel,
    paths: Sequence[Path],
    batch_size: int = 64,
    progress: Progress = no_progress,
    cancel: Cancellable | None = None,
    workers: int | None = None,
) -> EmbeddingResult:
    """Embed every readable image of ``paths``; unreadable ones are listed in ``skipped``."""
    indices: list[np.ndarray] = []
    vectors: list[np.ndarray] = []
    skipped: list[tuple[Path, str]] = []
    for batch in iter_embedded_batches(model, paths, batch_size, progress, cancel, workers):
        indices.append(batch.indices)
        vectors.append(batch.vectors)
        skipped.extend(batch.skipped)
    if not vectors:
        return EmbeddingResult(np.zeros(0, np.int64), np.zeros((0, model.dim), np.float32), [])
    return EmbeddingResult(np.concatenate(indices), np.concatenate(vectors), skipped)
