"""CIRCO import: ``annotations/{val,test}.json`` and the COCO 2017 unlabeled images.

An entry is ``{reference_img_id, target_img_id, relative_caption, shared_concept,
gt_img_ids, id, semantic_aspects}``; the test file has no ``target_img_id``,
``gt_img_ids`` or ``semantic_aspects`` (the authors' server keeps them). Image ids are COCO
ids; the file of image 271520 is ``unlabeled2017/000000271520.jpg``. Each entry becomes a
pair (``external_key`` ``split:id``) whose ``extra`` is the entry exactly as the file has
it, so an export gives the file back; its ground truths go to ``pair_ground_truths``.

The gallery is every ``%012d.jpg`` found in ``unlabeled2017/`` (about 120,000 pictures):
found with one directory scan, inserted in batches, never one query per image. An image
the annotations name but the folder lacks becomes a record marked missing, so the pair
is kept and the evaluation can say what it could not rank.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from pathlib import Path
from typing import Any

from studio.errors import ValidationError
from studio.importers.image_files import facts_for, screen_files
from studio.importers.json_format import file_format
from studio.importers.plan import (
    ImportPlan,
    ImportReport,
    PairEntry,
    apply_plan,
    relative_image_path,
)
from studio.importers.validation import (
    MAX_CAPTION_CHARS,
    Problems,
    caption_too_long,
    expect_list,
    load_json,
)
from studio.jobs import CancelToken, ProgressCallback, no_progress
from studio.store import Project
from studio.store.records import ImageRecord
from studio.store.repos.images import missing_flags

DATASET = "CIRCO"
SOURCE = "circo"
GALLERY = "unlabeled2017"  # the images' split: one gallery shared by every CIRCO split
IMAGE_NAME = re.compile(r"^(\d{12})\.jpg$")
ANNOTATION = re.compile(r"^([A-Za-z0-9_-]+)\.json$")
ROOT_SPLITS = ("val", "test", "train")  # files read from ROOT itself (no annotations/)
SEMANTIC_ASPECTS = (
    "cardinality",
    "addition",
    "negation",
    "direct_addressing",
    "compare_change",
    "comparative_statement",
    "statement_with_conjunction",
    "spatial_relations_background",
    "viewpoint",
)


def image_file_name(coco_id: int | str) -> str:
    return f"{int(coco_id):012d}.jpg"


def is_hidden_split(split: str) -> bool:
    """CIRCO's test ground truth is on the authors' server, never in a file."""
    return split.startswith("test")


def import_circo(
    project: Project,
    root: Path,
    images_dir: Path | None = None,
    *,
    skip_invalid: bool = False,
    actor: str = "",
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
) -> ImportReport:
    """Validate every CIRCO file under ``root``, then import it all in one transaction."""
    cancel = cancel or CancelToken()
    plan = read_circo(
        project, root, images_dir, skip_invalid=skip_invalid, progress=progress, cancel=cancel
    )
    return apply_plan(project, plan, actor or SOURCE, progress=progress, cancel=cancel)


def annotation_files(root: Path) -> dict[str, Path]:
    """``annotations/SPLIT.json`` (or ``val.json``/``test.json`` in ROOT itself), by split."""
    folder = root / "annotations"
    if folder.is_dir():
        return {
            m.group(1): path
            for path in sorted(folder.iterdir())
            if (m := ANNOTATION.match(path.name)) and path.is_file()
        }
    return {split: root / f"{split}.json" for split in ROOT_SPLITS if (root / f"{split}.json").is_file()}


def image_folder(images_dir: Path) -> Path:
    """The folder holding the ``%012d.jpg`` files: ``DIR/unlabeled2017`` or DIR itself."""
    nested = images_dir / GALLERY
    return nested if nested.is_dir() else images_dir


def scan_images(folder: Path) -> dict[str, Path]:
    """COCO id (as text, no zero padding) → file, for every ``%012d.jpg`` in ``folder``.

    One ``os.scandir`` pass: about 120,000 names in well under a second.
    """
    if not folder.is_dir():
        return {}
    found: dict[str, str] = {}
    with os.scandir(folder) as entries:
        for entry in entries:
            match = IMAGE_NAME.match(entry.name)
            if match:
                found[str(int(match.group(1)))] = entry.name
    return {image_id: folder / found[image_id] for image_id in sorted(found, key=int)}


def links_in(files: dict[str, Path]) -> dict[str, Path]:
    """The files that are symbolic links: only those can lead outside the folder, so only
    those need ``screen_files``' resolve (a stat per file instead of a path walk)."""
    return {image_id: path for image_id, path in files.items() if path.is_symlink()}


