"""The demo catalog: controlled attributes, product text, splits, and the files on disk.

A catalog is planned first (pure and cheap: attributes, titles, splits) and then drawn in
worker processes. Every random choice is seeded from strings such as
``"attrs:{seed}:{category}:{index}"``; ``random.Random`` hashes string seeds with SHA-512,
so plans and pixels are the same in every process and on every run, unlike ``hash()``.
Because each attribute is known, the catalog is ground truth for attribute extraction,
pair mining and retrieval metrics, and every value is spelled out in the product text
(see :data:`TEXT_PHRASES`).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import tempfile
import time
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path

from studio.demo.garments import COLOR_RGB, draw_garment
from studio.exporters.common import temporary_beside
from studio.jobs import CancelToken, JobCancelled, ProgressCallback, no_progress

CATEGORIES = ("dress", "shirt", "toptee")
SPLITS = ("train", "val", "test")
CATALOG_FILE = "catalog.jsonl"
IMAGES_DIR = "images"
JPEG_QUALITY = 90

_COLORS = tuple(COLOR_RGB)
_PATTERNS = ("solid", "stripes", "dots", "floral", "plaid")
_FITS = ("slim", "regular", "loose")
_TOP_LENGTHS = ("cropped", "regular", "long")

ATTRIBUTE_VALUES: dict[str, dict[str, tuple[str, ...]]] = {
    "dress": {
        "color": _COLORS,
        "pattern": _PATTERNS,
        "sleeve": ("sleeveless", "short", "long"),
        "neckline": ("crew", "v-neck", "scoop"),
        "length": ("mini", "knee", "midi", "maxi"),
        "fit": _FITS,
    },
    "shirt": {
        "color": _COLORS,
        "pattern": _PATTERNS,
        "sleeve": ("short", "long"),
        "neckline": ("collar", "v-neck", "crew"),
        "length": _TOP_LENGTHS,
        "fit": _FITS,
        "graphic": ("none", "graphic", "text"),
    },
    "toptee": {
        "color": _COLORS,
        "pattern": _PATTERNS,
        "sleeve": ("sleeveless", "short", "long"),
        "neckline": ("crew", "v-neck", "scoop"),
        "length": _TOP_LENGTHS,
        "fit": _FITS,
        "graphic": ("none", "graphic", "text"),
    },
}

#: Sampling weights where uniform would be unrealistic (shirts mostly have collars, most
#: tops have no print, solid colours are the commonest pattern). Missing means uniform.
_WEIGHTS: dict[tuple[str, str], tuple[float, ...]] = {
    ("shirt", "neckline"): (0.7, 0.15, 0.15),
    ("shirt", "graphic"): (0.7, 0.15, 0.15),
    ("toptee", "graphic"): (0.5, 0.25, 0.25),
}
_PATTERN_WEIGHTS = (0.36, 0.16, 0.16, 0.16, 0.16)

#: attribute -> value -> the lower-case phrases that state it in titles and descriptions.
#: Each item's text contains at least one phrase of each of its values and no phrase of
#: another value of the same attribute, so attributes can be read back from text by
#: whole-word phrase search. Synonyms are deliberate ("striped"/"stripes", "tank").
TEXT_PHRASES: dict[str, dict[str, tuple[str, ...]]] = {
    "color": {c: (c,) for c in _COLORS},
    "pattern": {
        "solid": ("solid",),
        "stripes": ("stripes", "striped"),
        "dots": ("dots", "polka dots", "polka-dot", "dotted"),
        "floral": ("floral", "flower print"),
        "plaid": ("plaid", "tartan"),
    },
    "sleeve": {
        "sleeveless": ("sleeveless", "tank"),
        "short": ("short sleeves", "short-sleeve", "short-sleeved"),
        "long": ("long sleeves", "long-sleeve", "long-sleeved"),
    },
    "neckline": {
        "crew": ("crew neck", "crewneck", "crew-neck"),
        "v-neck": ("v-neck", "v neckline"),
        "scoop": ("scoop neck", "scoop neckline", "scoop-neck"),
        "collar": ("collar", "collared"),
    },
    "length": {
        "mini": ("mini",),
        "knee": ("knee-length", "knee length"),
        "midi": ("midi",),
        "maxi": ("maxi",),
        "cropped": ("cropped", "crop"),
        "regular": ("regular length", "regular-length"),
        "long": ("long length", "longline", "long-length"),
    },
    "fit": {
        "slim": ("slim", "slim-fit", "fitted"),
        "regular": ("regular fit", "regular-fit"),
        "loose": ("loose", "oversized", "relaxed"),
    },
    "graphic": {
        "none": ("plain front", "clean front"),
        "graphic": ("graphic print", "printed graphic", "graphic motif"),
        "text": ("text print", "printed text"),
    },
}


@dataclass(frozen=True)
class CatalogItem:
    """One product: its picture's relative path, its text, and its true attributes."""

    id: str
    file: str
    category: str
    split: str
    title: str
    description: str
    attributes: dict[str, str]

    def __post_init__(self) -> None:
        if self.category not in CATEGORIES:
            raise ValueError(f"unknown category {self.category!r}; expected one of {CATEGORIES}")
        if self.split not in SPLITS:
            raise ValueError(f"unknown split {self.split!r}; expected one of {SPLITS}")
        allowed = ATTRIBUTE_VALUES[self.category]
        if set(self.attributes) != set(allowed):
            raise ValueError(
                f"{self.category} attributes must be {sorted(allowed)}, "
                f"got {sorted(self.attributes)}"
            )
        for name, value in self.attributes.items():
            if value not in allowed[name]:
                raise ValueError(f"{name}={value!r} is not allowed for {self.category}")

    def to_json(self) -> dict:
        return {
            "id": self.id,
            "file": self.file,
            "category": self.category,
            "split": self.split,
            "title": self.title,
            "description": self.description,
            "attributes": dict(self.attributes),
        }

    @classmethod
    def from_json(cls, data: object) -> CatalogItem:
        if not isinstance(data, dict):
            raise ValueError("expected a JSON object")
        keys = {"id", "file", "category", "split", "title", "description", "attributes"}
        if set(data) != keys:
            raise ValueError(f"keys must be {sorted(keys)}, got {sorted(data)}")
        if not all(isinstance(data[k], str) for k in keys - {"attributes"}):
            raise ValueError("id, file, category, split, title and description must be strings")
        attrs = data["attributes"]
        if not isinstance(attrs, dict) or not all(isinstance(v, str) for v in attrs.values()):
            raise ValueError("attributes must be an object of strings")
        return cls(**data)


