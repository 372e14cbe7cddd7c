"""Import and export transaction files: validate everything first, then write or refuse.

Bad input never leaves half an import behind: by default a single bad entry stops the
import with a ``ValidationError`` naming the file, the entry and the key, and nothing is
written. ``skip_invalid=True`` imports the good entries and reports the others.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import Any

from studio.errors import ValidationError
from studio.exporters.common import temporary_beside, write_text_atomic
from studio.importers.image_files import IMAGE_SUFFIXES
from studio.importers.json_format import dump, file_format
from studio.importers.validation import SKIP_HINT
from studio.jobs import CancelToken, ProgressCallback, no_progress
from studio.store import Project
from studio.store.repos import images as images_repo
from studio.store.repos import transactions as transactions_repo
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
    mapped_paths: int = 0  # image references given as paths and mapped to ids
    id_from: str = "stem"
    example: str = ""  # one mapping, "path → id", for the summary

    @property
    def mapping_note(self) -> str:
        if not self.mapped_paths:
            return ""
        how = "by file stem" if self.id_from == "stem" else "by their relative path"
        return (f"{self.mapped_paths} image references were paths, mapped to image ids {how} "
                f"(e.g. {self.example}); the export writes the paths back.")

    def to_json(self) -> dict[str, object]:
        return {
            "file": str(self.file),
            "dataset": self.dataset,
            "format": self.format,
            "added": self.added,
            "already_present": self.already_present,
            "skipped": [str(p) for p in self.skipped],
            "mapped_paths": self.mapped_paths,
            "id_from": self.id_from,
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


ID_FROM = ("stem", "path")


def looks_like_path(value: str) -> bool:
    """``/data/fashion-iq/images/B00ABC.png`` or ``images/B00ABC.jpg``, not ``B00ABC``."""
    return "/" in value or "\\" in value or PurePosixPath(value).suffix.lower() in IMAGE_SUFFIXES


def image_id_for(project: Project, value: str, id_from: str, known: set[str]) -> str:
    """The project image a reference names: the id itself, else (a path) by file stem or
    by the path relative to the image root."""
    if value in known or not looks_like_path(value):
        return value
    pure = PurePosixPath(value.replace("\\", "/"))
    if id_from == "stem":
        return pure.stem
    relative = value[2:] if value.startswith("./") else value
    if pure.is_absolute():
        try:
            relative = Path(value).relative_to(project.image_root).as_posix()
        except ValueError:
            relative = value
    if relative in known:
        return relative
    return transactions_repo.image_id_at(project, relative) or relative


def _map_paths(
    project: Project, parsed: list[ParsedEntry], id_from: str
) -> tuple[list[ParsedEntry], int, str]:
    """Entries whose image references are paths, re-keyed by the ids they name."""
    if id_from not in ID_FROM:
        raise ValidationError(f"--id-from must be one of {', '.join(ID_FROM)}, not {id_from!r}")
    values = {i for p in parsed for i in p.transaction.image_ids}
    known = _known_images(project, values)
    mapped = 0
    example = ""
    out: list[ParsedEntry] = []
    for entry in parsed:
        refs = entry.transaction.image_ids
        ids = tuple(image_id_for(project, value, id_from, known) for value in refs)
        if ids == refs:
            out.append(entry)
            continue
        mapped += sum(1 for a, b in zip(ids, refs, strict=True) if a != b)
        if not example:
            first = next(i for i, (a, b) in enumerate(zip(ids, refs, strict=True)) if a != b)
            example = f"{refs[first]} → {ids[first]}"
        transaction = replace(entry.transaction, image_ids=ids, external_key="|".join(ids),
                              image_refs=refs)
        out.append(ParsedEntry(entry.entry, transaction, entry.image_keys))
    return out, mapped, example


def validate_file(
    project: Project, path: Path, fmt: str = "auto", dataset: str | None = None,
    id_from: str = "stem", mapping: dict[str, Any] | None = None,
) -> tuple[list[Transaction], list[EntryProblem], str, str]:
    """Parse and check a file against the project without writing anything.

    Returns (good transactions, problems, format, dataset). Checks: JSON, schema, keys,
    image ids known to the project, and no entry repeating an earlier one. Image
    references given as paths are mapped to ids (``id_from``: by file stem, or by the
    path relative to the image root); ``mapping`` receives how many and an example.
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
    parsed, mapped, example = _map_paths(project, parsed, id_from)
    if mapping is not None:
        mapping.update(mapped=mapped, example=example)
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
    return images_repo.known_image_ids(project, ids)


def import_transactions(
    project: Project,
    path: Path,
    *,
    fmt: str = "auto",
    dataset: str | None = None,
    skip_invalid: bool = False,
    actor: str = "import",
    id_from: str = "stem",
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
) -> ImportReport:
    """Validate ``path``, then add its transactions in one transaction (see module doc)."""
    progress(0, 2, "validating")
    mapping: dict[str, Any] = {}
    good, problems, fmt, dataset = validate_file(project, path, fmt, dataset, id_from, mapping)
    if problems and not skip_invalid:
        raise ValidationError(
            f"{len(problems)} bad entr{'y' if len(problems) == 1 else 'ies'} in {path}, "
            f"nothing was imported ({SKIP_HINT}): "
            f"{summarise(problems)}"
        )
    if cancel is not None:
        cancel.raise_if_cancelled()
    progress(1, 2, "writing")
    _, present = save_transactions(
        project, good, actor, "import transactions",
        {"file": str(path), "format": fmt, "dataset": dataset},
    )
    if fmt == "fashionmt":  # how the file was written, so its dataset exports the same way
        transactions_repo.record_file_format(project, dataset, file_format(Path(path)))
    progress(2, 2, "done")
    return ImportReport(Path(path), dataset, fmt, len(good) - present, present, problems,
                        mapping.get("mapped", 0), id_from, mapping.get("example", ""))


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
    style = _source_style(project, dataset) if fmt == "fashionmt" else None
    if style is not None:
        write_text_atomic(Path(path), dump(entries, style))
    else:
        _write_json_atomic(Path(path), entries)
    return len(entries)


def _source_style(project: Project, dataset: str | None) -> dict[str, Any] | None:
    """The recorded layout of the file ``dataset`` was imported from, if there is one."""
    if dataset is None:
        return None
    found: dict[str, Any] | None = transactions_repo.file_format(project, dataset)
    return found


def _write_json_atomic(path: Path, data: Sequence[Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = temporary_beside(path)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(list(data), fh, ensure_ascii=False, indent=1)
            fh.write("\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
