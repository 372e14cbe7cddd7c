"""CIRCO: ``annotations/SPLIT.json`` and the COCO 2017 unlabeled pictures."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from studio.importers.formats._common import (
    SKIP_INVALID,
    images_option,
    images_or,
    optional_path,
    pair_report,
)
from studio.importers.registry import ImportFormat, Option


def read(project: Any, *, root: Path, images: Path | None, **options: Any) -> Any:
    from studio.importers.circo import import_circo

    return import_circo(project, Path(root), optional_path(images), **options)


def image_root(values: Mapping[str, Any], _project: Path | None) -> Path:
    return images_or(values, Path(values["root"]))


FORMAT = ImportFormat(
    name="circo",
    title="CIRCO",
    description="CIRCO: annotations/SPLIT.json and the COCO 2017 unlabeled images",
    details="Import CIRCO: every query as its file has it (reference, relative caption, "
    "shared concept, named target, all ground truths, semantic aspects; the test split "
    "without targets), and the gallery of the COCO unlabeled images found in --images "
    "(DIR/unlabeled2017/ followed by the 12-digit image id and .jpg). Images the queries "
    "name but the folder lacks are counted as missing.",
    options=(
        Option("root", "folder", "the CIRCO folder (holds annotations/)",
               label="CIRCO folder", metavar="ROOT"),
        images_option("the COCO unlabeled folder holding unlabeled2017/ (default: "
                      "ROOT/COCO2017_unlabeled)"),
        SKIP_INVALID,
    ),
    read=read,
    outcome=pair_report,
    image_root=image_root,
)