@dataclass(frozen=True)
class CatalogSummary:
    root: Path
    count: int
    seconds: float
    per_split: dict[str, int]
    per_category: dict[str, int]


def _sample_attributes(category: str, rng: random.Random) -> dict[str, str]:
    out = {}
    for name, values in ATTRIBUTE_VALUES[category].items():
        weights = _PATTERN_WEIGHTS if name == "pattern" else _WEIGHTS.get((category, name))
        out[name] = rng.choices(values, weights=weights)[0]
    return out


def _a(phrase: str) -> str:
    return ("an " if phrase[0] in "aeiou" else "a ") + phrase


def _describe(category: str, attrs: dict[str, str], rng: random.Random) -> tuple[str, str]:
    """Write a product title and a two-sentence description that state every attribute."""
    pick = rng.choice
    color, pattern, sleeve = attrs["color"], attrs["pattern"], attrs["sleeve"]
    if category == "dress":
        noun = "dress"
    elif category == "shirt":
        noun = pick(("shirt", "button-up shirt"))
    else:
        noun = (
            pick(("tank top", "tank"))
            if sleeve == "sleeveless"
            else pick(("t-shirt", "tee", "top"))
        )
    # Titles may use synonyms only; descriptions always carry the value's own word too.
    title_pattern = {
        "solid": "solid",
        "stripes": pick(("striped", "stripe")),
        "dots": pick(("polka-dot", "dotted")),
        "floral": pick(("floral", "flower print")),
        "plaid": pick(("plaid", "tartan")),
    }[pattern]
    pattern_adj = {
        "solid": "solid",
        "stripes": "striped",
        "dots": pick(("polka-dot", "dotted")),
        "floral": "floral",
        "plaid": "plaid",
    }[pattern]
    pattern_np = {
        "solid": "a solid colour",
        "stripes": pick(("classic stripes", "bold stripes")),
        "dots": pick(("polka dots", "scattered dots")),
        "floral": pick(("a floral print", "an all-over floral print")),
        "plaid": pick(("a plaid pattern", "a tartan plaid")),
    }[pattern]
    sleeve_adj = {
        "sleeveless": "sleeveless",
        "short": pick(("short-sleeve", "short-sleeved")),
        "long": pick(("long-sleeve", "long-sleeved")),
    }[sleeve]
    sleeve_np = {
        "sleeveless": "a sleeveless cut",
        "short": "short sleeves",
        "long": "long sleeves",
    }[sleeve]
    neck_choices = {
        "crew": pick(("a crew neck", "a round crew-neck", "a crewneck")),
        "v-neck": pick(("a v-neck", "a deep v-neck")),
        "scoop": pick(("a scoop neck", "a wide scoop neckline")),
        "collar": pick(("a button collar", "a pointed collar", "a classic collar")),
    }
    neck_np = neck_choices[attrs["neckline"]]
    fit_np = {
        "slim": pick(("a slim fit", "a slim, fitted silhouette", "a slim-fit cut")),
        "regular": pick(("a regular fit", "a regular-fit cut")),
        "loose": pick(("a loose fit", "a loose, oversized fit", "a loose, relaxed silhouette")),
    }[attrs["fit"]]
    fit_adj = {
        "slim": pick(("slim", "slim-fit", "fitted")),
        "regular": "regular-fit",
        "loose": pick(("loose", "oversized", "relaxed")),
    }[attrs["fit"]]
    length = attrs["length"]
    length_np = {
        "mini": "a mini length",
        "knee": "a knee-length hem",
        "midi": "a midi hem",
        "maxi": "a flowing maxi length",
        "cropped": pick(("a cropped length", "a cropped hem")),
        "regular": pick(("a regular length", "a regular-length hem")),
        "long": pick(("a long length", "a longline hem")),
    }[length]

    words = [color]
    if pattern != "solid" or rng.random() < 0.4:
        words.append(title_pattern)
    if rng.random() < 0.6:
        words.append(sleeve_adj if "tank" not in noun else "")
    if rng.random() < 0.5:
        words.append(fit_adj)
    if category == "dress" and rng.random() < 0.6:
        words.append(
            {"mini": "mini", "knee": "knee-length", "midi": "midi", "maxi": "maxi"}[length]
        )
    words.append(noun)
    title = " ".join(w for w in words if w).title()
    if rng.random() < 0.5:
        title += " with " + neck_np[2:].title()

    first = pick(
        (
            f"This {color} {noun} features {pattern_np}, {neck_np} and {sleeve_np}.",
            f"{_a(color).capitalize()} {pattern_adj} {noun} with {neck_np} and {sleeve_np}.",
            f"Made in {color} with {pattern_np}, this {noun} has {neck_np} and {sleeve_np}.",
        )
    )
    graphic = attrs.get("graphic")
    extra = ""
    if graphic == "none":
        extra = pick((", with a plain front", ", with a clean front"))
    elif graphic == "graphic":
        extra = pick((", plus a graphic print on the chest", ", topped with a printed graphic"))
    elif graphic == "text":
        extra = pick((", plus a text print on the chest", ", with printed text across the chest"))
    second = pick(
        (
            f"It has {fit_np} and {length_np}{extra}.",
            f"Cut in {fit_np}, it comes with {length_np}{extra}.",
            f"Expect {fit_np} and {length_np}{extra}.",
        )
    )
    return title, f"{first} {second}"


