"""The project's embedding cache: one vector per (model, image content hash), kept on disk.

Embedding is the slowest thing the studio does, so vectors are computed once per model
and image content and reused by the index, pair mining, attribute suggestions and quality
reports. The cache lives in ``<project cache>/embeddings/<model-slug>/``:

- ``model.json`` names the model's cache key; a folder never holds two models' vectors;
- ``shard-*.npy`` are float32 arrays written atomically, a few thousand rows each, under
  unique names, so two processes (the window and the command line) can fill one cache;
- ``keys.sqlite`` maps a content hash to (shard file, row), and remembers images that could
  not be read, with the reason, so they are not retried until their bytes change (its
  SQL lives in ``studio.store.embedding_cache``).

A build that is cancelled or killed keeps every shard already written; the next run skips
those hashes (resumable). Renamed or moved images keep their vectors (same content).
"""

from __future__ import annotations

import hashlib
import json
import re
import time
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from studio.errors import ImagePathError, StudioError
from studio.hashing import file_digest
from studio.jobs import CancelToken, ProgressCallback, no_progress
from studio.store import Project
from studio.store.embedding_cache import EmbeddingKeys
from studio.store.errors import StoreError
from studio.store.records import ImageRecord

if TYPE_CHECKING:
    from backends.models.base import EmbeddingModel

SHARD_ROWS = 2048
MODEL_FILE = "model.json"
NOT_FOUND = "file not found"  # the reason of an image skipped for want of its picture file


def model_slug(cache_key: str) -> str:
    """A folder name for a model: readable, filesystem-safe, and unique per cache key."""
    readable = re.sub(r"[^A-Za-z0-9._-]+", "-", cache_key).strip("-.")[:60] or "model"
    return f"{readable}-{hashlib.sha1(cache_key.encode()).hexdigest()[:8]}"


def shard_file(shard: str | int) -> str:
    """A shard's file name; caches from before unique names stored a number."""
    return f"shard-{int(shard):06d}.npy" if str(shard).isdigit() else str(shard)


