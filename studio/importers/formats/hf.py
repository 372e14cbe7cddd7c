"""A Hugging Face dataset folder written by ``cir-studio export hf`` (Parquet)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from studio.importers.formats._common import LISTED
from studio.importers.registry import ImportFormat, Option, Outcome


def read(project: Any, *, root: Path, **options: Any) -> Any:
    from studio.hf.importer import import_hf

    return import_hf(project, Path(root), **options)


def image_root(_values: Mapping[str, Any], project: Path | None) -> Path:
    """Embedded pictures are written under an images/ folder beside a new project."""
    from studio.store import resolve_project_path

    return resolve_project_path(project or Path(".")).parent / "images"


def outcome(report: Any) -> Outcome:
    from studio.wording import count

    lines = [f"Added {report.images_added} images ({report.pictures_written} pictures "
             f"written), {report.pairs_added} pairs, {report.captions_added} captions and "
             f"{report.transactions_added} transactions."]
    if report.missing_images:
        lines.append(f"{len(report.missing_images)} images have no picture: "
                     + ", ".join(report.missing_images[:LISTED]))
    missing = (f", {count(len(report.missing_images), 'image')} without a picture"
               if report.missing_images else "")
    message = (f"Imported the dataset: {count(report.images_added, 'image')}, "
               f"{count(report.pairs_added, 'pair')}, {count(report.captions_added, 'caption')}, "
               f"{count(report.transactions_added, 'transaction')}{missing}.")
    return Outcome(message, tuple(lines), tuple(report.missing_images[:50]), report.to_dict())


FORMAT = ImportFormat(
    name="hf",
    title="Hugging Face dataset folder",
    description="a Hugging Face dataset folder written by 'export hf' (Parquet)",
    details="Import triplets (pairs with their captions, authors, statuses and ground "
    "truths), sessions (multi-turn transactions) and galleries from a folder written by "
    "'cir-studio export hf'. Embedded pictures are written under the project's image root "
    "at their recorded paths (never over an existing file).",
    options=(Option("root", "folder", "the exported folder", label="Dataset folder",
                    metavar="ROOT"),),
    read=read,
    outcome=outcome,
    image_root=image_root,
)
