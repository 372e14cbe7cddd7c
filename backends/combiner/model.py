"""The Combiner network (Baldrati et al., CLIP4Cir) over frozen, unit-length features.

    i = relu(W_i · image),  t = relu(W_t · text)              (projections)
    h = relu(W_c · [t; i])                                   (combiner layer)
    λ = sigmoid(g([t; i]))                                   (learned gate, a small MLP)
    query = normalise(W_o · h + λ · text + (1 − λ) · image)  (mix + residual of the sum)
    served = normalise(sum + α · (query − sum)),  sum = normalise(image + text)

``α`` (``CombinerConfig.alpha``, stored in the JSON) interpolates the output back towards
the plain sum (WiSE-FT-style): a combiner trained only on drafted text learns its drafts'
wording and over-commits to the attributes a text states; part of the way back to the sum
transfers better to people's words. α = 1 is the network as trained, α = 0 the sum.

Unlike the paper, ``W_o`` starts at zero, so an untrained Combiner *is* the image + text
sum (λ starts near ½ too): training can only move away from the zero-shot baseline as far
as the data justify, which matters for the few thousand triplets a project has.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import torch

FORMAT = "cir-studio-combiner"
FORMAT_VERSION = 1


class CombinerError(ValueError):
    """A combiner file cannot be used: malformed, or made for another embedding model.

    The message names the file and says what to do, so it can be shown as is.
    """


@dataclass
class CombinerConfig:
    """What a saved combiner is: the embedding model it composes, sizes, how it was trained."""

    name: str
    embedding_model: str  # the model spec, e.g. "demo"
    embedding_key: str  # the model's cache key: weights identity, checked on load
    dim: int
    projection_dim: int = 0  # 0: derived from dim
    hidden_dim: int = 0
    gate_dim: int = 0
    dropout: float = 0.1
    alpha: float = 1.0  # how far the served query goes from the sum to the network's (0..1)
    training: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.dim < 1:
            raise CombinerError(f"A combiner needs a positive feature size, got {self.dim}.")
        if not 0.0 <= self.alpha <= 1.0:
            raise CombinerError(f"A combiner's alpha must lie between 0 and 1, got {self.alpha}.")
        self.projection_dim = self.projection_dim or min(1024, 2 * self.dim)
        self.hidden_dim = self.hidden_dim or min(1024, 2 * self.dim)
        self.gate_dim = self.gate_dim or max(16, self.projection_dim // 4)

    def to_json(self) -> dict[str, Any]:
        return {"format": FORMAT, "format_version": FORMAT_VERSION, **asdict(self)}

    @classmethod
    def from_json(cls, data: Any, where: str) -> CombinerConfig:
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise CombinerError(f"{where} is not a CIR Studio combiner config.")
        if data.get("format_version", 0) > FORMAT_VERSION:
            raise CombinerError(f"{where} was written by a newer CIR Studio; update to load it.")
        fields = {k: data[k] for k in cls.__dataclass_fields__ if k in data}
        try:
            return cls(**fields)
        except TypeError as error:
            raise CombinerError(f"{where} lacks a field: {error}.") from None


def parameter_count(config: CombinerConfig) -> int:
    d, p, h, g = config.dim, config.projection_dim, config.hidden_dim, config.gate_dim
    return 2 * (d * p + p) + (2 * p * h + h) + (h * d + d) + (2 * p * g + g) + (g + 1)


def build_module(config: CombinerConfig) -> torch.nn.Module:
    """The torch module for ``config`` (fresh weights from torch's current seed)."""
    import torch
    from torch import nn

    class _Combiner(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            d, p, h, g = config.dim, config.projection_dim, config.hidden_dim, config.gate_dim
            self.image_projection = nn.Linear(d, p)
            self.text_projection = nn.Linear(d, p)
            self.combiner_layer = nn.Linear(2 * p, h)
            self.output_layer = nn.Linear(h, d)
            self.gate = nn.Sequential(
                nn.Linear(2 * p, g), nn.ReLU(), nn.Dropout(config.dropout), nn.Linear(g, 1)
            )
            self.dropout = nn.Dropout(config.dropout)
            nn.init.zeros_(self.output_layer.weight)
            nn.init.zeros_(self.output_layer.bias)

        def forward(self, image: torch.Tensor, text: torch.Tensor) -> torch.Tensor:
            i = self.dropout(torch.relu(self.image_projection(image)))
            t = self.dropout(torch.relu(self.text_projection(text)))
            joint = torch.cat([t, i], dim=-1)
            hidden = self.dropout(torch.relu(self.combiner_layer(joint)))
            mix = torch.sigmoid(self.gate(joint))
            out = self.output_layer(hidden) + mix * text + (1 - mix) * image
            return torch.nn.functional.normalize(out, dim=-1)

    return _Combiner()


def toward_sum(
    queries: np.ndarray, images: np.ndarray, texts: np.ndarray, alpha: float
) -> np.ndarray:
    """Unit ``normalise(sum + alpha · (queries − sum))`` with ``sum = normalise(images + texts)``
    (unit inputs): alpha 1 keeps ``queries``, alpha 0 gives the sum's query exactly."""
    if alpha == 1.0:
        return queries
    total = images + texts
    total = total / np.maximum(np.linalg.norm(total, axis=1, keepdims=True), 1e-12)
    mixed = (total + np.float32(alpha) * (queries - total)).astype(np.float32)
    return mixed / np.maximum(np.linalg.norm(mixed, axis=1, keepdims=True), 1e-12)


class Combiner:
    """A loaded combiner: ``compose(images, texts)`` → unit query vectors (numpy)."""

    def __init__(
        self, config: CombinerConfig, module: torch.nn.Module, device: str = "cpu"
    ) -> None:
        self.config = config
        self.module = module.to(device).eval()
        self.device = device

    @classmethod
    def untrained(cls, config: CombinerConfig, seed: int = 0) -> Combiner:
        import torch

        torch.manual_seed(seed)
        return cls(config, build_module(config))

    @property
    def name(self) -> str:
        return self.config.name

    def compose(self, images: np.ndarray, texts: np.ndarray) -> np.ndarray:
        """(N, dim) image and text features → (N, dim) float32 unit query vectors."""
        import torch

        images = np.atleast_2d(np.asarray(images, dtype=np.float32))
        texts = np.atleast_2d(np.asarray(texts, dtype=np.float32))
        if images.shape != texts.shape or images.shape[1] != self.config.dim:
            raise CombinerError(
                f"Combiner '{self.name}' takes features of size {self.config.dim}; got images "
                f"{images.shape} and texts {texts.shape}."
            )
        images = images / np.maximum(np.linalg.norm(images, axis=1, keepdims=True), 1e-12)
        texts = texts / np.maximum(np.linalg.norm(texts, axis=1, keepdims=True), 1e-12)
        with torch.no_grad():
            out = self.module(
                torch.from_numpy(images).to(self.device), torch.from_numpy(texts).to(self.device)
            )
        query = out.cpu().numpy().astype(np.float32, copy=False)
        return toward_sum(query, images, texts, self.config.alpha)

    def state_dict(self) -> dict[str, torch.Tensor]:
        return {k: v.detach().cpu().contiguous() for k, v in self.module.state_dict().items()}
