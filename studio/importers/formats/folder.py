"""A folder of pictures, with product metadata from a CSV, JSON or JSON Lines file."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from studio.importers.formats._common import SKIP_INVALID, optional_path, pair_report
from studio.importers.registry import ImportFormat, Option


def read(project: Any, *, root: Path, metadata: Path | None, **options: Any) -> Any:
    from studio.importers.folder import import_folder

    return import_folder(project, Path(root), optional_path(metadata), **options)


def image_root(values: Mapping[str, Any], _project: Path | None) -> Path:
    return Path(values["root"])


FORMAT = ImportFormat(
    name="folder",
    title="Folder of images",
    description="a folder of images with optional product metadata",
    details="Import every image below a folder (hashing each), with metadata from a CSV, "
    "JSON or JSON Lines file (id, title, description, category, split).",
    options=(
        Option("root", "folder", "the folder of images", label="Folder of images",
               metavar="ROOT"),
        Option("metadata", "file", "metadata file (default: metadata.csv/.json/.jsonl in the "
               "folder)", label="Metadata file", flag="--metadata", metavar="FILE"),
        SKIP_INVALID,
    ),
    read=read,
    outcome=pair_report,
    image_root=image_root,
)