class EmbeddingCache:
    """Vectors of one model, keyed by image content hash."""

    def __init__(self, folder: Path, cache_key: str, dim: int) -> None:
        self.folder = Path(folder)
        self.cache_key = cache_key
        self.dim = int(dim)
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            self._check_model()
            self.keys = EmbeddingKeys(self.folder)
        except (OSError, StoreError) as error:  # a read-only disk
            raise StudioError(
                f"Cannot write the embedding cache in {self.folder} ({error}); it must be a "
                "folder you can write to."
            ) from error

    @classmethod
    def for_project(cls, project: Project, model: EmbeddingModel) -> EmbeddingCache:
        folder = project.cache_dir / "embeddings" / model_slug(model.cache_key)
        return cls(folder, model.cache_key, model.dim)

    def _check_model(self) -> None:
        path = self.folder / MODEL_FILE
        wanted = {"cache_key": self.cache_key, "dim": self.dim}
        if path.is_file():
            stored = json.loads(path.read_text())
            if stored != wanted:
                raise StudioError(
                    f"The embedding cache {self.folder} belongs to model "
                    f"{stored.get('cache_key')!r} (dim {stored.get('dim')}), not "
                    f"{self.cache_key!r}; delete the folder to rebuild it."
                )
        else:
            path.write_text(json.dumps(wanted, indent=2))

    def close(self) -> None:
        self.keys.close()

    def __len__(self) -> int:
        return self.keys.count()

    def known(self, hashes: Iterable[str]) -> set[str]:
        """Hashes already embedded or already known to be unreadable."""
        return self.keys.known(hashes)

    def skipped(self) -> dict[str, str]:
        return self.keys.skipped()

    def put(self, hashes: Sequence[str], vectors: np.ndarray) -> None:
        """Store vectors: the shard file first, then its keys in one transaction."""
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        if len(hashes) != len(vectors) or (len(vectors) and vectors.shape[1] != self.dim):
            raise ValueError(f"expected {len(hashes)} vectors of dimension {self.dim}")
        if not len(hashes):
            return
        shard = f"shard-{time.time_ns():x}-{uuid.uuid4().hex[:8]}.npy"
        tmp = self.folder / (shard + ".tmp.npy")
        np.save(tmp, vectors)
        tmp.replace(self.folder / shard)
        self.keys.add_vectors(shard, hashes)

    def put_skipped(self, reasons: dict[str, str]) -> None:
        self.keys.add_skipped(reasons)

    def get(self, hashes: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """(found mask, vectors of the found hashes in input order)."""
        locations = {h: (shard_file(s), r) for h, (s, r) in self.keys.locations(hashes).items()}
        found = np.array([h in locations for h in hashes], dtype=bool)
        out = np.zeros((int(found.sum()), self.dim), dtype=np.float32)
        by_shard: dict[str, list[tuple[int, int]]] = {}
        for position, h in enumerate(h for h in hashes if h in locations):
            shard, row = locations[h]
            by_shard.setdefault(shard, []).append((position, row))
        for shard, pairs in by_shard.items():
            array = np.load(self.folder / shard, mmap_mode="r")
            positions, shard_rows = zip(*pairs, strict=True)
            out[list(positions)] = array[list(shard_rows)]
        return found, out


@dataclass
class EmbedReport:
    """What an embedding run did; ``skipped`` pairs image ids with reasons."""

    embedded: int = 0
    cached: int = 0
    skipped: list[tuple[str, str]] = field(default_factory=list)


def image_hashes(project: Project, images: Sequence[ImageRecord]) -> dict[str, str]:
    """Content hash per image id: the stored one, else hashed from the file now."""
    out: dict[str, str] = {}
    for image in images:
        if image.content_hash:
            out[image.id] = image.content_hash
            continue
        try:
            path = project.image_path(image)
        except ImagePathError:
            continue  # reported as unreadable by the caller; never read
        if path.is_file():
            out[image.id] = file_digest(path)
    return out


def _has_file(project: Project, image: ImageRecord) -> bool:
    try:
        return project.image_path(image).is_file()
    except ImagePathError:
        return True  # refused paths are reported by the decode step, with their reason


def embed_project_images(
    project: Project,
    model: EmbeddingModel,
    images: Sequence[ImageRecord] | None = None,
    *,
    batch_size: int = 64,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
) -> EmbedReport:
    """Make sure the cache holds a vector for every readable image (default: all images).

    Images whose content is already cached are skipped, so an interrupted run resumes.
    Vectors are flushed to disk every ``SHARD_ROWS`` images and when the job stops.
    """
    from backends.embedding import iter_embedded_batches

    images = list(images if images is not None else project.iter_images())
    cache = EmbeddingCache.for_project(project, model)
    report = EmbedReport()
    hashes = image_hashes(project, images)
    for image in images:
        if image.id not in hashes:
            report.skipped.append((image.id, NOT_FOUND))
    known = cache.known(hashes.values())
    skipped_before = cache.skipped()
    todo: dict[str, ImageRecord] = {}
    for image in images:
        digest = hashes.get(image.id)
        if digest is None:
            continue
        if digest in skipped_before:
            report.skipped.append((image.id, skipped_before[digest]))
        elif digest in known:
            report.cached += 1
        elif not _has_file(project, image):
            # The stored hash is known but the picture is gone (moved, or the project file
            # was copied alone): skipped for that reason, and not remembered as unreadable,
            # so the next build after Set image folder embeds it.
            report.skipped.append((image.id, NOT_FOUND))
        else:
            todo.setdefault(digest, image)
    todo_hashes: list[str] = []
    paths: list[Path] = []
    for digest, image in todo.items():
        try:
            paths.append(project.image_path(image))
        except ImagePathError as error:
            report.skipped.append((image.id, str(error)))
            continue
        todo_hashes.append(digest)
    pending_hashes: list[str] = []
    pending_vectors: list[np.ndarray] = []

    def flush() -> None:
        if pending_hashes:
            cache.put(pending_hashes, np.concatenate(pending_vectors))
            report.embedded += len(pending_hashes)
            pending_hashes.clear()
            pending_vectors.clear()

    path_index = {path: i for i, path in enumerate(paths)}
    try:
        batches = iter_embedded_batches(
            model, paths, batch_size=batch_size, progress=progress, cancel=cancel
        )
        for batch in batches:
            pending_hashes.extend(todo_hashes[int(i)] for i in batch.indices)
            pending_vectors.append(batch.vectors)
            reasons = {todo_hashes[path_index[path]]: reason for path, reason in batch.skipped}
            cache.put_skipped(reasons)
            report.skipped.extend((todo[h].id, r) for h, r in reasons.items())
            if len(pending_hashes) >= SHARD_ROWS:
                flush()
    finally:
        flush()
        cache.close()
    return report


def cached_vectors(
    project: Project, model: EmbeddingModel, images: Sequence[ImageRecord] | None = None
) -> tuple[list[str], np.ndarray]:
    """(image ids, vectors) for the images whose vectors are cached; embeds nothing."""
    images = list(images if images is not None else project.iter_images())
    hashes = image_hashes(project, images)
    with_hash = [image for image in images if image.id in hashes]
    cache = EmbeddingCache.for_project(project, model)
    try:
        found, vectors = cache.get([hashes[image.id] for image in with_hash])
    finally:
        cache.close()
    ids = [image.id for image, hit in zip(with_hash, found, strict=True) if hit]
    return ids, vectors
