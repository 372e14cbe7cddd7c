"""Model suggestions: zero-shot scores of every vocabulary attribute on every image.

For each category the prompts of an attribute ("a photo of a {category} with {attribute}",
…, see ``scoring.TEMPLATES``) are embedded and averaged; each image is compared with its
category's prompts, the scores are calibrated (``scoring.calibrate``: the bare-category
direction removed, then a softmax per type with a "none of these" option) and the top N
per image (8, as Fashion IQ) are stored as 'model' labels whose ``model`` column is the
model spec, so suggestions of two models never mix. Image vectors come from the
project's embedding cache; only missing ones are computed.

Everything is computed before anything is written, and the write is one transaction,
so a cancelled run leaves the previous suggestions as they were.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from studio.attributes.labels import replace_suggestions
from studio.attributes.records import VocabularyEntry
from studio.attributes.scoring import average_prompts, calibrate, null_prompts, prompts, top_n
from studio.attributes.vocabulary import load_vocabulary
from studio.attributes.vocabulary_io import ensure_vocabulary
from studio.errors import StudioError
from studio.jobs import CancelToken, ProgressCallback, no_progress
from studio.store import Project

if TYPE_CHECKING:
    from backends.models.base import EmbeddingModel

DEFAULT_TOP_N = 8
PROMPT_CACHE_SIZE = 24
_PROMPT_CACHE: dict[tuple[object, ...], tuple[np.ndarray, np.ndarray]] = {}


def prompt_vectors(
    model: EmbeddingModel, entries: Sequence[VocabularyEntry], category: str
) -> tuple[np.ndarray, np.ndarray]:
    """Unit vectors for ``category``: (attributes, dim) averaged prompts, and the bare prompt.

    Remembered per model, category and vocabulary for the life of the process: encoding a
    few thousand prompts costs seconds on a CPU, and reviewers re-run suggestions often.
    """
    key = (model.cache_key, category, tuple((e.name, e.type) for e in entries))
    cached = _PROMPT_CACHE.get(key)
    if cached is not None:
        return cached
    texts: list[str] = null_prompts(category)
    counts: list[int] = [len(texts)]
    for entry in entries:
        own = prompts(entry.name, entry.type, category)
        texts += own
        counts.append(len(own))
    vectors = average_prompts(model.encode_texts(texts), counts)
    if len(_PROMPT_CACHE) >= PROMPT_CACHE_SIZE:
        _PROMPT_CACHE.pop(next(iter(_PROMPT_CACHE)))
    _PROMPT_CACHE[key] = (vectors[1:], vectors[0])
    return _PROMPT_CACHE[key]


def suggest_attributes(
    project: Project,
    actor: str,
    model_spec: str,
    *,
    device: str | None = "auto",
    top_n_per_image: int = DEFAULT_TOP_N,
    calibration: str = "type-softmax",
    model: EmbeddingModel | None = None,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
) -> dict[str, object]:
    """Store the top ``top_n_per_image`` calibrated attributes of every image for a model.

    ``model`` may be passed when the caller already loaded ``model_spec``.
    """
    from studio.attributes.image_vectors import project_image_vectors
    from studio.index_service import load_project_model

    if top_n_per_image < 1:
        raise StudioError("Keep at least one suggestion per image.")
    ensure_vocabulary(project, actor)
    entries = load_vocabulary(project)
    if not entries:
        raise StudioError("The vocabulary is empty; add or import attributes first.")
    progress(0, 0, f"Loading {model_spec}")
    model = model or load_project_model(model_spec, device)
    ids, vectors = project_image_vectors(project, model, progress=progress, cancel=cancel)
    categories = {image.id: image.category for image in project.iter_images()}
    rows_of: dict[str, list[int]] = {}
    for row, image_id in enumerate(ids):
        rows_of.setdefault(categories.get(image_id, ""), []).append(row)
    types = [e.type for e in entries]
    attribute_ids = np.array([int(e.id or 0) for e in entries])
    found: dict[str, dict[int, float]] = {}
    done = 0
    for category, rows in sorted(rows_of.items()):
        if cancel is not None:
            cancel.raise_if_cancelled()
        progress(done, len(ids), f"Scoring attributes of {category or 'uncategorised'} images")
        attributes, null = prompt_vectors(model, entries, category)
        confidences = calibrate(vectors[rows], attributes, null, types, calibration)
        best = top_n(confidences, top_n_per_image)
        for local, row in enumerate(rows):
            found[ids[row]] = {
                int(attribute_ids[c]): round(float(confidences[local, c]), 4)
                for c in best[local]
            }
        done += len(rows)
        progress(done, len(ids), f"Scored {done:,} of {len(ids):,} images")
    if cancel is not None:
        cancel.raise_if_cancelled()
    counts = replace_suggestions(project, actor, "model", model_spec, found, "attributes.suggest")
    return {"model": model_spec, "images": len(found), "top_n": top_n_per_image,
            "calibration": calibration, "labels": sum(len(v) for v in found.values()), **counts}
