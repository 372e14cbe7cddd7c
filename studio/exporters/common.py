"""What the exporters share: reading pairs with their captions, and writing files safely."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from studio.errors import StudioError
from studio.store import Project
from studio.store.repos import datasets as datasets_repo

# Captions a dataset file should contain: written and not turned down. Drafts are work in
# progress and rejected captions were judged wrong, so neither leaves the studio.
EXPORTED_STATUSES = ("submitted", "accepted")


@dataclass
class ExportedPair:
    id: int
    reference_id: str
    target_id: str | None
    category: str
    split: str
    source: str
    external_key: str
    method: str
    score: float | None
    extra: dict[str, Any]
    captions: list[dict[str, Any]] = field(default_factory=list)


_CAPTION_COLUMNS = ("position", "text", "status", "author", "reviewer", "created_at",
                    "updated_at", "reviewed_at", "reject_reason")


def iter_pairs(
    project: Project, source: str | None = None, statuses: tuple[str, ...] = EXPORTED_STATUSES
) -> Iterator[ExportedPair]:
    """Pairs in creation order, each with its captions (of ``statuses``) by position."""
    current: ExportedPair | None = None
    for row in datasets_repo.pairs_with_captions(project, source, statuses):
        if current is None or current.id != row["id"]:
            if current is not None:
                yield current
            current = ExportedPair(
                id=row["id"], reference_id=row["reference_id"], target_id=row["target_id"],
                category=row["category"], split=row["split"], source=row["source"],
                external_key=row["external_key"], method=row["method"], score=row["score"],
                extra=json.loads(row["extra"] or "{}"),
            )
        if row["position"] is not None:
            current.captions.append(
                {
                    **{key: row[key] for key in _CAPTION_COLUMNS},
                    "flagged": bool(row["flagged"]),
                }
            )
    if current is not None:
        yield current


def gallery_ids(
    project: Project, category: str | None, split: str, source: str | None = None
) -> list[tuple[str, str]]:
    """(id, path) of the images of one split, in the order they were added."""
    return datasets_repo.split_images(project, category, split, source)


def prepare_folder(out: Path) -> Path:
    out = Path(out).expanduser()
    if out.exists() and not out.is_dir():
        raise StudioError(f"{out} is a file; give a folder to export into.")
    out.mkdir(parents=True, exist_ok=True)
    return out


def temporary_beside(path: Path) -> tuple[int, str]:
    """A new, uniquely named file beside ``path`` to write and then rename over it, open
    for writing (fd, name). Unlike ``tempfile.mkstemp`` (always 0600), it is created with
    the permissions every other file gets (0666 less the umask), so the renamed file is
    as readable as the pictures beside it."""
    import secrets

    while True:
        name = str(path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp"))
        try:
            return os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666), name
        except FileExistsError:
            continue


def write_text_atomic(path: Path, text: str) -> None:
    """Write beside the target, then rename: a crash never leaves half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.partial")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)


def write_json(path: Path, data: Any) -> None:
    """Four-space indented JSON without a final newline, as the Fashion IQ files are."""
    write_text_atomic(path, json.dumps(data, indent=4))
