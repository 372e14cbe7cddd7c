"""Labels in and out: JSON Lines (one object per label) and CSV.

Each label is ``{"image_id", "attribute", "type", "source", "model", "confidence",
"status"}``. Import checks every line first (known image, valid type/source/status, an
attribute that is in the vocabulary or comes with a type to add it under, no line
repeating another's image, attribute, source and model, names of at most
``MAX_ATTRIBUTE_CHARS``) and writes in one transaction; an empty file is refused.
Importing the same file twice changes nothing the second time.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable
from pathlib import Path
from typing import TextIO

from studio.attributes.query import all_labels
from studio.attributes.records import ATTRIBUTE_TYPES, SOURCES, STATUSES, Label
from studio.attributes.vocabulary import (
    MAX_ATTRIBUTE_CHARS,
    VocabularyError,
    find_entry,
    load_vocabulary,
    make_entry,
    store_entries,
)
from studio.store import Project
from studio.store.database import utc_now
from studio.store.repos import attributes as attributes_repo
from studio.store.repos import images as images_repo

FIELDS = ("image_id", "attribute", "type", "source", "model", "confidence", "status")


def write_labels(labels: Iterable[Label], stream: TextIO, fmt: str) -> int:
    """Write labels as ``jsonl`` or ``csv``; returns how many."""
    count = 0
    writer = None
    if fmt == "csv":
        writer = csv.DictWriter(stream, fieldnames=FIELDS, lineterminator="\n")
        writer.writeheader()
    elif fmt != "jsonl":
        raise VocabularyError(f"unknown label format {fmt!r}; use jsonl or csv")
    for label in labels:
        row = label.to_json()
        if writer is not None:
            writer.writerow(row)
        else:
            stream.write(json.dumps(row, ensure_ascii=False) + "\n")
        count += 1
    return count


def export_labels(project: Project, stream: TextIO, fmt: str) -> int:
    return write_labels(all_labels(project), stream, fmt)


def _parse_line(path: Path, number: int, line: str) -> dict[str, object]:
    where = f"{path}, line {number}"
    try:
        data = json.loads(line)
    except json.JSONDecodeError as error:
        raise VocabularyError(f"{where}: not valid JSON ({error.msg})") from error
    if not isinstance(data, dict):
        raise VocabularyError(f"{where}: expected a JSON object")
    for key in ("image_id", "attribute"):
        if not isinstance(data.get(key), str) or not data[key].strip():
            raise VocabularyError(f"{where}: {key!r} must be a non-empty text")
    checks = (("source", SOURCES, "person"), ("status", STATUSES, "suggested"))
    for key, allowed, default in checks:
        data.setdefault(key, default)
        if data[key] not in allowed:
            raise VocabularyError(
                f"{where}: {key} {data[key]!r} is not one of {', '.join(allowed)}"
            )
    if data.get("type") is not None and data["type"] not in ATTRIBUTE_TYPES:
        raise VocabularyError(
            f"{where}: type {data['type']!r} is not one of {', '.join(ATTRIBUTE_TYPES)}"
        )
    confidence = data.get("confidence")
    if confidence is not None and (
        isinstance(confidence, bool) or not isinstance(confidence, int | float)
        or not 0.0 <= confidence <= 1.0
    ):
        raise VocabularyError(f"{where}: confidence must be a number from 0 to 1 or null")
    if not isinstance(data.get("model", ""), str):
        raise VocabularyError(f"{where}: model must be a text")
    return data


def import_labels(project: Project, actor: str, path: Path) -> dict[str, int]:
    """Read a labels JSONL file completely, then store it in one transaction."""
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8-sig").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise VocabularyError(f"{path}: cannot read the file ({error})") from error
    images = images_repo.image_ids(project)
    known = {e.name: e for e in load_vocabulary(project)}
    new_entries: dict[str, str] = {}
    rows = []
    first: dict[tuple[str, str, str, str], int] = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        data = _parse_line(path, number, line)
        name = " ".join(str(data["attribute"]).split())
        if len(name) > MAX_ATTRIBUTE_CHARS:
            raise VocabularyError(
                f"{path}, line {number}: the attribute name is {len(name):,} characters long; "
                f"the limit is {MAX_ATTRIBUTE_CHARS}"
            )
        key = (str(data["image_id"]), name, str(data["source"]), str(data.get("model", "")))
        if key in first:
            raise VocabularyError(
                f"{path}, line {number}: repeats line {first[key]} (same image, attribute, "
                "source and model); remove one of them"
            )
        first[key] = number
        if data["image_id"] not in images:
            raise VocabularyError(f"{path}, line {number}: no image {data['image_id']!r}")
        if name not in known and name not in new_entries:
            if not data.get("type"):
                raise VocabularyError(
                    f"{path}, line {number}: {name!r} is not in the vocabulary and the line "
                    "has no type to add it with"
                )
            new_entries[name] = str(data["type"])
        rows.append((data, name))
    if not rows:
        raise VocabularyError(f"{path}: the file has no labels (it is empty); nothing to import")
    entries = [make_entry(name, type_) for name, type_ in new_entries.items()]
    now = utc_now()
    with project.change(actor, "attributes.import_labels", "image_attributes") as record:
        added = store_entries(project, actor, entries, origin=str(path))[0] if entries else 0
        changed = 0
        for data, name in rows:
            entry = find_entry(project, name)
            changed += attributes_repo.upsert_label(
                project, data["image_id"], entry.id if entry else None, data["source"],
                data.get("model", ""), data.get("confidence"), data["status"], now,
            )
        record["after"] = {"file": str(path), "lines": len(rows), "changed": changed,
                           "attributes_added": added}
    return {"lines": len(rows), "changed": int(changed), "attributes_added": added}
