"""Import and export transaction files: validate everything first, then write or refuse.

Bad input never leaves half an import behind: by default a single bad entry stops the
import with a ``ValidationError`` naming the file, the entry and the key, and nothing is
written. ``skip_invalid=True`` imports the good entries and reports the others.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from studio.errors import ValidationError
from studio.jobs import CancelToken, ProgressCallback, no_progress
from studio.store import Project
from studio.transactions import fashioniq_multiturn, fashionmt
from studio.transactions.problems import EntryProblem, ParsedEntry, load_json_list, summarise
from studio.transactions.records import Transaction
from studio.transactions.store import iter_transactions, save_transactions

Parser = Callable[[list[Any], Path, str], tuple[list[ParsedEntry], list[EntryProblem]]]
PARSERS: dict[str, Parser] = {
    "fashionmt": fashionmt.parse_entries,
    "fashioniq-mt": fashioniq_multiturn.parse_entries,
}
WRITERS: dict[str, Callable[[Transaction], dict[str, Any]]] = {
    "fashionmt": fashionmt.to_entry,
    "fashioniq-mt": fashioniq_multiturn.to_entry,
}
FORMATS = tuple(PARSERS)


@dataclass
class ImportReport:
    file: Path
    dataset: str
    format: str
    added: int = 0
    already_present: int = 0
    skipped: list[EntryProblem] = field(default_factory=list)

    def to_json(self) -> dict[str, object]:
        return {
            "file": str(self.file),
            "dataset": self.dataset,
            "format": self.format,
            "added": self.added,
            "already_present": self.already_present,
            "skipped": [str(p) for p in self.skipped],
        }


def detect_format(data: list[Any], path: Path) -> str:
    """FashionMT entries have ``ref``; multi-turn Fashion IQ entries have ``candidate``."""
    for entry in data:
        if isinstance(entry, dict):
            if "ref" in entry:
                return "fashionmt"
            if "candidate" in entry:
                return "fashioniq-mt"
            break
    raise ValidationError(
        f"{path}: cannot tell the format (entries need 'ref' for FashionMT or 'candidate' for "
        "multi-turn Fashion IQ); pass the format explicitly"
    )


def validate_file(
    project: Project, path: Path, fmt: str = "auto", dataset: str | None = None
) -> tuple[list[Transaction], list[EntryProblem], str, str]:
    """Parse and check a file against the project without writing anything.

    Returns (good transactions, problems, format, dataset). Checks: JSON, schema, keys,
    image ids known to the project, and no entry repeating an earlier one.
    """
    path = Path(path)
    data = load_json_list(path)
    if fmt == "auto":
        fmt = detect_format(data, path)
    if fmt not in PARSERS:
        raise ValidationError(
            f"Unsupported transaction format '{fmt}'. The available formats are: "
            f"{', '.join(FORMATS)}"
        )
    dataset = (dataset or path.stem).strip()
    if not dataset:
        raise ValidationError("A dataset name must not be empty.")
    parsed, problems = PARSERS[fmt](data, path, dataset)
    known = _known_images(project, {i for p in parsed for i in p.transaction.image_ids})
    good: list[Transaction] = []
    first_seen: dict[str, int] = {}
    for entry in parsed:
        transaction = entry.transaction
        missing = [
            (key, image_id)
            for key, image_id in zip(entry.image_keys, transaction.image_ids, strict=True)
            if image_id not in known
        ]
        if missing:
            key, image_id = missing[0]
            more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
            problems.append(EntryProblem(path, entry.entry, key,
                                         f"unknown image id {image_id!r}{more}"))
            continue
        earlier = first_seen.get(transaction.external_key)
        if earlier is not None:
            problems.append(EntryProblem(path, entry.entry, None,
                                         f"duplicate of entry {earlier}"))
            continue
        first_seen[transaction.external_key] = entry.entry
        good.append(transaction)
    problems.sort(key=lambda p: p.entry)
    return good, problems, fmt, dataset


def _known_images(project: Project, ids: set[str]) -> set[str]:
    known: set[str] = set()
    wanted = sorted(ids)
    for start in range(0, len(wanted), 500):
        chunk = wanted[start : start + 500]
        marks = ",".join("?" * len(chunk))
        rows = project.db.execute(f"SELECT id FROM images WHERE id IN ({marks})", chunk)
        known.update(row[0] for row in rows.fetchall())
    return known


def import_transactions(
    project: Project,
    path: Path,
    *,
    fmt: str = "auto",
    dataset: str | None = None,
    skip_invalid: bool = False,
    actor: str = "import",
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
) -> ImportReport:
    """Validate ``path``, then add its transactions in one transaction (see module doc)."""
    progress(0, 2, "validating")
    good, problems, fmt, dataset = validate_file(project, path, fmt, dataset)
    if problems and not skip_invalid:
        raise ValidationError(
            f"{len(problems)} bad entr{'y' if len(problems) == 1 else 'ies'} in {path}, "
            f"nothing was imported (use --skip-invalid to import the valid entries): "
            f"{summarise(problems)}"
        )
    if cancel is not None:
        cancel.raise_if_cancelled()
    progress(1, 2, "writing")
    _, present = save_transactions(
        project, good, actor, "import transactions",
        {"file": str(path), "format": fmt, "dataset": dataset},
    )
    progress(2, 2, "done")
    return ImportReport(Path(path), dataset, fmt, len(good) - present, present, problems)


def export_transactions(
    project: Project, path: Path, *, fmt: str = "fashionmt", dataset: str | None = None,
    accepted_only: bool = False,
) -> int:
    """Write transactions as a JSON list (atomically); returns how many were written."""
    if fmt not in WRITERS:
        raise ValidationError(
            f"Unsupported transaction format '{fmt}'. The available formats are: "
            f"{', '.join(FORMATS)}"
        )
    entries = [
        WRITERS[fmt](t)
        for t in iter_transactions(project, dataset)
        if not accepted_only or all(turn.status == "accepted" for turn in t.turns)
    ]
    _write_json_atomic(Path(path), entries)
    return len(entries)


def _write_json_atomic(path: Path, data: Sequence[Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.name, suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(list(data), fh, ensure_ascii=False, indent=1)
            fh.write("\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
