"""Thumbnails a worker answered lately, so the same thumbnail is not made twice.

A pair's two pictures are asked for by its first annotator, its second one and the
reviewer of each caption, and one image is in many pairs: without this each asks
decodes the file, scales it and encodes a JPEG again (about half of a worker's time on
a picture request, measured with ``py-spy`` under ``bench/bench_server.py``). The
key holds the file's place, change time and size (what the ETag holds) and the asked
size, so a replaced file is a new entry; the least recently used go first once the
cache holds ``budget`` bytes. Thread-safe: a worker's request threads share it.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

BUDGET_BYTES = 64 * 1024 * 1024  # about 3,000 thumbnails of 256 pixels per worker

Key = tuple[str, int, int, int]  # file, change time (ns), size (bytes), asked size (pixels)


class PictureCache:
    """Bounded by the bytes it holds; ``get`` and ``put`` keep the newest in use."""

    def __init__(self, budget: int = BUDGET_BYTES) -> None:
        self.budget = budget
        self.held = 0
        self._lock = threading.Lock()
        self._entries: OrderedDict[Key, tuple[bytes, str]] = OrderedDict()

    def get(self, key: Key) -> tuple[bytes, str] | None:
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
            return found

    def put(self, key: Key, body: bytes, media_type: str) -> None:
        """Keep ``body`` (a body larger than a quarter of the budget is not kept: one huge
        picture must not push out hundreds of others)."""
        if len(body) > self.budget // 4:
            return
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self.held -= len(old[0])
            self._entries[key] = (body, media_type)
            self.held += len(body)
            while self.held > self.budget:
                _, (dropped, _) = self._entries.popitem(last=False)
                self.held -= len(dropped)

    def __len__(self) -> int:
        return len(self._entries)
