"""Folder import: every image below a folder, with optional product metadata.

An image's id is its file name without the suffix. A file whose name is not valid UTF-8,
or a link that resolves outside the folder, is skipped with the reason (listed in the
report) and never read. Metadata is a CSV, JSON (a list of
objects) or JSON Lines file with an ``id`` column and any of ``title``, ``description``,
``category`` and ``split``; other columns are ignored, so a shop export can be used as is.
"""

from __future__ import annotations

import csv
import json
from collections import Counter
from pathlib import Path
from typing import Any

from studio.errors import ValidationError
from studio.importers.image_files import IMAGE_SUFFIXES, facts_for, screen_files
from studio.importers.plan import ImagePaths, ImportPlan, ImportReport, apply_plan, image_record
from studio.importers.validation import Problems, load_json
from studio.jobs import CancelToken, ProgressCallback, no_progress
from studio.store import Project
from studio.store.repos import images as images_repo

DATASET = "Folder"
SOURCE = "folder"
FIELDS = ("title", "description", "category", "split")
METADATA_NAMES = ("metadata.csv", "metadata.json", "metadata.jsonl")
_UNREADABLE = object()  # a JSON line already reported as malformed


def import_folder(
    project: Project,
    folder: Path,
    metadata: Path | None = None,
    *,
    skip_invalid: bool = False,
    actor: str = "",
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
) -> ImportReport:
    """Register the folder's images (hashed) with their metadata, in one transaction."""
    cancel = cancel or CancelToken()
    plan = read_folder(
        project, folder, metadata, skip_invalid=skip_invalid, progress=progress, cancel=cancel
    )
    return apply_plan(project, plan, actor or SOURCE, progress=progress, cancel=cancel)


def find_metadata(folder: Path) -> Path | None:
    """``metadata.csv``, ``.json`` or ``.jsonl`` at the top of the folder, if present."""
    return next((folder / n for n in METADATA_NAMES if (folder / n).is_file()), None)


def read_folder(
    project: Project,
    folder: Path,
    metadata: Path | None = None,
    *,
    skip_invalid: bool = False,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
) -> ImportPlan:
    cancel = cancel or CancelToken()
    folder = Path(folder).expanduser()
    if not folder.is_dir():
        raise ValidationError(f"{folder} is not a folder.")
    problems = Problems(folder)
    candidates = {
        str(index): path
        for index, path in enumerate(sorted(folder.rglob("*")))
        if path.suffix.lower() in IMAGE_SUFFIXES and (path.is_file() or path.is_symlink())
    }
    readable, skipped_files = screen_files(candidates, folder, problems.name)
    files: dict[str, Path] = {}
    for path in readable.values():
        if not path.is_file():
            continue
        if path.stem in files:
            problems.add(path, f"same id as {problems.name(files[path.stem])}", key=path.stem)
        else:
            files[path.stem] = path
    if not files:
        why = f" ({len(skipped_files)} skipped: {skipped_files[0]})" if skipped_files else ""
        raise ValidationError(f"No images ({', '.join(IMAGE_SUFFIXES)}) found in {folder}{why}.")
    metadata = Path(metadata).expanduser() if metadata else find_metadata(folder)
    rows = _read_metadata(metadata, set(files), problems) if metadata else {}
    found = problems.settle(DATASET, skip_invalid)
    known = images_repo.image_ids(project)
    new = {image_id: path for image_id, path in files.items() if image_id not in known}
    facts = facts_for(new, progress, cancel, "hashing images")
    paths = ImagePaths(project)
    images = [
        image_record(paths, image_id, path, facts[image_id], SOURCE, **rows.get(image_id, {}))
        for image_id, path in new.items()
    ]
    gallery: Counter[tuple[str, str]] = Counter()
    for image_id in files:
        meta = rows.get(image_id, {})
        gallery[(meta.get("category", ""), meta.get("split", ""))] += 1
    return ImportPlan(
        dataset=DATASET,
        source=SOURCE,
        images=images,
        problems=found,
        gallery=gallery,
        skipped_files=skipped_files,
        image_dir=folder,
    )


def _read_metadata(path: Path, ids: set[str], problems: Problems) -> dict[str, dict[str, str]]:
    records = _records(path, problems)
    if records is None:
        return {}
    rows: dict[str, dict[str, str]] = {}
    first: dict[str, int] = {}
    for index, record in enumerate(records):
        if record is _UNREADABLE:
            continue
        if not isinstance(record, dict):
            problems.add(path, f"expected an object, found {type(record).__name__}", index)
            continue
        image_id = record.get("id")
        if isinstance(image_id, int) and not isinstance(image_id, bool):
            image_id = str(image_id)
        if not isinstance(image_id, str) or not image_id.strip():
            problems.add(path, f"missing or empty id, found {image_id!r}", index)
            continue
        values = {key: record[key] for key in FIELDS if record.get(key) is not None}
        bad = [key for key, value in values.items() if not isinstance(value, str)]
        if bad:
            problems.add(path, f"{', '.join(bad)} must be text", index, image_id)
        elif image_id in first:
            problems.add(path, f"duplicate id, first at entry [{first[image_id]}]", index, image_id)
        elif image_id not in ids:
            problems.add(
                path, "unknown id: no image file with this name in the folder", index, image_id
            )
        else:
            first[image_id] = index
            rows[image_id] = {key: value.strip() for key, value in values.items()}
    return rows


def _records(path: Path, problems: Problems) -> list[Any] | None:
    """The metadata as a list of records (CSV rows, a JSON list, or JSON lines)."""
    suffix = path.suffix.lower()
    if suffix == ".csv":
        try:
            with path.open(newline="", encoding="utf-8-sig") as handle:
                reader = csv.DictReader(handle)
                if "id" not in (reader.fieldnames or []):
                    problems.add(
                        path,
                        f"has no 'id' column (columns: "
                        f"{', '.join(reader.fieldnames or []) or 'none'})",
                    )
                    return None
                return list(reader)
        except (OSError, UnicodeDecodeError, csv.Error) as error:
            problems.add(path, f"cannot be read as CSV ({error})")
            return None
    if suffix == ".jsonl":
        records = []
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as error:
            problems.add(path, f"cannot be read ({error})")
            return None
        for index, line in enumerate(lines):
            if line.strip():
                try:
                    records.append(json.loads(line))
                except json.JSONDecodeError as error:
                    problems.add(path, f"malformed JSON line: {error.msg}", index)
                    records.append(_UNREADABLE)
        return records
    data = load_json(path, problems)
    if data is not None and not isinstance(data, list):
        problems.add(path, f"expected a JSON list of objects, found {type(data).__name__}")
        return None
    return data
