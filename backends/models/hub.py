"""Fetch model files from the Hugging Face Hub quickly, or fail fast with one clear message.

Offline laptops, firewalls, ``HF_HUB_OFFLINE=1`` and typos all surface from huggingface_hub
and urllib as different exception types; a person only needs to know which model is missing
and how to get it. And huggingface_hub retries an unreachable host five times with backoff
per file (over a minute for one model), so before any download we probe the hub once with a
short connect timeout: when it cannot be reached, files are taken from the local cache only,
which either succeeds at once or fails at once.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Callable, Sequence
from typing import TypeVar
from urllib.parse import urlparse

from backends.errors import ModelUnavailable

T = TypeVar("T")

_TRUE = {"1", "on", "yes", "true"}
PROBE_TIMEOUT_S = 3.0
PROBE_TTL_S = 60.0
_probe_cache: dict[str, tuple[float, bool]] = {}


def hub_offline() -> bool:
    """True when the user asked Hugging Face libraries not to touch the network."""
    return any(
        os.environ.get(name, "").strip().lower() in _TRUE
        for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")
    )


def hub_endpoint() -> str:
    return os.environ.get("HF_ENDPOINT", "https://huggingface.co").rstrip("/")


def hub_reachable(timeout: float = PROBE_TIMEOUT_S) -> bool:
    """Can we open a TCP connection to the hub? Answered within ``timeout`` (DNS included)."""
    url = urlparse(hub_endpoint())
    host, port = url.hostname or "huggingface.co", url.port or (80 if url.scheme == "http" else 443)
    cached = _probe_cache.get(host)
    if cached and time.monotonic() - cached[0] < PROBE_TTL_S:
        return cached[1]
    result = [False]

    def probe() -> None:
        try:
            with socket.create_connection((host, port), timeout=timeout):
                result[0] = True
        except OSError:
            result[0] = False

    thread = threading.Thread(target=probe, daemon=True)  # getaddrinfo has no timeout
    thread.start()
    thread.join(timeout)
    _probe_cache[host] = (time.monotonic(), result[0])
    return result[0]


def local_only() -> bool:
    """Use the local cache only: the user said so, or the hub cannot be reached."""
    return hub_offline() or not hub_reachable()


def unavailable_message(spec: str, reason: str) -> str:
    hint = (
        "Run once with a network connection so it is saved in the Hugging Face cache "
        "(~/.cache/huggingface, or $HF_HOME), or point to local weights instead, e.g. "
        "'open_clip:ARCH@/path/model.safetensors' or 'transformers:/path/to/folder'. "
        "The shipped 'demo' model always works offline."
    )
    if hub_offline():
        hint = "HF_HUB_OFFLINE is set and the model is not in the local cache. " + hint
    elif not hub_reachable():
        hint = f"{hub_endpoint()} cannot be reached and the model is not cached. " + hint
    return f"Model '{spec}' is not available: {reason}. {hint}"


def fetch(spec: str, what: str, download: Callable[[], T]) -> T:
    """Run ``download`` and wrap any failure as ``ModelUnavailable`` for model ``spec``."""
    try:
        return download()
    except ModelUnavailable:
        raise
    except Exception as error:  # noqa: BLE001 - every download failure means the same to a user
        text = str(error).strip()
        detail = text.splitlines()[0] if text else type(error).__name__
        raise ModelUnavailable(
            unavailable_message(spec, f"could not fetch {what} ({detail})")
        ) from error


def hub_file(spec: str, repo: str, filenames: Sequence[str]) -> str:
    """Local path of the first of ``filenames`` found in ``repo`` (cache first, then hub)."""
    from huggingface_hub import hf_hub_download

    offline = local_only()
    last = ""
    for filename in filenames:
        try:
            return hf_hub_download(repo, filename, local_files_only=offline)
        except Exception as error:  # noqa: BLE001 - try the next candidate name
            last = (
                str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
            )
    names = " or ".join(filenames)
    reason = f"{repo}: {names} is not in the local cache" if offline else f"{repo}: {last}"
    raise ModelUnavailable(unavailable_message(spec, reason))


def hub_tokenizer_files(repo: str) -> None:
    """Fetch a repo's tokenizer files next to its weights (best effort; none is fine)."""
    from huggingface_hub import snapshot_download

    patterns = ["tokenizer*", "vocab*", "merges.txt", "special_tokens_map.json", "*.model"]
    try:
        snapshot_download(repo, allow_patterns=patterns, local_files_only=local_only())
    except Exception:  # noqa: BLE001 - the tokenizer step reports a missing file clearly
        return
