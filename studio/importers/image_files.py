"""Facts about image files on disk: content hash, size in pixels and bytes."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from studio.hashing import file_digest
from studio.jobs import CancelToken, ProgressCallback

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".webp", ".bmp", ".gif")


@dataclass(frozen=True)
class FileFacts:
    content_hash: str
    bytes: int
    width: int | None
    height: int | None


def file_facts(path: Path) -> FileFacts | None:
    """Hash and header facts of ``path``; None if it does not exist.

    Pillow reads only the header for the size, so this costs about one read of the file.
    An unreadable header leaves width and height empty rather than failing the import.
    """
    try:
        size = path.stat().st_size
    except OSError:
        return None
    width = height = None
    try:
        from PIL import Image

        with Image.open(path) as image:
            width, height = image.size
    except Exception:  # noqa: BLE001 - a damaged header must not stop an import
        pass
    return FileFacts(file_digest(path), size, width, height)


def facts_for(
    paths: dict[str, Path], progress: ProgressCallback, cancel: CancelToken, label: str
) -> dict[str, FileFacts]:
    """Facts of every path that exists, keyed like ``paths``; reports progress per 200."""
    facts: dict[str, FileFacts] = {}
    total = len(paths)
    for number, (key, path) in enumerate(paths.items(), start=1):
        if number % 200 == 0:
            cancel.raise_if_cancelled()
            progress(number, total, label)
        found = file_facts(path)
        if found is not None:
            facts[key] = found
    progress(total, total, label)
    return facts
