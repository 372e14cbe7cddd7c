"""CIRR: ``captions/cap.rc2.SPLIT.json`` and ``image_splits/split.rc2.SPLIT.json``."""

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
    from studio.importers.cirr import import_cirr

    return import_cirr(project, Path(root), optional_path(images), **options)


def image_root(values: Mapping[str, Any], _project: Path | None) -> Path:
    default = Path(values["root"]) / "img_raw"
    return images_or(values, default if default.is_dir() else Path(values["root"]))


FORMAT = ImportFormat(
    name="cirr",
    title="CIRR",
    description="captions/cap.rc2.SPLIT.json and image_splits/split.rc2.SPLIT.json",
    details="Import CIRR: pairs with their caption, image sets and soft targets.",
    options=(
        dataset_root("the dataset folder (holds captions/ and image_splits/)"),
        images_option("folder of the image files (default: ROOT/img_raw, else the project's "
                      "image root)"),
        SKIP_INVALID,
    ),
    read=read,
    outcome=pair_report,
    image_root=image_root,
)
