"""Where models and GPU indexes run: cuda, then mps, then cpu, unless the caller says otherwise.

Half precision is used on GPUs (it halves memory and doubles throughput there) and never on
the CPU, where fp16 matmuls are slow or unsupported. A CUDA out-of-memory error in a batch is
answered by retrying the batch in halves rather than failing the whole job.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    import torch

DEVICE_ENV = "CIR_STUDIO_DEVICE"
_AUTO = {"", "auto"}

T = TypeVar("T")


def choose_device(preferred: str | None = None) -> str:
    """Return a torch device string; ``preferred`` (or $CIR_STUDIO_DEVICE) overrides the choice.

    Accepts ``auto``, ``cpu``, ``cuda``, ``cuda:N`` and ``mps``. Asking for a device that is
    not present raises ``ValueError`` rather than silently running somewhere slower.
    """
    import torch

    wanted = (preferred if preferred is not None else os.environ.get(DEVICE_ENV, "")).strip()
    wanted = wanted.lower()
    if wanted in _AUTO:
        if torch.cuda.is_available():
            return "cuda"
        if _mps_available():
            return "mps"
        return "cpu"
    kind = wanted.split(":", 1)[0]
    if kind == "cpu":
        return "cpu"
    if kind == "cuda":
        if not torch.cuda.is_available():
            raise ValueError("Device 'cuda' was requested but no CUDA GPU is available.")
        return wanted
    if kind == "mps":
        if not _mps_available():
            raise ValueError("Device 'mps' was requested but Apple MPS is not available.")
        return "mps"
    raise ValueError(f"Unknown device '{wanted}'. Use one of: auto, cpu, cuda, cuda:N, mps.")


def _mps_available() -> bool:
    import torch

    backend = getattr(torch.backends, "mps", None)
    return bool(backend is not None and backend.is_available())


def is_gpu(device: str) -> bool:
    return device.split(":", 1)[0] in {"cuda", "mps"}


def default_dtype(device: str) -> torch.dtype:
    """fp16 on a GPU, fp32 on the CPU."""
    import torch

    return torch.float16 if is_gpu(device) else torch.float32


def is_oom(error: BaseException) -> bool:
    """True for a CUDA (or MPS) out-of-memory error."""
    import torch

    oom_type = getattr(torch.cuda, "OutOfMemoryError", None)
    if oom_type is not None and isinstance(error, oom_type):
        return True
    return isinstance(error, RuntimeError) and "out of memory" in str(error).lower()


def run_halving_on_oom(
    fn: Callable[[torch.Tensor], torch.Tensor], batch: torch.Tensor, min_size: int = 1
) -> torch.Tensor:
    """Run ``fn(batch)``; on GPU out-of-memory, free the cache and run it on each half.

    The halves recurse, so a batch shrinks until it fits or reaches ``min_size`` (then the
    error propagates). Results are concatenated along the first axis, so the caller sees
    exactly what one call on the whole batch would have returned.
    """
    import torch

    try:
        return fn(batch)
    except Exception as error:  # noqa: BLE001 - re-raised unless it is an OOM
        if not is_oom(error) or len(batch) <= min_size:
            raise
    if torch.cuda.is_available():
        torch.cuda.empty_cache()
    middle = len(batch) // 2
    first = run_halving_on_oom(fn, batch[:middle], min_size)
    second = run_halving_on_oom(fn, batch[middle:], min_size)
    return torch.cat([first, second], dim=0)
