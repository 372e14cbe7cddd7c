"""One HTTP download, standard library only: proxies from the environment, timeouts, a size
limit, and errors sorted into "try again later" and "will never work".

``urllib`` reads ``http_proxy`` / ``https_proxy`` / ``no_proxy`` (any case) itself, which
is all a dataset fetch needs; no third-party client is worth a dependency here.
"""

from __future__ import annotations

import http.client
import socket
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from email.utils import parsedate_to_datetime

from studio import __version__
from studio.jobs import CancelToken, JobCancelled

CHUNK = 64 * 1024
RETRIED_STATUSES = frozenset({408, 425, 429, 500, 502, 503, 504})
USER_AGENT = f"cir-studio/{__version__} (dataset picture fetch; python-urllib)"


class FetchFailed(Exception):
    """A download failed; ``retry`` says whether trying again may help."""

    def __init__(
        self, reason: str, *, retry: bool, status: int | None = None, wait: float | None = None
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        self.retry = retry
        self.status = status
        self.wait = wait  # seconds the server asked us to wait (Retry-After)


@dataclass(frozen=True)
class Limits:
    timeout: float = 20.0  # seconds for the connection and for each read
    deadline: float = 120.0  # seconds for a whole download
    max_bytes: int = 20 * 2**20


def download(url: str, limits: Limits, cancel: CancelToken) -> bytes:
    """The body at ``url``, complete, or ``FetchFailed``/``JobCancelled``."""
    request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT, "Accept": "image/*"})
    started = time.monotonic()
    try:
        response = urllib.request.build_opener().open(request, timeout=limits.timeout)
    except urllib.error.HTTPError as error:
        retry = error.code in RETRIED_STATUSES
        wait = _retry_after(error.headers.get("Retry-After")) if error.headers else None
        error.close()
        raise FetchFailed(f"HTTP {error.code} {error.reason}", retry=retry, status=error.code,
                          wait=wait) from None
    except (urllib.error.URLError, OSError, http.client.HTTPException) as error:
        raise FetchFailed(_network_reason(error), retry=True) from None
    with response:
        length = response.headers.get("Content-Length")
        expected = int(length) if length and length.isdigit() else None
        if expected is not None and expected > limits.max_bytes:
            raise FetchFailed(f"{expected:,} bytes, over the {limits.max_bytes:,}-byte limit",
                              retry=False, status=response.status)
        parts, size = [], 0
        while True:
            if cancel.cancelled:
                raise JobCancelled()
            if time.monotonic() - started > limits.deadline:
                raise FetchFailed(f"slower than the {limits.deadline:g} s limit for one picture",
                                  retry=True)
            try:
                chunk = response.read(CHUNK)
            except http.client.IncompleteRead as error:
                raise FetchFailed(f"body cut off after {size + len(error.partial):,} of "
                                  f"{expected or '?'} bytes", retry=True) from None
            except (OSError, http.client.HTTPException) as error:
                raise FetchFailed(_network_reason(error), retry=True) from None
            if not chunk:
                break
            size += len(chunk)
            if size > limits.max_bytes:
                raise FetchFailed(f"over the {limits.max_bytes:,}-byte limit", retry=False,
                                  status=response.status)
            parts.append(chunk)
        if expected is not None and size != expected:
            raise FetchFailed(f"body cut off after {size:,} of {expected:,} bytes", retry=True)
        return b"".join(parts)


def _network_reason(error: BaseException) -> str:
    reason = getattr(error, "reason", None) or error
    if isinstance(reason, (socket.timeout, TimeoutError)):
        return "timed out"
    return f"network error: {reason}"


def _retry_after(value: str | None) -> float | None:
    if not value:
        return None
    if value.strip().isdigit():
        return float(value)
    try:
        return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError):
        return None


class RateLimit:
    """At most ``rate`` request starts per second over all threads (politeness toward the
    image host); waiting stops early when the job is cancelled."""

    def __init__(self, rate: float) -> None:
        self.interval = 1.0 / rate if rate > 0 else 0.0
        self._next = time.monotonic()
        self._lock = threading.Lock()

    def wait(self, cancel: CancelToken) -> None:
        with self._lock:
            now = time.monotonic()
            slot = max(now, self._next)
            self._next = slot + self.interval
        while (left := slot - time.monotonic()) > 0:
            if cancel.cancelled:
                raise JobCancelled()
            time.sleep(min(left, 0.1))
