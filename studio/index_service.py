"""The project's search index: built from cached embeddings, persisted, kept in step, queried.

One index per model lives in ``<project cache>/index/<model-slug>/``: the backends' index
files in ``vectors/`` and ``state.json``, which maps the index's integer ids to image ids
(position = id, removed images leave a hole so ids never change) and records each
image's content hash and the model's cache key. ``build_index`` embeds what is missing and
then updates the index in place: new images are added, removed or changed ones dropped or
replaced, so re-running it after an import is cheap. Queries take text, an image (a
project image id or any file), or both (composed: the normalised sum of the two vectors,
the standard zero-shot baseline for composed retrieval), filtered by category, split or
an id set.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from studio.embeddings import (
    EmbeddingCache,
    cached_vectors,
    embed_project_images,
    image_hashes,
    model_slug,
)
from studio.errors import ProjectReadOnlyError, StudioError
from studio.jobs import CancelToken, ProgressCallback, no_progress
from studio.picture_files import refuse_without_pictures
from studio.store import Project

if TYPE_CHECKING:
    from backends.index.base import VectorIndex
    from backends.models.base import EmbeddingModel

DEFAULT_MODEL = "demo"
DEFAULT_KIND = "flat"
STATE_FILE = "state.json"
VECTORS_DIR = "vectors"


@dataclass(frozen=True)
class Hit:
    id: str
    score: float


@dataclass
class BuildReport:
    model: str
    kind: str
    indexed: int
    added: int
    removed: int
    embedded: int
    cached: int
    skipped: list[tuple[str, str]] = field(default_factory=list)
    seconds: float = 0.0
    measured: int = 0  # images whose lightness and colour were measured by this build
    missing: int = 0  # images without a picture file: skipped before embedding
    looked_in: str = ""  # the image root the pictures were looked for in

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["skipped"] = [{"id": i, "reason": r} for i, r in self.skipped]
        return data


def load_project_model(spec: str | None, device: str | None) -> EmbeddingModel:
    """Load a model for the studio; backend errors become one clear ``StudioError``."""
    from backends.errors import ModelUnavailable
    from backends.models.registry import load_model

    try:
        return load_model(spec or DEFAULT_MODEL, None if device in (None, "", "auto") else device)
    except (ModelUnavailable, ValueError) as error:
        raise StudioError(str(error)) from error


def index_build_refusal(project: Project) -> str | None:
    """Why no index can be built into this project (None when one can).

    Embeddings and indexes are stored beside the project, so a read-only project (a
    shared folder, a copy on a read-only disk) cannot take one; the views disable
    *Build index…* with this text and the build refuses with it.
    """
    if not project.read_only:
        return None
    return (
        f"This project is read-only ({project.read_only_reason}), so no index can be built "
        f"into it: embeddings and the index are stored beside it, in {project.cache_dir}. "
        "Copy the project folder (with its images) somewhere you can write to and build "
        "the index there, or ask its owner to build it."
    )


def ensure_index_buildable(project: Project) -> None:
    """Refuse before any work, with one clear line, when the index cannot be written."""
    refusal = index_build_refusal(project)
    if refusal is not None:
        raise ProjectReadOnlyError(refusal)


def index_folder(project: Project, model_name: str) -> Path:
    """Where the index of ``model_name`` (a model spec) lives; needs no loaded model."""
    return project.cache_dir / "index" / model_slug(model_name)


class ProjectIndex:
    """A loaded index of a project's images for one model."""

    def __init__(
        self,
        project: Project,
        model: EmbeddingModel,
        index: VectorIndex,
        image_ids: list[str | None],
        hashes: list[str | None],
    ) -> None:
        self.project = project
        self.model = model
        self.index = index
        self.image_ids = image_ids
        self.hashes = hashes
        self._position = {image_id: i for i, image_id in enumerate(image_ids) if image_id}

    # -- persistence -----------------------------------------------------------------

    @property
    def folder(self) -> Path:
        return index_folder(self.project, self.model.name)

    @classmethod
    def load(
        cls, project: Project, model: EmbeddingModel, device: str | None = None
    ) -> ProjectIndex:
        from backends.index import load_index

        folder = index_folder(project, model.name)
        state = read_state(folder)
        if state is None:
            raise StudioError(
                f"This project has no index for model '{model.name}' yet; build it with "
                f"'cir-studio index build --project {project.path} --model {model.name}'."
            )
        if state["cache_key"] != model.cache_key:
            raise StudioError(
                f"The index for '{model.name}' was built with other weights; rebuild it with "
                "'cir-studio index build'."
            )
        options = {"device": device} if state["kind"] == "torch" else {}
        index = load_index(folder / VECTORS_DIR, **options)
        loaded = cls(project, model, index, state["image_ids"], state["hashes"])
        if len(index) != len(loaded._position):
            raise StudioError(f"The index in {folder} is damaged; run 'cir-studio index build'.")
        return loaded

    def save(self) -> None:
        """Write the index next to the old one, then swap, so a crash leaves one intact."""
        folder = self.folder
        folder.mkdir(parents=True, exist_ok=True)
        fresh, old = folder / (VECTORS_DIR + ".new"), folder / (VECTORS_DIR + ".old")
        shutil.rmtree(fresh, ignore_errors=True)
        self.index.save(fresh)
        if (folder / VECTORS_DIR).exists():
            shutil.rmtree(old, ignore_errors=True)
            (folder / VECTORS_DIR).rename(old)
        fresh.rename(folder / VECTORS_DIR)
        shutil.rmtree(old, ignore_errors=True)
        state = {
            "model": self.model.name,
            "cache_key": self.model.cache_key,
            "kind": self.index.kind,
            "dim": self.index.dim,
            "count": len(self.index),
            "updated_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "image_ids": self.image_ids,
            "hashes": self.hashes,
        }
        tmp = folder / (STATE_FILE + ".tmp")
        tmp.write_text(json.dumps(state))
        tmp.replace(folder / STATE_FILE)

    # -- keeping in step with the project ------------------------------------------

    def sync(self, wanted: dict[str, str], vectors_for: Any) -> tuple[int, int]:
        """Make the index hold exactly ``wanted`` (image id -> content hash).

        ``vectors_for(image_ids)`` returns (ids found, vectors). Returns (added, removed).
        """
        stale = [
            i
            for i, image_id in enumerate(self.image_ids)
            if image_id is not None and wanted.get(image_id) != self.hashes[i]
        ]
        if stale:
            self.index.remove(np.asarray(stale, dtype=np.int64))
            for i in stale:
                del self._position[self.image_ids[i]]  # type: ignore[arg-type]
                self.image_ids[i] = self.hashes[i] = None
        missing = [image_id for image_id in wanted if image_id not in self._position]
        ids, vectors = vectors_for(missing)
        new_positions = []
        for image_id in ids:
            self._position[image_id] = len(self.image_ids)
            new_positions.append(len(self.image_ids))
            self.image_ids.append(image_id)
            self.hashes.append(wanted[image_id])
        if new_positions:
            self.index.add(np.asarray(new_positions, dtype=np.int64), vectors)
        return len(new_positions), len(stale)

    # -- queries ---------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.index)

    def text_vectors(self, texts: Sequence[str]) -> np.ndarray:
        return self.model.encode_texts(list(texts))

    def image_vector(self, image: str | Path) -> np.ndarray:
        """The vector of a project image (by id, from the cache) or of any image file."""
        from backends.images import load_image

        record = self.project.image(str(image)) if isinstance(image, str) else None
        if record is not None:
            ids, vectors = cached_vectors(self.project, self.model, [record])
            if ids:
                return vectors[0]
            path = self.project.image_path(record)
        else:
            path = Path(image).expanduser()
            if not path.is_file():
                raise StudioError(f"'{image}' is neither an image id of this project nor a file.")
        picture, reason = load_image(path)
        if picture is None:
            raise StudioError(f"Cannot use {path} as a query: {reason}.")
        import torch

        return self.model.encode_images(torch.stack([self.model.preprocess(picture)]))[0]

    def allowed_positions(
        self,
        category: str | None = None,
        split: str | None = None,
        ids: Iterable[str] | None = None,
    ) -> np.ndarray | None:
        """Index ids allowed by the filters; None means no filter."""
        if category is None and split is None and ids is None:
            return None
        if category is not None or split is not None:
            names = set(self.project.image_ids_in(category, split))
        else:
            names = set(self._position)
        if ids is not None:
            names &= set(ids)
        return np.asarray(
            sorted(self._position[n] for n in names if n in self._position), dtype=np.int64
        )

    def position(self, image_id: str) -> int | None:
        """The index id of a project image (None when it is not indexed)."""
        return self._position.get(image_id)

    def rank_all(
        self, vector: np.ndarray, allowed: np.ndarray | None, excluded: Iterable[int] = ()
    ) -> tuple[np.ndarray, np.ndarray]:
        """Every allowed index id by descending score, as arrays (no per-hit objects).

        Sessions need the whole ranking for the target's rank; building a ``Hit`` per
        gallery item would cost more than the search itself.
        """
        skip = np.fromiter(excluded, np.int64)
        if allowed is None:
            allowed = np.asarray(sorted(self._position.values()), dtype=np.int64)
        if len(skip):
            allowed = np.setdiff1d(allowed, skip)
        found, scores = self.index.search(np.atleast_2d(vector), len(allowed), allowed_ids=allowed)
        keep = found[0] >= 0
        return found[0][keep], scores[0][keep]

    def search(
        self,
        queries: np.ndarray,
        k: int = 10,
        *,
        category: str | None = None,
        split: str | None = None,
        ids: Iterable[str] | None = None,
        exclude: Iterable[str] = (),
    ) -> list[list[Hit]]:
        """Top-k project images per query vector (rows of ``queries``)."""
        allowed = self.allowed_positions(category, split, ids)
        excluded = {self._position[i] for i in exclude if i in self._position}
        if allowed is not None and excluded:
            allowed = np.setdiff1d(allowed, np.fromiter(excluded, np.int64))
        extra = len(excluded) if allowed is None else 0
        found, scores = self.index.search(np.atleast_2d(queries), k + extra, allowed_ids=allowed)
        results = []
        for row_ids, row_scores in zip(found, scores, strict=True):
            hits = [
                Hit(self.image_ids[int(i)] or "", float(s))
                for i, s in zip(row_ids, row_scores, strict=True)
                if i >= 0 and int(i) not in excluded
            ]
            results.append(hits[:k])
        return results

    def query(
        self,
        text: str | None = None,
        image: str | Path | None = None,
        k: int = 10,
        *,
        category: str | None = None,
        split: str | None = None,
        ids: Iterable[str] | None = None,
        exclude: Iterable[str] = (),
    ) -> list[Hit]:
        """Retrieve by text, by image, or both (composed query)."""
        vector = query_vector(self, text, image)
        return self.search(vector, k, category=category, split=split, ids=ids, exclude=exclude)[0]


