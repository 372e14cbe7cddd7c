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


def iter_pairs(
    project: Project, source: str | None = None, statuses: tuple[str, ...] = EXPORTED_STATUSES
) -> Iterator[ExportedPair]:
    """Pairs in creation order, each with its captions (of ``statuses``) by position."""
    where = "WHERE p.source = ?" if source else ""
    marks = ",".join("?" * len(statuses))
    sql = f"""
        SELECT p.id, p.reference_id, p.target_id, p.category, p.split, p.source,
               p.external_key, p.method, p.score, p.extra,
               c.position, c.text, c.status, a.name, r.name, c.created_at, c.updated_at,
               c.reviewed_at, c.reject_reason, c.flagged
        FROM pairs p
        LEFT JOIN captions c ON c.pair_id = p.id AND c.status IN ({marks})
        LEFT JOIN people a ON a.id = c.author_id
        LEFT JOIN people r ON r.id = c.reviewer_id
        {where}
        ORDER BY p.id, c.position, c.id
    """
    params: list[Any] = [*statuses, *([source] if source else [])]
    current: ExportedPair | None = None
    for row in project.db.execute(sql, params):
        if current is None or current.id != row[0]:
            if current is not None:
                yield current
            current = ExportedPair(*row[:9], extra=json.loads(row[9] or "{}"))
        if row[10] is not None:
            current.captions.append(
                {
                    "position": row[10],
                    "text": row[11],
                    "status": row[12],
                    "author": row[13],
                    "reviewer": row[14],
                    "created_at": row[15],
                    "updated_at": row[16],
                    "reviewed_at": row[17],
                    "reject_reason": row[18],
                    "flagged": bool(row[19]),
                }
            )
    if current is not None:
        yield current


def gallery_ids(
    project: Project, category: str | None, split: str, source: str | None = None
) -> list[tuple[str, str]]:
    """(id, path) of the images of one split, in the order they were added."""
    clauses, params = ["split = ?"], [split]
    if category is not None:
        clauses.append("category = ?")
        params.append(category)
    if source:
        clauses.append("source = ?")
        params.append(source)
    sql = f"SELECT id, path FROM images WHERE {' AND '.join(clauses)} ORDER BY rowid"
    return [(row[0], row[1]) for row in project.db.execute(sql, params)]


def prepare_folder(out: Path) -> Path:
    out = Path(out).expanduser()
    if out.exists() and not out.is_dir():
        raise StudioError(f"{out} is a file; give a folder to export into.")
    out.mkdir(parents=True, exist_ok=True)
    return out


def write_text_atomic(path: Path, text: str) -> None:
    """Write beside the target, then rename: a crash never leaves half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.partial")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)


def write_json(path: Path, data: Any) -> None:
    """Four-space indented JSON without a final newline, as the Fashion IQ files are."""
    write_text_atomic(path, json.dumps(data, indent=4))
