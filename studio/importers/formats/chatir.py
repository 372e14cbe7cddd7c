"""ChatIR's protocol files: recorded chat dialogs and their search space."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from studio.importers.formats._common import SKIP_INVALID, images_or, optional_path
from studio.importers.registry import ImportFormat, Option, Outcome


def read(project: Any, *, root: Path, images: Path | None, **options: Any) -> Any:
    from studio.chatir.importer import import_chatir

    return import_chatir(project, Path(root), optional_path(images), **options)


def image_root(values: Mapping[str, Any], _project: Path | None) -> Path:
    return images_or(values, Path(values["root"]))


def outcome(report: Any) -> Outcome:
    from studio.wording import count

    lines = [f"{name}: {number} dialogs" for name, number in sorted(report.datasets.items())]
    lines += [f"Search_Space_{name}: {number} images"
              for name, number in sorted(report.search_spaces.items())]
    lines.append(f"Added {report.images_added} images and {report.dialogs_added} recorded chat "
                 "dialogs (Retrieval → Recorded sessions).")
    if report.missing_images:
        lines.append(f"{len(report.missing_images)} image files are missing (give --images DIR, "
                     "the folder that holds unlabeled2017/).")
    if report.targets_outside_search_space:
        lines.append(f"{report.targets_outside_search_space} dialog targets are not in the "
                     "search space.")
    lines += [f"  skipped: {problem}" for problem in report.problems[:10]]
    missing = (f", {count(len(report.missing_images), 'image file')} missing"
               if report.missing_images else "")
    skipped = (f", {count(len(report.problems), 'invalid entry')} skipped"
               if report.problems else "")
    message = (f"Imported ChatIR: {count(report.images_added, 'image')}, "
               f"{count(report.dialogs_added, 'recorded chat dialog')}{missing}{skipped} "
               "(Retrieval → Recorded sessions).")
    return Outcome(message, tuple(lines), tuple(str(p) for p in report.problems[:50]),
                   report.to_dict())


FORMAT = ImportFormat(
    name="chatir",
    title="ChatIR dialogues",
    description="ChatIR: dialogues/NAME.json (one per questioner) and "
    "ChatIR_Protocol/Search_Space_*.json",
    details="Import ChatIR's protocol files: every dialogue file (dataset = its file name) "
    "as recorded chat dialogs, and the search space as the gallery. Image paths are "
    "relative to --images (COCO's layout).",
    options=(
        Option("root", "folder", "the folder holding dialogues/ and ChatIR_Protocol/",
               label="ChatIR folder", metavar="ROOT"),
        Option("images", "folder", "the folder the image paths start in (default: the "
               "project's image root)", label="Pictures folder", flag="--images",
               metavar="DIR"),
        SKIP_INVALID,
    ),
    read=read,
    outcome=outcome,
    image_root=image_root,
)
