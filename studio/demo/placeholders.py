"""Placeholder pictures under real dataset ids, so a protocol runs end to end without the
real images (Fashion IQ, CIRR and ChatIR ship annotations only; their images are URLs or
separate downloads).

Each name gets a demo garment chosen and varied by a hash of the name, so the same name
always gets the same picture and different names rarely share one. The numbers a model
reaches on placeholders say nothing about the real dataset; they show that the protocol
runs, over the right galleries, with the right counts.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Mapping
from functools import lru_cache
from pathlib import Path

from studio.demo.catalog import CATEGORIES, CatalogItem, plan_catalog
from studio.demo.garments import draw_garment

POOL = 600


@lru_cache(maxsize=1)
def _pool() -> dict[str, list[CatalogItem]]:
    items = plan_catalog(POOL, seed=7)
    return {category: [i for i in items if i.category == category] for category in CATEGORIES}


def draw_placeholders(
    folder: Path,
    names: Iterable[str],
    *,
    size: int = 64,
    category_of: Mapping[str, str] | None = None,
) -> int:
    """Write one picture per name at ``folder / name`` (the name may hold sub-folders and
    a suffix; ``.jpg`` when it has none). Returns how many were written."""
    pool = _pool()
    written = 0
    for name in names:
        path = Path(folder) / name
        if not path.suffix:
            path = path.with_suffix(".jpg")
        key = zlib.crc32(name.encode("utf-8"))
        category = (category_of or {}).get(name)
        if category not in pool:
            category = CATEGORIES[key % len(CATEGORIES)]
        items = pool[category]
        picture = draw_garment(items[key % len(items)], size, key)
        path.parent.mkdir(parents=True, exist_ok=True)
        picture.save(path, "PNG" if path.suffix.lower() == ".png" else "JPEG", quality=90)
        written += 1
    return written
