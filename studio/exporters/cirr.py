"""CIRR export: ``captions/cap.rc2.{split}.json`` and ``image_splits/split.rc2.{split}.json``.

CIRR has one caption per entry, so a pair with two captions becomes two entries. Pairs
imported from CIRR keep their ``pairid``, ``target_soft`` and ``img_set``; other pairs get
fresh pair ids above the largest one, ``target_soft`` of their target and an image set
of just the reference and the target.
"""

from __future__ import annotations

import posixpath
from collections import defaultdict
from pathlib import Path
from typing import Any

from studio.exporters.common import gallery_ids, iter_pairs, prepare_folder, write_text_atomic
from studio.exporters.fashioniq import source_formats
from studio.importers.json_format import dump
from studio.jobs import CancelToken, ProgressCallback, no_progress
from studio.store import Project
from studio.store.repos import datasets as datasets_repo

# CIRR's published style: one line, ", " and ": " (json.dumps defaults), no final newline.
STYLE = {"indent": None, "separators": [", ", ": "], "ensure_ascii": True, "newline": False}


def export_cirr(
    project: Project,
    out: Path,
    *,
    source: str | None = None,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
) -> dict[str, Any]:
    cancel = cancel or CancelToken()
    out = prepare_folder(out)
    pairs = [pair for pair in iter_pairs(project, source) if pair.captions]
    used = {number for pair in pairs if (number := _original_pairid(pair)) is not None}
    next_id = max(used, default=-1) + 1
    entries: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for pair in pairs:
        for number, caption in enumerate(pair.captions):
            pairid = _original_pairid(pair) if number == 0 else None
            if pairid is None:
                pairid, next_id = next_id, next_id + 1
            entries[pair.split].append(_entry(pair, pairid, caption["text"]))
    splits = sorted(set(entries) | _image_splits(project, source))
    formats = source_formats(project, "cirr")
    written: dict[str, dict[str, int]] = {}
    for number, split in enumerate(splits, start=1):
        cancel.raise_if_cancelled()
        if entries.get(split):
            name = f"captions/cap.rc2.{split}.json"
            write_text_atomic(out / name, dump(entries[split], formats.get(name) or STYLE))
        name = f"image_splits/split.rc2.{split}.json"
        base = (formats.get(name) or {}).get("base", ".")
        gallery = {
            image_id: "./" + _below(path, base)
            for image_id, path in gallery_ids(project, None, split, source)
        }
        if gallery:
            write_text_atomic(out / name, dump(gallery, formats.get(name) or STYLE))
        written[split] = {"entries": len(entries.get(split, [])), "gallery": len(gallery)}
        progress(number, len(splits), split)
    return {"format": "cirr", "out": str(out), "files": written}


def _below(path: str, base: str) -> str:
    """``path`` (relative to the image root) relative to ``base``, the folder the split
    file's paths started in when it was imported."""
    relative = posixpath.relpath(posixpath.normpath(path), posixpath.normpath(base or "."))
    return path if relative.startswith("..") else relative


def _original_pairid(pair) -> int | None:
    if pair.source != "cirr":
        return None
    _, _, number = pair.external_key.rpartition(":")
    return int(number) if number.lstrip("-").isdigit() else None


def _entry(pair, pairid: int, caption: str) -> dict[str, Any]:
    entry: dict[str, Any] = {"pairid": pairid, "reference": pair.reference_id}
    if pair.target_id is not None:
        entry["target_hard"] = pair.target_id
        entry["target_soft"] = pair.extra.get("target_soft", {pair.target_id: 1.0})
    entry["caption"] = caption
    members = [pair.reference_id] + ([pair.target_id] if pair.target_id else [])
    entry["img_set"] = pair.extra.get("img_set", {"id": pairid, "members": members})
    return entry


def _image_splits(project: Project, source: str | None) -> set[str]:
    return datasets_repo.image_splits(project, source)
