"""CLIP and SigLIP models through Hugging Face transformers (``AutoModel`` + ``AutoProcessor``).

Spec after ``transformers:`` is a hub id (``openai/clip-vit-base-patch32``) or a local folder
written by ``save_pretrained``. transformers loads safetensors when present and otherwise
``torch.load(weights_only=True)``; we never allow pickled code. SigLIP's text tower was
trained on max-length padding, so its texts are padded that way.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from backends.device import choose_device, default_dtype, run_halving_on_oom
from backends.errors import ModelUnavailable
from backends.models.base import EmbeddingModel, to_unit_numpy
from backends.models.hub import fetch, local_only

if TYPE_CHECKING:
    import torch
    from PIL import Image

TEXT_BATCH = 256


class HFModel(EmbeddingModel):
    """A transformers dual encoder exposing ``get_image_features`` / ``get_text_features``."""

    backend = "transformers"

    def __init__(self, model: Any, processor: Any, name: str, device: str) -> None:
        self._model = model.eval()
        self._processor = processor
        self.name = name
        self.device = device
        self._dtype = next(model.parameters()).dtype
        model_type = str(getattr(model.config, "model_type", ""))
        self._max_length_padding = model_type.startswith("siglip")
        self.dim = int(self.encode_texts(["a"]).shape[1])

    @classmethod
    def from_spec(cls, spec: str, device: str | None = None) -> HFModel:
        from transformers import AutoModel, AutoProcessor

        name = f"{cls.backend}:{spec}"
        source = spec.strip()
        if not source:
            raise ValueError("Give a hub id or folder after 'transformers:'.")
        looks_local = source.startswith((".", "/", "~")) or Path(source).expanduser().exists()
        if looks_local:
            folder = Path(source).expanduser()
            if not folder.is_dir():
                raise ModelUnavailable(f"Model '{name}' is not available: no folder {folder}.")
            source = str(folder)
        resolved = choose_device(device)
        dtype = default_dtype(resolved)
        offline = not looks_local and local_only()  # cache only: fail fast, never retry a minute
        model = fetch(
            name, "model", lambda: AutoModel.from_pretrained(source, local_files_only=offline)
        )
        for method in ("get_image_features", "get_text_features"):
            if not hasattr(model, method):
                raise ValueError(f"Model '{name}' is not an image-text dual encoder ({method}).")
        processor = fetch(
            name,
            "processor",
            lambda: AutoProcessor.from_pretrained(source, local_files_only=offline),
        )
        return cls(model.to(device=resolved, dtype=dtype), processor, name, resolved)

    def preprocess(self, image: Image.Image) -> torch.Tensor:
        pixels = self._processor.image_processor(images=image, return_tensors="pt")
        return pixels["pixel_values"][0]

    def encode_images(self, batch: torch.Tensor) -> np.ndarray:
        import torch

        def forward(pixels: torch.Tensor) -> torch.Tensor:
            return _pooled(self._model.get_image_features(pixel_values=pixels))

        with torch.inference_mode():
            pixels = batch.to(self.device, dtype=self._dtype)
            return to_unit_numpy(run_halving_on_oom(forward, pixels))

    def encode_texts(self, texts: Sequence[str]) -> np.ndarray:
        import torch

        if not texts:
            return np.zeros((0, getattr(self, "dim", 0)), dtype=np.float32)
        tokenizer = self._processor.tokenizer
        padding: str | bool = "max_length" if self._max_length_padding else True
        parts = []
        with torch.inference_mode():
            for start in range(0, len(texts), TEXT_BATCH):
                encoded = tokenizer(
                    list(texts[start : start + TEXT_BATCH]),
                    padding=padding,
                    truncation=True,
                    return_tensors="pt",
                )
                inputs = {key: value.to(self.device) for key, value in encoded.items()}
                inputs.pop("token_type_ids", None)
                parts.append(_pooled(self._model.get_text_features(**inputs)))
        return to_unit_numpy(torch.cat(parts))


def _pooled(output: Any) -> torch.Tensor:
    """transformers < 5 returns the projected tensor; 5.x wraps it as ``pooler_output``."""
    import torch

    if isinstance(output, torch.Tensor):
        return output
    return output.pooler_output
