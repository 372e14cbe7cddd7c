"""open_clip models: a published tag, a Hugging Face repo, or an architecture plus a checkpoint.

Spec forms (after the ``open_clip:`` prefix):

- ``ViT-B-32/laion2b_s34b_b79k`` — an architecture and one of its published weight tags;
- ``hf-hub:org/name`` — a repo holding ``open_clip_config.json`` and weights;
- ``ARCH@/path/to/ckpt.safetensors`` — any checkpoint for a known (or added) architecture.

Weights are downloaded by this module first, so a missing network surfaces as one
``ModelUnavailable`` instead of open_clip's warning-and-random-weights fallback. Checkpoints
load only as safetensors or through ``torch.load(weights_only=True)`` (open_clip's loader).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from backends.device import choose_device, is_gpu, run_halving_on_oom
from backends.errors import ModelUnavailable
from backends.models.base import EmbeddingModel, to_unit_numpy
from backends.models.hub import (
    fetch,
    hub_file,
    hub_tokenizer_files,
    local_only,
    unavailable_message,
)

if TYPE_CHECKING:
    import torch
    from PIL import Image

CHECKPOINT_SUFFIXES = (".safetensors", ".pt", ".pth", ".bin")
_PREPROCESS_KEYS = ("mean", "std", "interpolation", "resize_mode")
TEXT_BATCH = 256
HUB_WEIGHTS = "open_clip_pytorch_model.bin"


class OpenClipModel(EmbeddingModel):
    """An open_clip CLIP/SigLIP model in eval mode on one device."""

    backend = "open_clip"

    def __init__(
        self,
        model: torch.nn.Module,
        preprocess: Callable[[Image.Image], torch.Tensor],
        tokenizer: Callable[[Sequence[str]], torch.Tensor],
        name: str,
        device: str,
    ) -> None:
        self._model: Any = model.eval()  # open_clip's CLIP; its encoders are typed loosely
        self._preprocess = preprocess
        self._tokenizer = tokenizer
        self.name = name
        self.device = device
        self._dtype = next(model.parameters()).dtype
        self.dim = int(self.encode_texts(["a"]).shape[1])

    @classmethod
    def from_spec(cls, spec: str, device: str | None = None) -> OpenClipModel:
        """Load from the part of a spec after ``open_clip:``."""
        full = f"{cls.backend}:{spec}"
        if spec.startswith("hf-hub:"):
            return cls._from_hub_repo(spec, full, device)
        if "@" in spec:
            arch, _, checkpoint = spec.partition("@")
            return cls.from_checkpoint(arch.strip(), Path(checkpoint.strip()), device, name=full)
        arch, _, tag = spec.partition("/")
        if not tag:
            raise ValueError(
                f"Model '{full}' names no weights. Use 'open_clip:ARCH/TAG' (a published tag), "
                "'open_clip:hf-hub:org/name' or 'open_clip:ARCH@/path/to/checkpoint'."
            )
        return cls._from_tag(arch, tag, full, device)

    @classmethod
    def from_checkpoint(
        cls, arch: str, checkpoint: Path, device: str | None = None, name: str | None = None
    ) -> OpenClipModel:
        """Build architecture ``arch`` and load ``checkpoint`` (safetensors or weights-only)."""
        import open_clip

        name = name or f"{cls.backend}:{arch}@{checkpoint}"
        if arch not in open_clip.list_models():
            raise ValueError(f"Unknown open_clip architecture '{arch}' in model '{name}'.")
        if not checkpoint.is_file():
            raise ModelUnavailable(
                f"Model '{name}' is not available: checkpoint file {checkpoint} does not exist."
            )
        if checkpoint.suffix.lower() not in CHECKPOINT_SUFFIXES:
            raise ValueError(
                f"Checkpoint {checkpoint} has an unsupported type; use one of "
                f"{', '.join(CHECKPOINT_SUFFIXES)}."
            )
        return cls._build(arch, str(checkpoint), name, device, {})

    @classmethod
    def _from_tag(cls, arch: str, tag: str, name: str, device: str | None) -> OpenClipModel:
        import open_clip
        from open_clip.pretrained import download_pretrained

        if arch not in open_clip.list_models():
            raise ValueError(f"Unknown open_clip architecture '{arch}' in model '{name}'.")
        tag_cfg = open_clip.get_pretrained_cfg(arch, tag)
        if not tag_cfg:
            tags = ", ".join(open_clip.list_pretrained_tags_by_model(arch)) or "none"
            raise ValueError(f"Unknown weights '{tag}' for '{arch}'. Known tags: {tags}.")
        if tag_cfg.get("hf_hub"):
            repo, filename = os.path.split(tag_cfg["hf_hub"])  # "org/name/" or "org/name/file"
            checkpoint = hub_file(name, repo, _weight_names(filename or HUB_WEIGHTS))
        elif local_only():
            raise ModelUnavailable(unavailable_message(name, "its weights are only on a URL"))
        else:
            checkpoint = fetch(name, "weights", lambda: download_pretrained(tag_cfg))
        overrides = {key: tag_cfg[key] for key in _PREPROCESS_KEYS if key in tag_cfg}
        quick_gelu = bool(tag_cfg.get("quick_gelu", False))
        return cls._build(arch, checkpoint, name, device, overrides, quick_gelu=quick_gelu)

    @classmethod
    def _from_hub_repo(cls, spec: str, name: str, device: str | None) -> OpenClipModel:
        """Fetch config, weights and tokenizer files, then load them as a local folder."""
        import open_clip

        repo = spec.removeprefix("hf-hub:")
        config = hub_file(name, repo, ["open_clip_config.json"])
        hub_file(name, repo, _weight_names(HUB_WEIGHTS))
        hub_tokenizer_files(repo)
        folder = f"local-dir:{os.path.dirname(config)}"
        resolved = choose_device(device)
        model, _, preprocess = fetch(
            name,
            "model",
            lambda: open_clip.create_model_and_transforms(
                folder, device=resolved, precision=_precision(resolved), weights_only=True
            ),
        )
        try:
            tokenizer = open_clip.get_tokenizer(folder)
        except Exception:  # noqa: BLE001 - the tokenizer may live in another repo
            if local_only():
                raise
            tokenizer = fetch(name, "tokenizer", lambda: open_clip.get_tokenizer(spec))
        return cls(model, preprocess, tokenizer, name, resolved)

    @classmethod
    def _build(
        cls,
        arch: str,
        checkpoint: str,
        name: str,
        device: str | None,
        preprocess_overrides: dict[str, Any],
        quick_gelu: bool = False,
    ) -> OpenClipModel:
        import open_clip

        resolved = choose_device(device)
        model, _, preprocess = open_clip.create_model_and_transforms(
            arch,
            pretrained=checkpoint,
            device=resolved,
            precision=_precision(resolved),
            force_quick_gelu=quick_gelu,
            weights_only=True,
            **{f"image_{key}": value for key, value in preprocess_overrides.items()},
        )
        tokenizer = open_clip.get_tokenizer(arch)
        return cls(model, preprocess, tokenizer, name, resolved)

    def preprocess(self, image: Image.Image) -> torch.Tensor:
        return self._preprocess(image)

    def encode_images(self, batch: torch.Tensor) -> np.ndarray:
        import torch

        with torch.inference_mode():
            pixels = batch.to(self.device, dtype=self._dtype, non_blocking=True)
            features = run_halving_on_oom(self._model.encode_image, pixels)
        return to_unit_numpy(features)

    def encode_texts(self, texts: Sequence[str]) -> np.ndarray:
        import torch

        if not texts:
            return np.zeros((0, getattr(self, "dim", 0)), dtype=np.float32)
        parts = []
        with torch.inference_mode():
            for start in range(0, len(texts), TEXT_BATCH):
                tokens = self._tokenizer(list(texts[start : start + TEXT_BATCH]))
                tokens = tokens.to(self.device)
                parts.append(run_halving_on_oom(self._model.encode_text, tokens))
        return to_unit_numpy(torch.cat(parts))

    @property
    def torch_module(self) -> torch.nn.Module:
        """The underlying open_clip module (for training and tests)."""
        return self._model


def _weight_names(filename: str) -> list[str]:
    """Safetensors first (open_clip's own preference), then the named file."""
    names = []
    if filename == HUB_WEIGHTS:
        names.append("open_clip_model.safetensors")
    if filename.endswith((".bin", ".pth", ".pt")):
        names.append(filename.rsplit(".", 1)[0] + ".safetensors")
    return [*names, filename]


def _precision(device: str) -> str:
    return "fp16" if is_gpu(device) else "fp32"
