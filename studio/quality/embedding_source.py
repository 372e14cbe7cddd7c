"""Image and text vectors for the embedding-consistency indicator, when the project has them.

Image vectors come from the project's embedding cache (``studio.embeddings``), which
building the index (``studio.index_service``) fills; this never starts an embedding job,
because a report must not turn into an hour of work. Text vectors come from the same
model. Without an index, or when the model cannot load, the report leaves the indicator
out and says why.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from studio.store import Project

TEXT_BATCH = 256


class ArrayEmbedder:
    """An embedder over vectors already at hand, and a text encoder."""

    def __init__(self, images: dict[str, np.ndarray],
                 encode_texts: Callable[[list[str]], Sequence[np.ndarray] | np.ndarray]) -> None:
        self._images = images
        self._encode_texts = encode_texts

    def image_vectors(self, image_ids: Sequence[str]) -> dict[str, np.ndarray]:
        return {i: self._images[i] for i in image_ids if i in self._images}

    def similarity(self, a: str, b: str) -> float:
        """Cosine similarity of two images (vectors are unit length); 0 when one is missing."""
        if a not in self._images or b not in self._images:
            return 0.0
        return float(self._images[a] @ self._images[b])

    def text_vectors(self, texts: Sequence[str]) -> np.ndarray:
        chunks = [np.asarray(self._encode_texts(list(texts[i : i + TEXT_BATCH])), dtype=np.float32)
                  for i in range(0, len(texts), TEXT_BATCH)]
        return np.concatenate(chunks) if chunks else np.zeros((0, 0), dtype=np.float32)


def project_embedder(project: Project, model_spec: str | None = None,
                     device: str | None = None) -> tuple[ArrayEmbedder | None, str]:
    """(embedder, "") over the project's cached vectors, or (None, the reason there is none).

    Checks the index status first, which loads no model, so a project without an index
    costs nothing; only a built index makes it load the model (for the text vectors).
    """
    try:
        from studio.embeddings import cached_vectors
        from studio.index_service import index_status, load_project_model
    except ImportError:
        return None, "this CIR Studio has no embedding index"
    spec = model_spec or _settings_model()
    if not index_status(project, spec)["built"]:
        return None, (f"the project has no index for model {spec!r} yet "
                      "(build it with 'cir-studio index build')")
    try:
        model = load_project_model(spec, device)
        ids, vectors = cached_vectors(project, model)
    except Exception as error:  # noqa: BLE001 - any model trouble only drops one indicator
        return None, f"the embedding model {spec!r} is not usable here ({error})"
    if not ids:
        return None, f"no cached vectors for model {spec!r} (rebuild the index)"
    return ArrayEmbedder(dict(zip(ids, vectors, strict=True)), model.encode_texts), ""


def _settings_model() -> str:
    from studio.settings import Settings

    return Settings.load().model or "demo"
