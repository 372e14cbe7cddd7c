"""The shipped demo model: a tiny open_clip CLIP trained on the synthetic demo catalog.

It exists so the studio, its tests and its demo work with no network and no downloads. It
is an ordinary open_clip architecture (``resources/demo_model/cir-demo.json``) plus a
safetensors checkpoint, loaded through exactly the same path as any user checkpoint; only
the registration of the JSON config with open_clip happens here, at load time.
"""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path

from backends.errors import ModelUnavailable
from backends.models.openclip_model import OpenClipModel

DEMO_DIR = Path(__file__).resolve().parents[2] / "resources" / "demo_model"
DEMO_ARCH = "cir-demo"
CONFIG_PATH = DEMO_DIR / f"{DEMO_ARCH}.json"
WEIGHTS_PATH = DEMO_DIR / f"{DEMO_ARCH}.safetensors"


def register_demo_config(config_path: Path = CONFIG_PATH) -> str:
    """Make the demo architecture known to open_clip (idempotent); returns its name."""
    import open_clip

    if config_path.stem not in open_clip.list_models():
        open_clip.add_model_config(config_path)
    return config_path.stem


@cache
def _weights_digest(path: Path, size: int, mtime_ns: int) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:12]


class DemoModel(OpenClipModel):
    """``demo``: always available offline; its cache key changes when its weights change."""

    backend = "demo"

    @classmethod
    def from_spec(cls, spec: str = "", device: str | None = None) -> DemoModel:
        if spec:
            raise ValueError(f"The demo model takes no options (got 'demo:{spec}').")
        if not CONFIG_PATH.is_file() or not WEIGHTS_PATH.is_file():
            raise ModelUnavailable(
                f"Model 'demo' is not available: {DEMO_DIR} lacks {CONFIG_PATH.name} or "
                f"{WEIGHTS_PATH.name}. Rebuild it with "
                "'python -m studio.demo.train_model --out resources/demo_model'."
            )
        arch = register_demo_config()
        model = cls.from_checkpoint(arch, WEIGHTS_PATH, device, name="demo")
        assert isinstance(model, DemoModel)
        return model

    @property
    def cache_key(self) -> str:
        stat = WEIGHTS_PATH.stat()
        return f"demo-{_weights_digest(WEIGHTS_PATH, stat.st_size, stat.st_mtime_ns)}"
