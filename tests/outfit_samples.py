"""Small Fashionpedia-shaped files for the outfit tests (the real sample is optional)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from PIL import Image

CATEGORIES = [
    {"id": 0, "name": "shirt, blouse", "supercategory": "upperbody", "level": 2,
     "taxonomy_id": "c0"},
    {"id": 1, "name": "pants", "supercategory": "lowerbody", "level": 2, "taxonomy_id": "c1"},
    {"id": 2, "name": "shoe", "supercategory": "legs and feet", "level": 2, "taxonomy_id": "c2"},
    {"id": 3, "name": "sleeve", "supercategory": "garment parts", "level": 2,
     "taxonomy_id": "c3"},
    {"id": 4, "name": "pocket", "supercategory": "garment parts", "level": 2,
     "taxonomy_id": "c4"},
]
ATTRIBUTES = [
    {"id": 0, "name": "stripe", "supercategory": "textile pattern", "level": 1,
     "taxonomy_id": "a0"},
    {"id": 1, "name": "wrist-length", "supercategory": "length", "level": 1,
     "taxonomy_id": "a1"},
    {"id": 2, "name": "tight (fit)", "supercategory": "silhouette", "level": 1,
     "taxonomy_id": "a2"},
]


def rect(x: float, y: float, w: float, h: float) -> list[float]:
    return [x, y, x + w, y, x + w, y + h, x, y + h]


def small_document() -> dict[str, Any]:
    """Two pictures: a shirt with a sleeve, pants with a pocket (RLE), and a shoe."""
    return {
        "info": {"year": 2024, "description": "test", "extra": [1, 2.5]},
        "licenses": [{"id": 1, "name": "test licence"}],
        "images": [
            {"id": 7, "width": 100, "height": 200, "file_name": "a.jpg", "license": 1},
            {"id": 8, "width": 60, "height": 40, "file_name": "b.jpg"},
        ],
        "annotations": [
            {"id": 1, "image_id": 7, "category_id": 0, "attribute_ids": [0],
             "segmentation": [rect(10, 10, 80, 80)], "area": 6400.0,
             "bbox": [10, 10, 80, 80], "iscrowd": 0},
            {"id": 2, "image_id": 7, "category_id": 3, "attribute_ids": [1],
             "segmentation": [rect(12, 20, 15, 60)], "area": 900.0,
             "bbox": [12, 20, 15, 60], "iscrowd": 0, "note": "kept"},
            {"id": 3, "image_id": 7, "category_id": 1, "attribute_ids": [2, 0],
             "segmentation": [rect(20, 95, 60, 100)], "area": 6000,
             "bbox": [20, 95, 60, 100], "iscrowd": 0},
            {"id": 4, "image_id": 7, "category_id": 4, "attribute_ids": [],
             "segmentation": {"size": [200, 100], "counts": rle_counts(200, 100, 30, 120, 10, 10)},
             "area": 100, "bbox": [30, 120, 10, 10], "iscrowd": 1},
            {"id": 5, "image_id": 8, "category_id": 2, "attribute_ids": [],
             "segmentation": [rect(5, 5, 20, 10), rect(30, 5, 20, 10)], "area": 400.0,
             "iscrowd": 0},
        ],
        "categories": CATEGORIES,
        "attributes": ATTRIBUTES,
    }


def rle_counts(height: int, width: int, x: int, y: int, w: int, h: int) -> list[int]:
    """Uncompressed column-major runs of a filled rectangle."""
    mask = [0] * (height * width)
    for cx in range(x, x + w):
        for cy in range(y, y + h):
            mask[cx * height + cy] = 1
    counts, current, run = [], 0, 0
    for value in mask:
        if value != current:
            counts.append(run)
            current, run = value, 0
        run += 1
    counts.append(run)
    return counts


def write_sample(folder: Path, document: dict[str, Any] | None = None) -> Path:
    """The document as ``folder/ann.json`` with its pictures in ``folder/images``."""
    document = document or small_document()
    (folder / "images").mkdir(parents=True, exist_ok=True)
    for image in document["images"]:
        if isinstance(image, dict) and "file_name" in image:
            size = (image.get("width") or 10, image.get("height") or 10)
            Image.new("RGB", size, (120, 80, 40)).save(folder / "images" / image["file_name"])
    path = folder / "ann.json"
    path.write_text(json.dumps(document, indent=1), encoding="utf-8")
    return path
