"""Lightness and colourfulness measured from each image's pixels, once, and cached.

"Darker", "lighter", "more colourful" compare the gallery with the turn's reference on
these two numbers (``studio.sessions.constraints``), because labels do not order colours.

- The background is taken as the median colour of the picture's border (product photos
  and the demo catalog have a plain one); pixels far from it are the garment. If almost
  nothing differs from the border, the whole picture counts.
- **lightness**: mean CIE L* of the garment pixels, 0 (black) to 1 (white).
- **colorful**: Hasler and Süsstrunk's colourfulness (2003) of the garment pixels, divided
  by 100 so that a plain grey is 0 and a saturated print is about 1.

The cache is one JSON file in the project's cache folder keyed by image content hash, so
renames keep it and a changed file is measured again. Pictures are shrunk to 64 px first:
measuring a 10,000-image gallery takes well under a minute, and happens once.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from studio.embeddings import image_hashes
from studio.jobs import CancelToken, ProgressCallback, no_progress
from studio.store import Project

MEASURES = ("lightness", "colorful")
SIDE = 64
_FOREGROUND_DISTANCE = 40.0  # RGB distance from the border colour that marks the garment


def measure_pixels(rgb: np.ndarray) -> tuple[float, float]:
    """(lightness, colourfulness) of an H×W×3 uint8 picture."""
    pixels = rgb.astype(np.float64)
    border = np.concatenate([pixels[0], pixels[-1], pixels[:, 0], pixels[:, -1]])
    background = np.median(border, axis=0)
    flat = pixels.reshape(-1, 3)
    garment = flat[np.linalg.norm(flat - background, axis=1) > _FOREGROUND_DISTANCE]
    if len(garment) < 0.05 * len(flat):
        garment = flat
    linear = garment / 255.0
    linear = np.where(linear <= 0.04045, linear / 12.92, ((linear + 0.055) / 1.055) ** 2.4)
    luminance = linear @ np.array([0.2126, 0.7152, 0.0722])
    lstar = np.where(luminance > 216 / 24389, 116 * np.cbrt(luminance) - 16, luminance * 24389 / 27)
    r, g, b = garment[:, 0], garment[:, 1], garment[:, 2]
    rg, yb = r - g, 0.5 * (r + g) - b
    colourfulness = np.hypot(rg.std(), yb.std()) + 0.3 * np.hypot(rg.mean(), yb.mean())
    return float(lstar.mean() / 100.0), float(colourfulness / 100.0)


def measure_file(path: Path) -> tuple[float, float] | None:
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(path) as image:
            image.draft("RGB", (SIDE * 2, SIDE * 2))
            small = image.convert("RGB")
            small.thumbnail((SIDE, SIDE))
            return measure_pixels(np.asarray(small))
    except (OSError, UnidentifiedImageError, ValueError):
        return None


class ImageMeasures:
    """Per-image measures of one project, measured on first use and kept on disk."""

    def __init__(self, project: Project) -> None:
        self.project = project
        self.file = project.cache_dir / "measures" / "measures.json"
        self._by_id: dict[str, tuple[float, float]] | None = None

    def _load_cache(self) -> dict[str, list[float]]:
        try:
            data = json.loads(self.file.read_text(encoding="utf-8"))
            return data if isinstance(data, dict) else {}
        except (OSError, ValueError):
            return {}

    def _save_cache(self, cache: dict[str, list[float]]) -> None:
        """Keep the measures for next time; a project on a read-only folder measures again
        on each load instead of failing (the cache only saves time)."""
        try:
            self.file.parent.mkdir(parents=True, exist_ok=True)
            handle, name = tempfile.mkstemp(dir=self.file.parent, suffix=".tmp")
        except OSError:
            return
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump(cache, out)
        os.replace(name, self.file)  # atomic: a reader never sees half a file

    def ensure(
        self, progress: ProgressCallback = no_progress, cancel: CancelToken | None = None
    ) -> dict[str, tuple[float, float]]:
        """image id → (lightness, colourfulness) for every readable image."""
        if self._by_id is not None:
            return self._by_id
        images = [image for image in self.project.iter_images() if not image.missing]
        hashes = image_hashes(self.project, images)
        cache = self._load_cache()
        todo = [image for image in images if image.id in hashes and hashes[image.id] not in cache]
        for done, image in enumerate(todo, start=1):
            if cancel is not None and done % 100 == 0:
                cancel.raise_if_cancelled()
            measured = measure_file(self.project.image_path(image))
            if measured is not None:
                cache[hashes[image.id]] = [round(measured[0], 5), round(measured[1], 5)]
            if done % 200 == 0 or done == len(todo):
                progress(done, len(todo), f"Measuring colours: {done} of {len(todo)} images")
        if todo:
            self._save_cache(cache)
        self._by_id = {
            image_id: (float(cache[digest][0]), float(cache[digest][1]))
            for image_id, digest in hashes.items()
            if digest in cache
        }
        return self._by_id

    def value(self, image_id: str | None, measure: str) -> float | None:
        found = self.ensure().get(image_id or "")
        return None if found is None else found[MEASURES.index(measure)]

    def column(self, image_ids: Sequence[str | None], measure: str) -> np.ndarray:
        """Each id's measure, NaN where the image could not be read."""
        by_id = self.ensure()
        at = MEASURES.index(measure)
        return np.array(
            [by_id[i][at] if i in by_id else np.nan for i in image_ids], dtype=np.float64
        )