def read_circo(
    project: Project,
    root: Path,
    images_dir: Path | None = None,
    *,
    skip_invalid: bool = False,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
) -> ImportPlan:
    cancel = cancel or CancelToken()
    root = Path(root).expanduser()
    files = annotation_files(root)
    if not files:
        raise ValidationError(
            f"No CIRCO files under {root}: expected annotations/val.json and "
            "annotations/test.json (or val.json / test.json in the folder)."
        )
    problems = Problems(root)
    pairs: list[PairEntry] = []
    for split, path in files.items():
        pairs += _read_split(path, split, problems)
    found = problems.settle(DATASET, skip_invalid)
    formats = {f"annotations/{split}.json": file_format(path) for split, path in files.items()}
    if images_dir is None:
        images_dir = root / "COCO2017_unlabeled" if (root / "COCO2017_unlabeled").is_dir() else root
    folder = image_folder(Path(images_dir).expanduser())
    progress(0, 1, "listing images")
    on_disk = scan_images(folder)
    known = missing_flags(project)
    named = {i for p in pairs for i in (p.reference_id, p.target_id, *p.ground_truths) if i}
    new_files = {i: path for i, path in on_disk.items() if i not in known}
    # Names are digits only (always UTF-8); a link must stay inside the folder.
    _, skipped_files = screen_files(links_in(new_files), folder, problems.name)
    skipped = {problem.file for problem in skipped_files}
    readable = {i: p for i, p in new_files.items() if problems.name(p) not in skipped}
    facts = facts_for(readable, progress, cancel, "reading images")
    base = relative_image_path(project, folder / "x").rpartition("/")[0]
    prefix = f"{base}/" if base else ""
    images = [
        ImageRecord(
            id=image_id,
            path=prefix + image_file_name(image_id),
            source=SOURCE,
            split=GALLERY,
            missing=image_id not in facts,
            content_hash=facts[image_id].content_hash if image_id in facts else None,
            width=facts[image_id].width if image_id in facts else None,
            height=facts[image_id].height if image_id in facts else None,
            bytes=facts[image_id].bytes if image_id in facts else None,
        )
        for image_id in sorted(set(readable) | (named - set(known)), key=int)
    ]
    missing_known = [(i, ("", GALLERY)) for i in sorted(named, key=int) if known.get(i)]
    return ImportPlan(
        dataset=DATASET,
        source=SOURCE,
        images=images,
        pairs=pairs,
        problems=found,
        author=SOURCE,
        gallery=Counter({("", GALLERY): len(on_disk)}),
        missing_known=missing_known,
        formats=formats,
        skipped_files=skipped_files,
        image_dir=folder if on_disk else None,
    )


def _read_split(path: Path, split: str, problems: Problems) -> list[PairEntry]:
    entries = expect_list(load_json(path, problems), path, problems, "CIRCO queries")
    if entries is None:
        return []
    pairs = []
    seen: dict[int, int] = {}
    for index, entry in enumerate(entries):
        errors = entry_errors(entry, split)
        label = f"id {entry['id']}" if isinstance(entry, dict) and "id" in entry else None
        if not errors:
            if entry["id"] in seen:
                errors.append(f"duplicate id, first at entry [{seen[entry['id']]}]")
            else:
                seen[entry["id"]] = index
        for message in errors:
            problems.add(path, message, index, label)
        if errors:
            continue
        target = entry.get("target_img_id")
        pairs.append(
            PairEntry(
                external_key=f"{split}:{entry['id']}",
                reference_id=str(entry["reference_img_id"]),
                target_id=None if target is None else str(target),
                category="",
                split=split,
                captions=(entry["relative_caption"],),
                extra=json.dumps(entry, ensure_ascii=False),
                ground_truths=tuple(str(i) for i in entry.get("gt_img_ids", [])),
            )
        )
    return pairs


def _is_coco_id(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def entry_errors(entry: Any, split: str) -> list[str]:
    """What is wrong with one entry (empty when it is a valid CIRCO query)."""
    if not isinstance(entry, dict):
        return [f"expected an object with id, reference_img_id, relative_caption, "
                f"shared_concept, found {type(entry).__name__}"]
    required = ["id", "reference_img_id", "relative_caption", "shared_concept"]
    if not is_hidden_split(split):
        required += ["target_img_id", "gt_img_ids"]
    errors = [f"missing key {key!r}" for key in required if key not in entry]
    for key in ("id", "reference_img_id", "target_img_id"):
        if key in entry and not _is_coco_id(entry[key]):
            errors.append(f"{key} must be a non-negative integer, found {entry[key]!r:.100}")
    for key in ("relative_caption", "shared_concept"):
        if key in entry and not isinstance(entry[key], str):
            errors.append(f"{key} must be a string, found {entry[key]!r:.100}")
    caption = entry.get("relative_caption")
    if isinstance(caption, str):
        if not caption.strip():
            errors.append("relative_caption is empty")
        elif len(caption) > MAX_CAPTION_CHARS:
            errors.append(caption_too_long(caption))
    truths = entry.get("gt_img_ids", [])
    if "gt_img_ids" in entry:
        if not isinstance(truths, list) or not truths or not all(map(_is_coco_id, truths)):
            errors.append(f"gt_img_ids must be a non-empty list of image ids, found {truths!r:.100}")
        elif len(set(truths)) != len(truths):
            errors.append(f"gt_img_ids lists an image twice: {truths}")
    aspects = entry.get("semantic_aspects", [])
    if not isinstance(aspects, list) or not all(isinstance(a, str) for a in aspects):
        errors.append(f"semantic_aspects must be a list of names, found {aspects!r:.100}")
    return errors
