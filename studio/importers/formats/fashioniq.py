"""Fashion IQ: ``captions/cap.CAT.SPLIT.json`` and ``image_splits/split.CAT.SPLIT.json``."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from studio.importers.formats._common import (
    SKIP_INVALID,
    dataset_root,
    images_option,
    images_or,
    optional_path,
    pair_report,
)
from studio.importers.registry import ImportFormat


def read(project: Any, *, root: Path, images: Path | None, **options: Any) -> Any:
    from studio.importers.fashioniq import import_fashioniq

    return import_fashioniq(project, Path(root), optional_path(images), **options)


def image_root(values: Mapping[str, Any], _project: Path | None) -> Path:
    default = Path(values["root"]) / "images"
    return images_or(values, default if default.is_dir() else Path(values["root"]))


FORMAT = ImportFormat(
    name="fashioniq",
    title="Fashion IQ",
    description="captions/cap.CAT.SPLIT.json and image_splits/split.CAT.SPLIT.json",
    details="Import Fashion IQ: pairs with their two captions, and the gallery of each "
    "category and split. Missing image files are counted and listed.",
    options=(
        dataset_root("the dataset folder (holds captions/ and image_splits/)"),
        images_option("folder of the image files (default: ROOT/images, else the project's "
                      "image root)"),
        SKIP_INVALID,
    ),
    read=read,
    outcome=pair_report,
    image_root=image_root,
)
