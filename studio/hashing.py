"""Content hashes identify image bytes, so caches survive renames and never mix files."""

from __future__ import annotations

import hashlib
from pathlib import Path

CHUNK = 1 << 20


def file_digest(path: Path) -> str:
    """BLAKE2b-128 of the file's bytes, hex: fast, and collisions are not a concern here."""
    digest = hashlib.blake2b(digest_size=16)
    with path.open("rb") as handle:
        while chunk := handle.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()