def query_vector(index: ProjectIndex, text: str | None, image: str | Path | None) -> np.ndarray:
    """Text, image, or composed (normalised sum) query vector."""
    parts = []
    if image is not None:
        parts.append(index.image_vector(image))
    if text is not None:
        parts.append(index.text_vectors([text])[0])
    if not parts:
        raise StudioError("Give a text, an image, or both to query with.")
    return compose(parts)


def compose(vectors: Sequence[np.ndarray]) -> np.ndarray:
    total = np.sum(np.stack(vectors), axis=0).astype(np.float32)
    norm = float(np.linalg.norm(total))
    return total / norm if norm > 0 else total


def read_state(folder: Path) -> dict[str, Any] | None:
    path = folder / STATE_FILE
    if not path.is_file():
        return None
    return json.loads(path.read_text())


def build_index(
    project: Project,
    model: EmbeddingModel,
    kind: str = DEFAULT_KIND,
    *,
    device: str | None = None,
    rebuild: bool = False,
    batch_size: int = 64,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
) -> BuildReport:
    """Embed what is missing, then create or update the model's index; returns a report."""
    from backends.index import create_index, index_class

    started = time.monotonic()
    index_class(kind)  # unknown kinds fail before any work
    ensure_index_buildable(project)
    refuse_without_pictures(project)  # says why, where to get them, how many
    everything = list(project.iter_images())
    images = [image for image in everything if not image.missing]
    embedded = embed_project_images(
        project, model, images, batch_size=batch_size, progress=progress, cancel=cancel
    )
    if cancel is not None:
        cancel.raise_if_cancelled()
    hashes = image_hashes(project, images)
    state = read_state(index_folder(project, model.name))
    reuse = (
        not rebuild
        and state is not None
        and state["kind"] == kind
        and state["cache_key"] == model.cache_key
    )
    if reuse:
        current = ProjectIndex.load(project, model, device)
    else:
        options = {"device": device} if kind == "torch" else {}
        current = ProjectIndex(project, model, create_index(kind, model.dim, **options), [], [])
    by_id = {image.id: image for image in images}
    cache = EmbeddingCache.for_project(project, model)
    cache_skipped = set(cache.skipped())
    cache.close()
    wanted = {i: h for i, h in hashes.items() if h not in cache_skipped}

    def vectors_for(image_ids: list[str]) -> tuple[list[str], np.ndarray]:
        return cached_vectors(project, model, [by_id[i] for i in image_ids])

    progress(0, 1, "Updating the index")
    added, removed = current.sync(wanted, vectors_for)
    current.save()
    progress(1, 1, "Index saved")
    # Lightness and colourfulness ("darker", "more colourful") are measured here, after the
    # index is saved, never inside a session or a live rank; a cancel keeps what it measured.
    from studio.image_measures import measure_images

    measured = measure_images(project, everything, progress=progress, cancel=cancel)
    return BuildReport(
        model=model.name,
        kind=kind,
        indexed=len(current),
        added=added,
        removed=removed,
        embedded=embedded.embedded,
        cached=embedded.cached,
        skipped=embedded.skipped,
        seconds=round(time.monotonic() - started, 2),
        measured=measured.measured,
        missing=len(everything) - len(images),
        looked_in=str(project.image_root),
    )


def index_status(project: Project, model_name: str = DEFAULT_MODEL) -> dict[str, Any]:
    """What is indexed for ``model_name`` and what an update would change; loads no model."""
    images = [image for image in project.iter_images() if not image.missing]
    state = read_state(index_folder(project, model_name))
    status: dict[str, Any] = {
        "model": model_name,
        "project_images": len(images),
        "missing_files": project.count_images() - len(images),
        "built": state is not None,
    }
    if state is None:
        return status
    indexed = {i: h for i, h in zip(state["image_ids"], state["hashes"], strict=True) if i}
    current = {image.id: image.content_hash for image in images}
    status.update(
        kind=state["kind"],
        dim=state["dim"],
        indexed=len(indexed),
        updated_at=state["updated_at"],
        cache_key=state["cache_key"],
        to_add=sum(1 for i in current if i not in indexed),
        to_remove=sum(1 for i in indexed if i not in current),
        changed=sum(1 for i, h in current.items() if i in indexed and h and indexed[i] != h),
        folder=str(index_folder(project, model_name)),
    )
    return status
