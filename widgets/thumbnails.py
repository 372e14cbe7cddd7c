"""Scaled-down pictures for review: decoded at the size shown, and remembered.

``QImageReader.setScaledSize`` lets the JPEG decoder skip most of the work, so a grid of a
few hundred thumbnails fills in well under a second.
"""

from __future__ import annotations

from collections import OrderedDict
from pathlib import Path

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QColor, QImageReader, QPixmap

_CACHE: OrderedDict[tuple[str, int], QPixmap] = OrderedDict()
_CACHE_SIZE = 1500


def load_pixmap(path: Path, size: int) -> QPixmap:
    """The picture at ``path`` fitted into ``size``×``size``; a grey tile if unreadable."""
    key = (str(path), size)
    cached = _CACHE.get(key)
    if cached is not None:
        _CACHE.move_to_end(key)
        return cached
    reader = QImageReader(str(path))
    reader.setAutoTransform(True)
    original = reader.size()
    if original.isValid():
        reader.setScaledSize(original.scaled(QSize(size, size), Qt.AspectRatioMode.KeepAspectRatio))
    image = reader.read()
    if image.isNull():
        pixmap = QPixmap(size, size)
        pixmap.fill(QColor("#e5e7eb"))
    else:
        pixmap = QPixmap.fromImage(image)
    _CACHE[key] = pixmap
    if len(_CACHE) > _CACHE_SIZE:
        _CACHE.popitem(last=False)
    return pixmap
