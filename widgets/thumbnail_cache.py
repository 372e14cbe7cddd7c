"""Thumbnails decoded off the UI thread, kept in an LRU cache, placeholder while loading.

``get`` never blocks: it returns the cached picture, or a placeholder and queues a
decode on the services' IO lane. Workers produce ``QImage`` (safe off the UI thread) and
hand it to the services' relay; the UI thread turns it into a ``QPixmap`` and announces
``ready(path, size)`` so views repaint just the rows that asked. When the user scrolls
faster than files decode, the oldest queued requests are dropped: nobody is looking at
those rows any more. One cache serves every pane (the services own it).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future
from concurrent.futures import wait as wait_futures
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QSize, Qt, Signal
from PySide6.QtGui import QColor, QImage, QImageReader, QPainter, QPixmap
from shiboken6 import isValid

if TYPE_CHECKING:
    from widgets.services import Lane

CAPACITY = 1500
MAX_QUEUED = 48


def decode(path: str, size: int) -> QImage:
    """Read ``path`` scaled to fit ``size`` (the decoder skips the detail it would drop)."""
    reader = QImageReader(path)
    reader.setAutoTransform(True)
    original = reader.size()
    if original.isValid():
        reader.setScaledSize(original.scaled(QSize(size, size), Qt.AspectRatioMode.KeepAspectRatio))
    return reader.read()


class ThumbnailCache(QObject):
    ready = Signal(str, int)  # path, size

    def __init__(
        self,
        lane: Lane,
        post: Callable[[Callable[[], Any]], None],
        capacity: int = CAPACITY,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.capacity = capacity
        self._lane = lane
        self._post = post
        self._futures: set[Future] = set()
        self._cache: OrderedDict[tuple[str, int], QPixmap] = OrderedDict()
        # Requests not started yet, newest last; workers take the newest first, so the rows
        # in view now are drawn before those scrolled past. Guarded by ``_lock``.
        self._pending: OrderedDict[tuple[str, int], None] = OrderedDict()
        self._in_flight: set[tuple[str, int]] = set()
        self._lock = threading.Lock()
        self._placeholders: dict[tuple[int, str], QPixmap] = {}
        self.decoded = 0  # how many files were decoded (for tests and the benchmark)

    def get(self, path: Path | str | None, size: int, missing: bool = False) -> QPixmap:
        """The thumbnail if decoded, else a placeholder (and the decode is queued)."""
        if path is None or missing:
            return self.placeholder(size, "missing" if missing else "")
        key = (str(path), size)
        cached = self._cache.get(key)
        if cached is not None:
            self._cache.move_to_end(key)
            return cached
        with self._lock:
            wanted = key not in self._pending and key not in self._in_flight
            if wanted:
                self._pending[key] = None
                while len(self._pending) > MAX_QUEUED:
                    self._pending.popitem(last=False)  # scrolled past: nobody looks any more
        if wanted:
            future = self._lane.submit(self._work)
            self._futures.add(future)
            future.add_done_callback(self._futures.discard)
        return self.placeholder(size, "loading")

    def cached(self, path: Path | str, size: int) -> QPixmap | None:
        return self._cache.get((str(path), size))

    def placeholder(self, size: int, text: str = "") -> QPixmap:
        key = (size, text)
        if key not in self._placeholders:
            pixmap = QPixmap(size, size)
            pixmap.fill(QColor("#eceef1"))
            if text and size >= 48:
                painter = QPainter(pixmap)
                painter.setPen(QColor("#8a919c"))
                painter.drawText(
                    pixmap.rect(),
                    Qt.AlignmentFlag.AlignCenter,
                    {"missing": "image file\nmissing", "loading": "…"}.get(text, text),
                )
                painter.end()
            self._placeholders[key] = pixmap
        return self._placeholders[key]

    def _work(self) -> None:
        """On a pool thread: decode the newest pending request, if any is left."""
        with self._lock:
            if not self._pending:
                return
            key, _ = self._pending.popitem(last=True)
            self._in_flight.add(key)
        image = decode(*key)
        self._post(lambda: self._on_loaded(key[0], key[1], image))

    def _on_loaded(self, path: str, size: int, image: QImage) -> None:
        if not isValid(self):
            return  # the window closed meanwhile
        key = (path, size)
        with self._lock:
            self._in_flight.discard(key)
        self.decoded += 1
        pixmap = self.placeholder(size, "missing") if image.isNull() else QPixmap.fromImage(image)
        self._cache[key] = pixmap
        while len(self._cache) > self.capacity:
            self._cache.popitem(last=False)
        self.ready.emit(path, size)

    def wait_idle(self, msecs: int = 5000) -> bool:
        """Block until queued decodes ran (tests and the benchmark only)."""
        _done, pending = wait_futures(list(self._futures), timeout=msecs / 1000)
        return not pending

    def clear_queue(self) -> None:
        """Drop decodes not started yet."""
        with self._lock:
            self._pending.clear()
