"""Fashion IQ export: the same files the importer reads, entry for entry.

Entries keep the order in which pairs were created (file order for imported ones), each
gallery its split file's order, and every file is written the way its source file was
(indent, separators, ASCII escaping, key order and final newline, recorded on import;
new files in the published style: four-space indent, ``{target, candidate, captions}``,
no final newline), so exporting an imported set writes files identical to the originals.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

from studio.exporters.common import iter_pairs, prepare_folder, write_text_atomic
from studio.importers.json_format import dump, ordered
from studio.jobs import CancelToken, ProgressCallback, no_progress
from studio.store import Project
from studio.store.repos import datasets as datasets_repo

ENTRY_KEYS = ("target", "candidate", "captions")


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
    formats = source_formats(project, "fashioniq")
    written: dict[str, dict[str, int]] = {}
    for number, (category, split) in enumerate(groups, start=1):
        cancel.raise_if_cancelled()
        name = f"{category}.{split}"
        counts = {"entries": 0, "gallery": 0}
        if (category, split) in entries:
            file = f"captions/cap.{name}.json"
            options = formats.get(file)
            keys = (options or {}).get("keys") or list(ENTRY_KEYS)
            rows = [ordered(entry, keys) for entry in entries[(category, split)]]
            write_text_atomic(out / file, dump(rows, options))
            counts["entries"] = len(rows)
        gallery = gallery_members(project, category, split, source)
        if gallery:
            file = f"image_splits/split.{name}.json"
            write_text_atomic(out / file, dump(gallery, formats.get(file)))
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
    return datasets_repo.gallery_groups(project, source)


def gallery_members(
    project: Project, category: str, split: str, source: str | None = None
) -> list[str]:
    """The gallery's image ids in split-file order (only images of ``source`` if given)."""
    return datasets_repo.gallery_members(project, category, split, source)


def source_formats(project: Project, source: str) -> dict[str, dict[str, Any] | None]:
    """How each file of ``source`` was written when it was imported, by its path."""
    return datasets_repo.source_formats(project, source)
