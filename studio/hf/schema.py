"""The Parquet layout of an export, and the ``datasets`` features that describe it.

Three configs, one folder each, one Parquet file per split
(``OUT/triplets/val-00000-of-00001.parquet``), declared in the dataset card's YAML so
``datasets.load_dataset(OUT, "triplets")`` finds them:

- ``triplets``: one row per pair (reference, target, every ground truth, the captions with
  author, status and reviewer, the dataset's own fields as JSON), images embedded;
- ``sessions``: one row per multi-turn transaction (images in order, the turns with their
  reference positions and texts, image captions), images embedded;
- ``gallery``: one row per gallery membership (category, split, image id, position, path),
  so an import can rebuild the galleries the protocols search.

Each file carries the ``huggingface`` schema metadata ``datasets`` writes itself, so image
columns load as ``Image`` features; nothing here needs ``datasets`` installed.
"""

from __future__ import annotations

import json
import re
from typing import Any

CONFIGS = ("triplets", "sessions", "gallery")
UNSPLIT = "unsplit"  # split name for rows without one (HF split names are \w+)
IMAGE: dict[str, Any] = {"_type": "Image"}


def _value(dtype: str = "string") -> dict[str, Any]:
    return {"dtype": dtype, "_type": "Value"}


def _list(feature: Any) -> dict[str, Any]:
    return {"feature": feature, "_type": "List"}


CAPTION = {
    name: _value()
    for name in ("text", "status", "author", "reviewer", "created_at", "updated_at",
                 "reviewed_at")
}
TURN = {"index": _value("int64"), "reference_position": _value("int64"), "text": _value(),
        "status": _value()}


def features(config: str, with_images: bool) -> dict[str, Any]:
    """The ``datasets`` feature dict of one config (the order is the column order)."""
    if config == "triplets":
        columns: dict[str, Any] = {
            "id": _value(), "source": _value(), "external_key": _value(),
            "category": _value(), "split": _value(), "method": _value(),
            "reference": _value(), "target": _value(), "ground_truths": _list(_value()),
            "captions": _list(CAPTION), "extra": _value(),
            "reference_path": _value(), "target_path": _value(),
        }
        if with_images:
            columns |= {"reference_image": IMAGE, "target_image": IMAGE}
        return columns
    if config == "sessions":
        columns = {
            "id": _value(), "dataset": _value(), "external_key": _value(),
            "category": _value(), "origin": _value(), "image_ids": _list(_value()),
            "image_paths": _list(_value()), "image_captions": _list(_value()),
            "turns": _list(TURN),
        }
        if with_images:
            columns["images"] = _list(IMAGE)
        return columns
    if config == "gallery":
        return {"category": _value(), "split": _value(), "image_id": _value(),
                "position": _value("int64"), "path": _value()}
    raise ValueError(f"unknown config {config!r}")


def arrow_schema(config: str, with_images: bool) -> Any:
    """The pyarrow schema of a config, with the ``huggingface`` metadata."""
    import pyarrow as pa

    def arrow(feature: Any) -> Any:
        kind = feature.get("_type")
        if kind == "Value":
            return pa.int64() if feature["dtype"] == "int64" else pa.string()
        if kind == "Image":
            return pa.struct([("bytes", pa.binary()), ("path", pa.string())])
        if kind == "List":
            return pa.list_(arrow(feature["feature"]))
        return pa.struct([(name, arrow(sub)) for name, sub in feature.items()])

    columns = features(config, with_images)
    metadata = {"huggingface": json.dumps({"info": {"features": columns}})}
    return pa.schema([(name, arrow(f)) for name, f in columns.items()], metadata=metadata)


def split_name(split: str) -> str:
    """A split as a Hugging Face split name (letters, digits, underscores)."""
    return re.sub(r"\W", "_", split) or UNSPLIT


def file_name(split: str) -> str:
    return f"{split_name(split)}-00000-of-00001.parquet"
