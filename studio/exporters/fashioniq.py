"""Fashion IQ export: the same files the importer reads, entry for entry.

Entries keep the source's key order ``{target, candidate, captions}`` and the order in
which pairs were created, and files are indented as the published ones, so exporting an
imported set writes files identical to the originals.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

from studio.exporters.common import gallery_ids, iter_pairs, prepare_folder, write_json
from studio.jobs import CancelToken, ProgressCallback, no_progress
from studio.store import Project


def export_fashioniq(
    project: Project,
    out: Path,
    *,
    source: str | None = None,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
) -> dict[str, Any]:
    """Write ``captions/cap.{cat}.{split}.json`` and ``image_splits/split.{cat}.{split}.json``.

    Pairs without a submitted or accepted caption are left out (and counted); images and
    pairs without a category have no Fashion IQ file name and are left out too.
    """
    cancel = cancel or CancelToken()
    out = prepare_folder(out)
    entries: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    without_captions = 0
    for pair in iter_pairs(project, source):
        if not pair.category:
            continue
        if not pair.captions:
            without_captions += 1
            continue
        entry: dict[str, Any] = {}
        if pair.target_id is not None:
            entry["target"] = pair.target_id
        entry["candidate"] = pair.reference_id
        entry["captions"] = [caption["text"] for caption in pair.captions]
        entries[(pair.category, pair.split)].append(entry)
    groups = sorted(set(entries) | _image_groups(project, source))
    written: dict[str, dict[str, int]] = {}
    for number, (category, split) in enumerate(groups, start=1):
        cancel.raise_if_cancelled()
        name = f"{category}.{split}"
        counts = {"entries": 0, "gallery": 0}
        if (category, split) in entries:
            write_json(out / "captions" / f"cap.{name}.json", entries[(category, split)])
            counts["entries"] = len(entries[(category, split)])
        gallery = [image_id for image_id, _ in gallery_ids(project, category, split, source)]
        if gallery:
            write_json(out / "image_splits" / f"split.{name}.json", gallery)
            counts["gallery"] = len(gallery)
        written[name] = counts
        progress(number, len(groups), name)
    return {
        "format": "fashioniq",
        "out": str(out),
        "files": written,
        "pairs_without_captions": without_captions,
    }


def _image_groups(project: Project, source: str | None) -> set[tuple[str, str]]:
    sql = "SELECT DISTINCT category, split FROM images WHERE category != '' AND split != ''"
    params: list[str] = []
    if source:
        sql += " AND source = ?"
        params.append(source)
    return {(row[0], row[1]) for row in project.db.execute(sql, params)}
