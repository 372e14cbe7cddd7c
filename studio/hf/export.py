"""``export hf``: the project as a Hugging Face dataset folder (Parquet + dataset card).

What never leaves: drafts and rejected captions (as in every export), the hidden test
ground truth of CIRR and CIRCO (a project that holds some is refused, naming the pairs),
pictures whose file is missing (their image is null, their path kept), the audit log and
the team's assignments. ``annotations_only`` writes ids and paths but no picture bytes.
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from studio.errors import StudioError
from studio.exporters.common import ExportedPair, iter_pairs, prepare_folder
from studio.hf.card import write_card
from studio.hf.schema import UNSPLIT, arrow_schema, file_name
from studio.jobs import CancelToken, ProgressCallback, no_progress
from studio.store import Project
from studio.store.repos.exchange import gallery_rows
from studio.store.repos.ground_truths import ground_truths
from studio.transactions.store import iter_transactions

ROWS_PER_GROUP = 256  # rows per Parquet row group: bounded memory with pictures embedded
HIDDEN = {"cirr": ("test",), "circo": ("test",)}  # source → split prefixes kept on a server


def hidden_ground_truth(pair: ExportedPair, truths: list[str]) -> bool:
    """A CIRR/CIRCO test pair that carries a target or ground truths (never published)."""
    prefixes = HIDDEN.get(pair.source, ())
    return any(pair.split.startswith(p) for p in prefixes) and bool(pair.target_id or truths)


def export_hf(
    project: Project,
    out: Path,
    *,
    source: str | None = None,
    annotations_only: bool = False,
    split: str | None = None,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
) -> dict[str, Any]:
    """Write ``OUT/{triplets,sessions,gallery}/SPLIT-00000-of-00001.parquet`` and the card."""
    cancel = cancel or CancelToken()
    pairs = [p for p in iter_pairs(project, source) if split is None or p.split == split]
    truths = ground_truths(project, [p.id for p in pairs])
    hidden = [p for p in pairs if hidden_ground_truth(p, truths.get(p.id, []))]
    if hidden:
        names = ", ".join(f"{p.source} {p.external_key}" for p in hidden[:5])
        raise StudioError(
            f"Refusing to export hidden test ground truth: {len(hidden)} {hidden[0].source} "
            f"test pairs carry a target or ground truths ({names}…). Their authors keep it on "
            "an evaluation server; export the other splits with --split."
        )
    out = prepare_folder(out)
    with_images = not annotations_only
    by_split: dict[str, list[ExportedPair]] = defaultdict(list)
    for pair in pairs:
        by_split[pair.split].append(pair)
    transactions = [] if split is not None else list(iter_transactions(project))
    members = gallery_rows(project)
    if split is not None:
        members = [row for row in members if row[1] == split]
    total = len(pairs) + len(transactions) + 1
    done = 0
    counts: dict[str, dict[str, int]] = {"triplets": {}, "sessions": {}, "gallery": {}}
    for name, group in sorted(by_split.items()):
        rows = (_triplet(project, p, truths.get(p.id, []), with_images) for p in group)
        _write(out / "triplets" / file_name(name), arrow_schema("triplets", with_images),
               rows, cancel)
        counts["triplets"][name or UNSPLIT] = len(group)
        done += len(group)
        progress(done, total, f"triplets {name or UNSPLIT}")
    if transactions:
        rows = (_session(project, t, with_images) for t in transactions)
        _write(out / "sessions" / file_name(UNSPLIT), arrow_schema("sessions", with_images),
               rows, cancel)
        counts["sessions"][UNSPLIT] = len(transactions)
        done += len(transactions)
        progress(done, total, "sessions")
    by_gallery: dict[str, list[dict[str, Any]]] = defaultdict(list)
    paths = _paths(project, {row[2] for row in members})
    for category, gallery_split, image_id, position in members:
        by_gallery[gallery_split].append({"category": category, "split": gallery_split,
                                          "image_id": image_id, "position": position,
                                          "path": paths.get(image_id, "")})
    for name, rows_of in sorted(by_gallery.items()):
        _write(out / "gallery" / file_name(name), arrow_schema("gallery", False),
               iter(rows_of), cancel)
        counts["gallery"][name or UNSPLIT] = len(rows_of)
    progress(total, total, "dataset card")
    sources = sorted({p.source for p in pairs} | {t.dataset for t in transactions})
    write_card(out, counts, sources, with_images)
    return {"format": "hf", "out": str(out), "images_embedded": with_images,
            "files": {f"{config}/{name}": {"rows": n}
                      for config, splits in counts.items() for name, n in splits.items()}}


def _paths(project: Project, image_ids: Iterable[str]) -> dict[str, str]:
    found = {}
    for image_id in image_ids:
        record = project.image(image_id)
        if record is not None:
            found[image_id] = record.path
    return found


def _picture(project: Project, image_id: str | None) -> tuple[str | None, dict | None]:
    """(stored path, ``Image`` value) of a project image; the value is None without a file."""
    if not image_id:
        return None, None
    record = project.image(image_id)
    if record is None:
        return None, None
    if record.missing:
        return record.path, None
    try:
        data = project.image_path(record).read_bytes()
    except (OSError, StudioError):
        return record.path, None
    return record.path, {"bytes": data, "path": record.path}


def _triplet(
    project: Project, pair: ExportedPair, truths: list[str], with_images: bool
) -> dict[str, Any]:
    reference_path, reference_image = _picture(project, pair.reference_id)
    target_path, target_image = _picture(project, pair.target_id)
    row: dict[str, Any] = {
        "id": f"{pair.source}/{pair.external_key}", "source": pair.source,
        "external_key": pair.external_key, "category": pair.category, "split": pair.split,
        "method": pair.method, "reference": pair.reference_id, "target": pair.target_id,
        "ground_truths": truths,
        "captions": [{key: c[key] for key in ("text", "status", "author", "reviewer",
                                               "created_at", "updated_at", "reviewed_at")}
                     for c in pair.captions],
        "extra": json.dumps(pair.extra, ensure_ascii=False),
        "reference_path": reference_path, "target_path": target_path,
    }
    if with_images:
        row["reference_image"], row["target_image"] = reference_image, target_image
    return row


def _session(project: Project, transaction: Any, with_images: bool) -> dict[str, Any]:
    pictures = [_picture(project, image_id) for image_id in transaction.image_ids]
    row: dict[str, Any] = {
        "id": f"{transaction.dataset}/{transaction.external_key}",
        "dataset": transaction.dataset, "external_key": transaction.external_key,
        "category": transaction.category, "origin": transaction.origin,
        "image_ids": list(transaction.image_ids),
        "image_paths": [path or "" for path, _ in pictures],
        "image_captions": list(transaction.captions),
        "turns": [{"index": t.index, "reference_position": t.reference_position,
                   "text": t.text, "status": t.status} for t in transaction.turns],
    }
    if with_images:
        row["images"] = [image for _, image in pictures]
    return row


def _write(path: Path, schema: Any, rows: Iterator[dict[str, Any]], cancel: CancelToken) -> None:
    """Rows in groups to ``path`` through a temporary file, renamed when complete."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.partial")
    try:
        with pq.ParquetWriter(temporary, schema) as writer:
            batch: list[dict[str, Any]] = []
            for row in rows:
                batch.append(row)
                if len(batch) == ROWS_PER_GROUP:
                    cancel.raise_if_cancelled()
                    writer.write_table(pa.Table.from_pylist(batch, schema=schema))
                    batch = []
            if batch:
                writer.write_table(pa.Table.from_pylist(batch, schema=schema))
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
