"""Pictures of a team project from a local copy of its image root, found by image id.

A team server hands out image ids, never paths (a path says where the data came from,
and raters must not see it). Someone with a copy of the pictures (a disk from the
coordinator, Fashion IQ's own download) can point the studio at it: the picture of an
id is ``<id>.<ext>`` at the top of that folder or one folder down (``images/``, a
category folder), the layouts Fashion IQ, CIRR and the demo project use.
"""

from __future__ import annotations

from pathlib import Path

EXTENSIONS = (".jpg", ".jpeg", ".png", ".webp")


def find_picture(root: Path, image_id: str) -> Path | None:
    """The file of ``image_id`` under ``root``, or None (an id that could leave the
    folder — a separator, '..' — finds nothing)."""
    if not image_id or "/" in image_id or "\\" in image_id or image_id.startswith("."):
        return None
    if not root.is_dir():
        return None
    folders = [root] + sorted(p for p in root.iterdir() if p.is_dir())
    for folder in folders:
        for extension in EXTENSIONS:
            candidate = folder / f"{image_id}{extension}"
            if candidate.is_file():
                return candidate
    return None
