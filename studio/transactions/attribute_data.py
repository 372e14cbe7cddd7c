"""Which attributes each image has, from the best source the project offers.

The builder and the quality indicators need, per image, what it looks like in words.
Sources, best first:

1. the attribute query API (``studio.attributes.query``): labels a person accepted or
   that were read from product text, one word per slot (the ``image_attributes`` table
   directly if that module is not installed);
2. ``catalog.jsonl`` beside the image root, as the demo writes it: true attributes, one
   value per named slot (colour, pattern, sleeve, …), used when it covers more images.

Two kinds of data result. *Catalog* data has named slots with one value each, so a
difference is "colour: red → blue". *Label* data has vocabulary words that an image has
or lacks, so a difference is "+ lace" or "− pocket"; each word is its own slot.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from studio.store import Project
from studio.store.repos import attributes as attributes_repo

CATALOG_FILE = "catalog.jsonl"
Kind = Literal["catalog", "labels"]


@dataclass(frozen=True)
class Difference:
    """How image b differs from image a in one slot; ``None`` means absent."""

    slot: str
    old: str | None
    new: str | None


@dataclass
class AttributeData:
    """Per image, slot → value; ``types`` maps a slot to its attribute type when known."""

    kind: Kind
    images: dict[str, dict[str, str]]
    source: str
    types: dict[str, str] = field(default_factory=dict)

    def __contains__(self, image_id: object) -> bool:
        return image_id in self.images

    def differences(self, a: str, b: str) -> list[Difference]:
        """What changes from image ``a`` to image ``b``, in a stable slot order."""
        first, second = self.images.get(a, {}), self.images.get(b, {})
        if self.kind == "catalog":
            return [
                Difference(slot, first[slot], second[slot])
                for slot in first
                if slot in second and first[slot] != second[slot]
            ]
        added = [Difference(s, None, s) for s in sorted(set(second) - set(first))]
        removed = [Difference(s, s, None) for s in sorted(set(first) - set(second))]
        return added + removed

    def distance(self, a: str, b: str) -> int:
        return len(self.differences(a, b))

    def values(self, image_id: str) -> dict[str, str]:
        return self.images.get(image_id, {})


def load_attribute_data(project: Project, image_ids: Iterable[str] | None = None) -> AttributeData:
    """The attributes of ``image_ids`` (all images when None) from the best source.

    The query API's labels win when they cover at least as many images as the catalog;
    a few reviewed images must not hide the true attributes of all the others.
    """
    wanted = None if image_ids is None else set(image_ids)
    labels = _from_query_api(project, wanted)
    if labels is None:
        labels = _from_label_table(project, wanted)
    catalog = _from_catalog(project, wanted)
    if catalog is not None and len(catalog.images) > len(labels.images):
        return catalog
    if labels.images:
        return labels
    return AttributeData("catalog", {}, "none (no attribute data in this project)")


def catalog_path(project: Project) -> Path | None:
    """``catalog.jsonl`` in the image root or beside it, where the demo writes it."""
    for folder in (project.image_root, project.image_root.parent, project.path.parent):
        path = folder / CATALOG_FILE
        if path.is_file():
            return path
    return None


def _from_catalog(project: Project, wanted: set[str] | None) -> AttributeData | None:
    path = catalog_path(project)
    if path is None:
        return None
    images: dict[str, dict[str, str]] = {}
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if not line.strip():
                continue
            try:
                item = json.loads(line)
                image_id, attributes = item["id"], item["attributes"]
            except (ValueError, KeyError, TypeError):
                continue  # the catalog's own reader reports bad lines; here they add nothing
            if (wanted is None or image_id in wanted) and isinstance(attributes, dict):
                images[image_id] = {str(k): str(v) for k, v in attributes.items()}
    return AttributeData("catalog", images, f"true attributes from {path.name}")


def _from_query_api(project: Project, wanted: set[str] | None) -> AttributeData | None:
    """Labels through the attribute layer's query API: none rejected, and either accepted
    by a person or read from the product text. None when that module is not installed."""
    try:
        from studio.attributes import query
    except ImportError:
        return None
    rejected: set[tuple[str, str]] = set()
    kept: dict[tuple[str, str], str] = {}
    for label in query.all_labels(project):
        if wanted is not None and label.image_id not in wanted:
            continue
        key = (label.image_id, label.attribute)
        if label.status == "rejected":
            rejected.add(key)
        elif label.status == "accepted" or label.source == "text":
            kept[key] = label.type
    images: dict[str, dict[str, str]] = defaultdict(dict)
    types: dict[str, str] = {}
    for (image_id, attribute), kind in kept.items():
        if (image_id, attribute) not in rejected:
            images[image_id][attribute] = attribute
            types[attribute] = kind
    return AttributeData("labels", dict(images), "attribute labels (accepted or from text)", types)


def _from_label_table(project: Project, wanted: set[str] | None) -> AttributeData:
    rows = attributes_repo.accepted_or_text_labels(project)
    images: dict[str, dict[str, str]] = defaultdict(dict)
    types: dict[str, str] = {}
    for image_id, name, kind in rows:
        if wanted is None or image_id in wanted:
            images[image_id][name] = name
            types[name] = kind
    return AttributeData("labels", dict(images), "attribute labels", types)
