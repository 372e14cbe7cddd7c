"""Image vectors of a project for one model, from the project's embedding cache.

Suggestions reuse the vectors the rest of the studio computed (``studio.embeddings``,
keyed by model and image content), so scoring attributes embeds only images the cache
does not hold yet, and a second run embeds nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from studio.embeddings import cached_vectors, embed_project_images
from studio.jobs import CancelToken, ProgressCallback, no_progress
from studio.store import Project

if TYPE_CHECKING:
    from backends.models.base import EmbeddingModel


def project_image_vectors(
    project: Project,
    model: EmbeddingModel,
    *,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
) -> tuple[list[str], np.ndarray]:
    """(image ids, (N, dim) unit vectors) of every readable image of the project."""
    images = list(project.iter_images())
    embed_project_images(project, model, images, progress=progress, cancel=cancel)
    return cached_vectors(project, model, images)
