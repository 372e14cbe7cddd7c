"""Lightness and colourfulness measured from each image's pixels, once, and cached.

"Darker", "lighter", "more colourful" compare the gallery with the turn's reference on
these two numbers (``studio.sessions.constraints``), because labels do not order colours.

- The background is taken as the median colour of the picture's border (product photos
  and the demo catalog have a plain one); pixels far from it are the garment. If almost
  nothing differs from the border, the whole picture counts.
- **lightness**: mean CIE L* of the garment pixels, 0 (black) to 1 (white).
- **colorful**: Hasler and Süsstrunk's colourfulness (2003) of the garment pixels, divided
  by 100 so that a plain grey is 0 and a saturated print is about 1.

Measuring decodes every picture, so it is gallery-wide work: it runs as part of the jobs
that bring pictures in (``measure_imported``, the last step of every import) and of
building the index (``measure_images``), never inside a session or a live rank.
Readers (``ImageMeasures``) only read what was measured so far and say how much that is.

The cache is one append-only text file in the project's cache folder, one line per
content hash the store holds (``hash<TAB>lightness<TAB>colourfulness``; empty values: the
file is missing or unreadable, recorded once and not tried again; an image stored without
a hash is keyed by its id). A pass appends as it goes, so a cancelled or killed pass keeps
what it measured; renames keep the cache and a changed file is measured again. Pictures
are shrunk to 64 px first.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from studio.jobs import CancelToken, JobCancelled, ProgressCallback, no_progress
from studio.store import Project
from studio.store.records import ImageRecord

MEASURES = ("lightness", "colorful")
SIDE = 64
_FOREGROUND_DISTANCE = 40.0  # RGB distance from the border colour that marks the garment
CACHE_FILE = "measures.tsv"
LEGACY_FILE = "measures.json"  # the whole-file JSON cache of earlier versions, still read
FLUSH_EVERY = 100  # images measured between two appends to the cache file


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
    """The measures of one picture, or None when it cannot be read: like a broken file, a
    picture with more pixels than ``PIL.Image.MAX_IMAGE_PIXELS`` (a decompression bomb, or
    a 20,000 × 10,000 poster) is refused from its header, before any pixel is decoded."""
    import warnings

    from PIL import Image, UnidentifiedImageError

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(path) as image:
                width, height = image.size
                if Image.MAX_IMAGE_PIXELS is not None and width * height > Image.MAX_IMAGE_PIXELS:
                    return None
                image.draft("RGB", (SIDE * 2, SIDE * 2))
                small = image.convert("RGB")
                small.thumbnail((SIDE, SIDE))
                return measure_pixels(np.asarray(small))
    except (OSError, UnidentifiedImageError, ValueError, SyntaxError, EOFError,
            Image.DecompressionBombError):
        return None


Measured = tuple[float, float] | None  # None: missing or unreadable (recorded once)


def cache_key(image: ImageRecord) -> str:
    """The stored content hash; an image imported without one is keyed by its id."""
    return image.content_hash or f"id:{image.id}"


def found_since(image: ImageRecord, cache: dict[str, Measured]) -> bool:
    """Recorded as having no file, but the project has found its file since.

    Only an image imported without its picture is keyed by id; File → Set image folder
    marks it present without hashing it, so its "missing" record must not stand for ever.
    A later pass measures it (the newer cache line wins); no file is read to decide.
    """
    return image.content_hash is None and not image.missing and cache.get(
        f"id:{image.id}", 0) is None


def cache_folder(project: Project) -> Path:
    return project.cache_dir / "measures"


def read_cache(project: Project) -> dict[str, Measured]:
    """content hash → measures (or None: not readable) for every hash measured so far."""
    folder = cache_folder(project)
    cache: dict[str, Measured] = {}
    try:
        legacy = json.loads((folder / LEGACY_FILE).read_text(encoding="utf-8"))
        if isinstance(legacy, dict):
            cache.update({str(k): (float(v[0]), float(v[1])) for k, v in legacy.items()})
    except (OSError, ValueError, TypeError, IndexError):
        pass
    try:
        text = (folder / CACHE_FILE).read_text(encoding="utf-8")
    except OSError:
        return cache
    for line in text.splitlines():
        parts = line.split("\t")
        if len(parts) != 3 or not parts[0]:
            continue  # a line cut short by a kill: that image is measured again
        try:
            cache[parts[0]] = (float(parts[1]), float(parts[2])) if parts[1] else None
        except ValueError:
            continue
    return cache


def _append(project: Project, lines: list[str]) -> None:
    """Add measured lines to the cache; a read-only folder keeps none (the cache only
    saves time: such a project's measures are simply missing, and sessions say so)."""
    folder = cache_folder(project)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with (folder / CACHE_FILE).open("a+b") as out:
            if out.tell() > 0:
                out.seek(out.tell() - 1)
                if out.read(1) != b"\n":
                    lines = ["\n", *lines]  # a line cut short by a kill stays on its own
            out.write("".join(lines).encode("utf-8"))
            out.flush()
    except OSError:
        return


@dataclass
class MeasureReport:
    measured: int = 0  # newly measured now
    known: int = 0  # measured (or recorded unreadable) before
    unreadable: int = 0  # missing or unreadable files recorded now
    # Stored paths of the files that are there but could not be read (broken, or too
    # large to decode), so an import can name them.
    unreadable_files: list[str] = field(default_factory=list)
    seconds: float = 0.0
    stopped: bool = False  # cancelled part-way (``measure_imported``): the rest is pending


def measure_images(
    project: Project,
    images: Sequence[ImageRecord] | None = None,
    *,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
) -> MeasureReport:
    """Measure every image not measured yet (default: all of the project's images).

    A job: appends to the cache every ``FLUSH_EVERY`` images, so a cancelled pass keeps
    what it measured (``JobCancelled`` is raised after the flush). Missing and unreadable
    files are recorded once and not tried again by later passes.
    """
    report = MeasureReport()
    _measure(project, images, report, progress, cancel)
    return report


def measure_imported(
    project: Project,
    images: Iterable[ImageRecord],
    *,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
) -> MeasureReport:
    """Measure the pictures an import just added: the import's last step.

    The import is committed before this runs, so a cancel stops the measuring without
    undoing it: what was measured is kept, ``stopped`` says the rest is pending (building
    the index measures it). Only images with a file are measured here; one imported
    without its picture is left for later, so pointing the project at its pictures (File →
    Set image folder) does not find it recorded as missing.
    """
    report = MeasureReport()
    present = [image for image in images if not image.missing]
    if not present:
        return report
    try:
        _measure(project, present, report, progress, cancel)
    except JobCancelled:
        report.stopped = True
    return report


def _measure(
    project: Project,
    images: Iterable[ImageRecord] | None,
    report: MeasureReport,
    progress: ProgressCallback,
    cancel: CancelToken | None,
) -> None:
    """Fill ``report`` as it measures, so a cancelled caller still knows how far it got."""
    started = time.monotonic()
    images = list(images if images is not None else project.iter_images())
    cache = read_cache(project)
    pending: list[str] = []
    todo: list[str] = []
    paths: dict[str, Path] = {}
    names: dict[str, str] = {}
    for image in images:
        key = cache_key(image)
        if key in cache and not found_since(image, cache):
            report.known += 1
            continue
        path = None if image.missing else project.image_file(image)
        if path is None or not path.is_file():
            if key in cache:
                report.known += 1  # still not there: already recorded
                continue
            cache[key] = None
            pending.append(f"{key}\t\t\n")  # no file: recorded once, not tried again
            report.unreadable += 1
        else:
            todo.append(key)
            paths[key] = path
            names[key] = image.path
    try:
        for done, key in enumerate(todo, start=1):
            if cancel is not None:
                cancel.raise_if_cancelled()
            measured = measure_file(paths[key])
            cache[key] = measured
            if measured is None:
                report.unreadable += 1
                report.unreadable_files.append(names[key])
                pending.append(f"{key}\t\t\n")
            else:
                report.measured += 1
                pending.append(f"{key}\t{measured[0]:.5f}\t{measured[1]:.5f}\n")
            if len(pending) >= FLUSH_EVERY:
                _append(project, pending)
                pending.clear()
            if done % 200 == 0 or done == len(todo):
                progress(done, len(todo), f"Measuring colours: {done:,} of {len(todo):,} images")
    finally:
        if pending:
            _append(project, pending)
        report.seconds = round(time.monotonic() - started, 2)


class ImageMeasures:
    """Per-image measures of one project as far as they were measured; never measures.

    Loaded on first use from the cache file, with image ids mapped through the content
    hashes the store holds (no file is read). ``coverage`` says how many images have a
    value, so a session can say when "darker" or "more colourful" saw only part of the
    gallery.
    """

    def __init__(self, project: Project) -> None:
        self.project = project
        self._by_id: dict[str, tuple[float, float]] | None = None
        self._total = 0
        self._pending = 0

    def _load(self) -> dict[str, tuple[float, float]]:
        if self._by_id is None:
            cache = read_cache(self.project)
            by_id: dict[str, tuple[float, float]] = {}
            total = pending = 0
            for image in self.project.iter_images():
                total += 1
                key = cache_key(image)
                if key not in cache or found_since(image, cache):
                    pending += 1
                found = cache.get(key)
                if found is not None:
                    by_id[image.id] = found
            self._by_id, self._total, self._pending = by_id, total, pending
        return self._by_id

    def reload(self) -> None:
        """Read the cache again (a measuring job added to it)."""
        self._by_id = None

    def coverage(self) -> tuple[int, int, int]:
        """(images with measures, images not measured yet, all images)."""
        by_id = self._load()
        return len(by_id), self._pending, self._total

    @property
    def incomplete(self) -> bool:
        self._load()
        return self._pending > 0

    def note(self) -> str:
        """One line for a view when measures are incomplete, else ''."""
        measured, pending, total = self.coverage()
        if not pending:
            return ""
        return (
            f"Lightness and colour measured for {measured:,} of {total:,} images so far; "
            "Build index measures the rest."
        )

    def value(self, image_id: str | None, measure: str) -> float | None:
        found = self._load().get(image_id or "")
        return None if found is None else found[MEASURES.index(measure)]

    def column(self, image_ids: Sequence[str | None], measure: str) -> np.ndarray:
        """Each id's measure, NaN where the image was not measured or could not be read."""
        by_id = self._load()
        at = MEASURES.index(measure)
        return np.array(
            [by_id[i][at] if i in by_id else np.nan for i in image_ids], dtype=np.float64
        )


def unmeasured(project: Project, images: Iterable[ImageRecord]) -> list[ImageRecord]:
    """The images whose stored content hash has no measure yet (reads no picture)."""
    cache = read_cache(project)
    return [i for i in images if cache_key(i) not in cache or found_since(i, cache)]
