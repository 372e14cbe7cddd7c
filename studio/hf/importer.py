"""``import hf``: read a folder written by ``export hf`` back into a project.

Everything is read and checked first (file and row named on a problem); then pictures
carried in the files are written under the image root at their recorded paths (never
over an existing file, never outside the root), and pairs, captions (with their authors,
statuses, reviewers and times), ground truths, transactions and galleries are written in
one transaction. Importing the same folder twice adds nothing.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from studio.errors import ValidationError
from studio.hf.schema import CONFIGS, features
from studio.importers.image_files import file_facts
from studio.importers.plan import ImportPlan, PairEntry, apply_plan
from studio.jobs import CancelToken, ProgressCallback, no_progress
from studio.store import Project
from studio.store.records import ImageRecord
from studio.store.repos.exchange import (
    existing_pair_keys,
    restore_caption_details,
    restore_pair_details,
)
from studio.store.repos.images import missing_flags
from studio.transactions.records import Transaction, Turn
from studio.transactions.store import save_transactions

SAFE_FALLBACK = "hf_images"  # where a picture goes when its recorded path is unusable


@dataclass
class HfImportReport:
    pairs_added: int = 0
    captions_added: int = 0
    images_added: int = 0
    pictures_written: int = 0
    transactions_added: int = 0
    missing_images: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {**self.__dict__, "missing_images": len(self.missing_images)}


@dataclass
class _Image:
    path: str
    data: bytes | None = None
    memberships: list[tuple[str, str, int]] = field(default_factory=list)


def read_tables(folder: Path) -> dict[str, list[tuple[str, list[dict[str, Any]]]]]:
    """config → [(file name, rows)] for every Parquet file of the export."""
    import pyarrow.parquet as pq

    folder = Path(folder).expanduser()
    tables: dict[str, list[tuple[str, list[dict[str, Any]]]]] = {}
    problems = []
    for config in CONFIGS:
        for path in sorted((folder / config).glob("*.parquet")):
            name = path.relative_to(folder).as_posix()
            try:
                table = pq.read_table(path)
            except Exception as error:  # noqa: BLE001 - pyarrow raises many kinds
                problems.append(f"{name}: not a readable Parquet file ({error})")
                continue
            needed = [c for c in features(config, False) if c not in table.column_names]
            if needed:
                problems.append(f"{name}: missing columns {', '.join(needed)}")
                continue
            tables.setdefault(config, []).append((name, table.to_pylist()))
    if problems:
        raise ValidationError("Hugging Face import refused, nothing was written: "
                              + "; ".join(problems[:20]))
    if not tables:
        raise ValidationError(f"No export under {folder}: expected triplets/, sessions/ or "
                              "gallery/ folders of Parquet files (written by 'export hf').")
    return tables


def import_hf(
    project: Project,
    folder: Path,
    *,
    actor: str = "hf",
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
) -> HfImportReport:
    cancel = cancel or CancelToken()
    tables = read_tables(folder)
    images, pairs, sessions = _collect(tables)
    known = missing_flags(project)
    report = HfImportReport()
    records = []
    for image_id, image in sorted(images.items()):
        if image_id in known:
            continue
        file, written = _place(project, image_id, image)
        report.pictures_written += written
        facts = file_facts(file) if file is not None else None
        first = min(image.memberships, default=("", "", 0))
        records.append(ImageRecord(
            id=image_id, path=_relative(project, file) if file else image.path or image_id,
            category=first[0], split=first[1], source="hf", missing=facts is None,
            content_hash=facts.content_hash if facts else None,
            width=facts.width if facts else None, height=facts.height if facts else None,
            bytes=facts.bytes if facts else None,
        ))
        if facts is None:
            report.missing_images.append(image_id)
    memberships: dict[tuple[str, str], list[tuple[int, str]]] = defaultdict(list)
    for image_id, image in images.items():
        for category, split, position in image.memberships:
            memberships[(category, split)].append((position, image_id))
    galleries = {key: [i for _, i in sorted(members)] for key, members in memberships.items()}
    by_source: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in pairs:
        by_source[row["source"]].append(row)
    with project.writing("images", "pairs", "captions", "transactions"):
        first_plan = True
        for source, rows in sorted(by_source.items()) or [("hf", [])]:
            fresh = {r["external_key"] for r in rows} - existing_pair_keys(project, source)
            plan = ImportPlan(dataset="Hugging Face", source=source,
                              images=records if first_plan else [],
                              memberships=galleries if first_plan else {},
                              pairs=[_pair_entry(r) for r in rows])
            first_plan = False
            added = apply_plan(project, plan, actor, progress=progress, cancel=cancel)
            report.pairs_added += added.pairs_added
            report.captions_added += added.captions_added
            report.images_added += added.images_added
            new_rows = [r for r in rows if r["external_key"] in fresh]
            restore_pair_details(project, source,
                                 [(r["external_key"], r["method"] or "imported") for r in new_rows])
            restore_caption_details(project, source, [
                (r["external_key"], position, _details(project, caption))
                for r in new_rows for position, caption in enumerate(r["captions"])
            ])
        if sessions:
            new_ids, _ = save_transactions(project, [_transaction(r) for r in sessions], actor,
                                           "import Hugging Face sessions")
            report.transactions_added = len(new_ids)
    return report


def _collect(tables: dict[str, list[tuple[str, list[dict[str, Any]]]]]) -> tuple[
    dict[str, _Image], list[dict[str, Any]], list[dict[str, Any]]
]:
    images: dict[str, _Image] = {}
    problems: list[str] = []

    def image(image_id: str | None, path: str | None, picture: dict | None) -> None:
        if not image_id:
            return
        found = images.setdefault(image_id, _Image(path or ""))
        if picture and picture.get("bytes") and found.data is None:
            found.data = picture["bytes"]
        if path and not found.path:
            found.path = path

    pairs: list[dict[str, Any]] = []
    sessions: list[dict[str, Any]] = []
    seen: dict[tuple[str, str], str] = {}
    for name, rows in tables.get("triplets", []):
        for number, row in enumerate(rows):
            key = (row["source"], row["external_key"])
            if not row["reference"] or not row["external_key"]:
                problems.append(f"{name} row [{number}]: reference and external_key are needed")
            elif key in seen:
                problems.append(f"{name} row [{number}]: {row['id']} repeats {seen[key]}")
            else:
                seen[key] = f"{name} row [{number}]"
                pairs.append(row)
                image(row["reference"], row["reference_path"], row.get("reference_image"))
                image(row["target"], row["target_path"], row.get("target_image"))
                for truth in row["ground_truths"] or []:
                    image(truth, None, None)
    for name, rows in tables.get("sessions", []):
        for number, row in enumerate(rows):
            ids, paths = row["image_ids"] or [], row["image_paths"] or []
            if len(ids) < 2 or len(paths) != len(ids) or len(row["turns"] or []) != len(ids) - 1:
                problems.append(f"{name} row [{number}]: images, paths and turns do not match")
                continue
            sessions.append(row)
            pictures = row.get("images") or [None] * len(ids)
            for image_id, path, picture in zip(ids, paths, pictures, strict=False):
                image(image_id, path, picture)
    for _name, rows in tables.get("gallery", []):
        for row in rows:
            image(row["image_id"], row["path"], None)
            images[row["image_id"]].memberships.append(
                (row["category"], row["split"], int(row["position"])))
    if problems:
        raise ValidationError("Hugging Face import refused, nothing was written: "
                              + "; ".join(problems[:20]))
    return images, pairs, sessions


def _place(project: Project, image_id: str, image: _Image) -> tuple[Path | None, int]:
    """The image's file under the root, writing the carried picture if there is none yet."""
    root = project.image_root
    relative = PurePosixPath(image.path) if image.path else None
    usable = relative is not None and not relative.is_absolute() and ".." not in relative.parts
    target = root / relative if usable and relative is not None else None
    if target is not None and target.is_file():
        return target, 0
    if image.data is None:
        return None, 0
    if target is None:
        target = root / SAFE_FALLBACK / f"{image_id.replace('/', '_')}.jpg"
        if target.is_file():
            return target, 0
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(f".{target.name}.partial")
    temporary.write_bytes(image.data)
    temporary.replace(target)
    return target, 1


