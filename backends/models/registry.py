"""Model backends by name, and ``load_model(spec)`` that picks one from a spec string.

The registry is an explicit dict of real classes (no import-time side effects, no dotted
strings), in the manner of fiftyone-brain's similarity backends. Spec forms::

    demo
    open_clip:ViT-B-32/laion2b_s34b_b79k
    open_clip:hf-hub:org/name
    open_clip:ARCH@/path/to/ckpt.safetensors
    transformers:openai/clip-vit-base-patch32      (or a local folder)
"""

from __future__ import annotations

from backends.models.base import EmbeddingModel
from backends.models.demo_model import DemoModel
from backends.models.hf_model import HFModel
from backends.models.openclip_model import OpenClipModel

BACKENDS: dict[str, type[EmbeddingModel]] = {
    "demo": DemoModel,
    "open_clip": OpenClipModel,
    "transformers": HFModel,
}


def available_backends() -> list[str]:
    return list(BACKENDS)


def parse_spec(spec: str) -> tuple[str, str]:
    """Split ``backend:rest`` at the first colon; a bare word is a backend with no options."""
    backend, _, rest = spec.strip().partition(":")
    backend = backend.strip()
    if backend not in BACKENDS:
        raise ValueError(
            f"Unsupported model backend '{backend}'. "
            f"The available backends are: {', '.join(BACKENDS)}"
        )
    return backend, rest.strip()


def load_model(spec: str, device: str | None = None) -> EmbeddingModel:
    """Load the model a spec names on ``device`` (None: cuda, then mps, then cpu).

    Raises ``ValueError`` for a malformed spec and ``backends.errors.ModelUnavailable`` when
    the weights are neither cached nor downloadable right now.
    """
    backend, rest = parse_spec(spec)
    return BACKENDS[backend].from_spec(rest, device)