def _assign_splits(n: int, rng: random.Random) -> list[str]:
    """About 70/15/15, with every split non-empty once there are three items."""
    n_val = n_test = round(0.15 * n)
    if n >= 3:
        n_val, n_test = max(1, n_val), max(1, n_test)
    splits = ["train"] * (n - n_val - n_test) + ["val"] * n_val + ["test"] * n_test
    rng.shuffle(splits)
    return splits


def plan_catalog(n_images: int = 2000, seed: int = 0) -> list[CatalogItem]:
    """Decide every item's attributes, text and split, without drawing anything."""
    if n_images < 1:
        raise ValueError(f"n_images must be at least 1, got {n_images}")
    counts = {c: n_images // len(CATEGORIES) for c in CATEGORIES}
    for c in CATEGORIES[: n_images % len(CATEGORIES)]:
        counts[c] += 1
    width = max(5, len(str(max(counts.values()) - 1)))
    items = []
    for category in CATEGORIES:
        splits = _assign_splits(counts[category], random.Random(f"split:{seed}:{category}"))
        for index in range(counts[category]):
            item_id = f"{category}-{index:0{width}d}"
            attrs = _sample_attributes(category, random.Random(f"attrs:{seed}:{category}:{index}"))
            title, description = _describe(category, attrs, random.Random(f"text:{seed}:{item_id}"))
            items.append(
                CatalogItem(
                    id=item_id,
                    file=f"{IMAGES_DIR}/{item_id}.jpg",
                    category=category,
                    split=splits[index],
                    title=title,
                    description=description,
                    attributes=attrs,
                )
            )
    return items


def _render_chunk(folder: str, items: list[dict], size: int, seed: int) -> int:
    """Worker: draw and save one chunk of items into ``folder``; returns how many."""
    for data in items:
        item = CatalogItem.from_json(data)
        image = draw_garment(item, size, seed)
        image.save(Path(folder) / f"{item.id}.jpg", "JPEG", quality=JPEG_QUALITY)
    return len(items)


def _chunks(items: list[CatalogItem], size: int) -> list[list[dict]]:
    return [[it.to_json() for it in items[i : i + size]] for i in range(0, len(items), size)]


PER_WORKER = 100  # pictures a worker process must have to be worth starting


def generate_catalog(
    root: Path,
    n_images: int = 2000,
    seed: int = 0,
    *,
    image_size: int = 256,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
    workers: int | None = None,
) -> CatalogSummary:
    """Draw the catalog into ``root/images`` and write ``root/catalog.jsonl``.

    Images are drawn into a hidden staging folder and moved into place only when all are
    done, and the catalog file is written last and atomically, so a cancelled or failed
    run leaves ``root`` as it was. Files in ``root/images`` not named by the catalog are
    left alone. Workers are spawned rather than forked because the GUI calls this from a
    thread, and forking a threaded process is unsafe.
    """
    if image_size < 224:
        raise ValueError(f"image_size must be at least 224 pixels, got {image_size}")
    started = time.monotonic()
    root = Path(root)
    items = plan_catalog(n_images, seed)
    total = len(items)
    if workers is None:  # a worker process costs its start (numpy, Pillow) and the pool's
        # spawn: below about a hundred pictures each, drawing them here is faster and
        # cheaper (60 pictures: 0.9 CPU-s here against 1.9 in two workers)
        workers = min(os.cpu_count() or 1, total // PER_WORKER)
    workers = max(1, workers)
    chunk = max(4, min(50, -(-total // (workers * 6))))
    batches = _chunks(items, chunk)
    root.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".images-", dir=root))
    try:
        progress(0, total, "Drawing demo garments")
        done = 0
        if workers == 1 or len(batches) == 1:
            for batch in batches:
                if cancel is not None:
                    cancel.raise_if_cancelled()
                done += _render_chunk(str(staging), batch, image_size, seed)
                progress(done, total, f"Drew {done} of {total} garments")
        else:
            done = _render_parallel(
                str(staging), batches, image_size, seed, workers, total, progress, cancel
            )
        if cancel is not None:
            cancel.raise_if_cancelled()
        images = root / IMAGES_DIR
        images.mkdir(exist_ok=True)
        for item in items:
            os.replace(staging / f"{item.id}.jpg", root / item.file)
        _write_atomic(root / CATALOG_FILE, items)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    seconds = time.monotonic() - started
    progress(total, total, f"Wrote {total} demo items in {seconds:.1f} s")
    return CatalogSummary(
        root=root,
        count=total,
        seconds=seconds,
        per_split={s: sum(it.split == s for it in items) for s in SPLITS},
        per_category={c: sum(it.category == c for it in items) for c in CATEGORIES},
    )


def _render_parallel(
    folder: str,
    batches: list[list[dict]],
    size: int,
    seed: int,
    workers: int,
    total: int,
    progress: ProgressCallback,
    cancel: CancelToken | None,
) -> int:
    done = 0
    pool = ProcessPoolExecutor(
        max_workers=min(workers, len(batches)), mp_context=get_context("spawn")
    )
    try:
        pending: set[Future[int]] = {
            pool.submit(_render_chunk, folder, b, size, seed) for b in batches
        }
        while pending:
            finished, pending = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
            for future in finished:
                done += future.result()
            if finished:
                progress(done, total, f"Drew {done} of {total} garments")
            if cancel is not None and cancel.cancelled:
                raise JobCancelled()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    return done


def _write_atomic(path: Path, items: list[CatalogItem]) -> None:
    fd, tmp = temporary_beside(path)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            for item in items:
                fh.write(json.dumps(item.to_json(), ensure_ascii=False, sort_keys=False) + "\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def read_catalog(root: Path) -> list[CatalogItem]:
    """Parse ``root/catalog.jsonl``; a bad line raises ValueError naming the file and line."""
    path = Path(root) / CATALOG_FILE
    items: list[CatalogItem] = []
    seen: set[str] = set()
    with path.open(encoding="utf-8") as fh:
        for number, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                item = CatalogItem.from_json(json.loads(line))
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}, line {number}: not valid JSON ({exc.msg})") from exc
            except (TypeError, ValueError) as exc:
                raise ValueError(f"{path}, line {number}: {exc}") from exc
            if item.id in seen:
                raise ValueError(f"{path}, line {number}: duplicate id {item.id!r}")
            seen.add(item.id)
            items.append(item)
    return items