def _relative(project: Project, file: Path) -> str:
    return file.relative_to(project.image_root).as_posix()


def _pair_entry(row: dict[str, Any]) -> PairEntry:
    return PairEntry(
        external_key=row["external_key"], reference_id=row["reference"],
        target_id=row["target"], category=row["category"] or "", split=row["split"] or "",
        captions=tuple(c["text"] for c in row["captions"] or []),
        extra=row["extra"] or "{}", ground_truths=tuple(row["ground_truths"] or ()),
    )


def _details(project: Project, caption: dict[str, Any]) -> dict[str, object]:
    author = project.ensure_person(caption["author"]).id if caption.get("author") else None
    reviewer = (project.ensure_person(caption["reviewer"], "reviewer").id
                if caption.get("reviewer") else None)
    return {"author_id": author, "status": caption.get("status") or "submitted",
            "reviewer_id": reviewer, "created_at": caption.get("created_at"),
            "updated_at": caption.get("updated_at"), "reviewed_at": caption.get("reviewed_at")}


def _transaction(row: dict[str, Any]) -> Transaction:
    return Transaction(
        dataset=row["dataset"], external_key=row["external_key"],
        image_ids=tuple(row["image_ids"]),
        turns=tuple(Turn(int(t["index"]), t["text"], int(t["reference_position"]),
                         t["status"] or "accepted") for t in row["turns"]),
        captions=tuple(row["image_captions"] or ()), category=row["category"] or "",
        origin=row["origin"] or "imported",
    )

