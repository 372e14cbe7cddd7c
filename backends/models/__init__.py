"""Image-text embedding models behind one interface; see ``registry.load_model``."""

from backends.models.base import EmbeddingModel
from backends.models.registry import BACKENDS, available_backends, load_model, parse_spec

__all__ = ["BACKENDS", "EmbeddingModel", "available_backends", "load_model", "parse_spec"]
