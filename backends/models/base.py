"""One interface for every image-text embedding model the studio can use.

Callers (embedding jobs, indexes, retrieval sessions) see only this: a name that keys the
embedding cache, the vector size, the device, a per-image ``preprocess`` that runs on worker
threads, and batch encoders returning L2-normalised float32 numpy arrays, so cosine
similarity is a plain inner product everywhere downstream.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import torch
    from PIL import Image


class EmbeddingModel(ABC):
    """A loaded model. Subclasses set ``name``, ``dim`` and ``device`` in ``__init__``."""

    name: str
    dim: int
    device: str

    @classmethod
    def from_spec(cls, spec: str, device: str | None = None) -> EmbeddingModel:
        """Load the model named by the part of a spec after ``backend:``."""
        raise NotImplementedError

    @property
    def cache_key(self) -> str:
        """What identifies this model's vectors in a cache; two models never share one."""
        return self.name

    @abstractmethod
    def preprocess(self, image: Image.Image) -> torch.Tensor:
        """Turn one RGB image into the model's input tensor (C, H, W); thread-safe."""

    @abstractmethod
    def encode_images(self, batch: torch.Tensor) -> np.ndarray:
        """Embed a stacked batch of preprocessed images: (N, dim) float32, unit rows."""

    @abstractmethod
    def encode_texts(self, texts: Sequence[str]) -> np.ndarray:
        """Embed texts: (N, dim) float32, unit rows."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, dim={self.dim}, device={self.device!r})"


def to_unit_numpy(features: torch.Tensor) -> np.ndarray:
    """L2-normalise rows in float32 (fp16 norms lose precision) and move them to numpy."""
    import torch

    features = features.detach().float()
    features = torch.nn.functional.normalize(features, dim=-1)
    return features.cpu().numpy().astype(np.float32, copy=False)
