"""Fashion IQ import: ``captions/cap.{cat}.{split}.json`` and ``image_splits/split.{cat}.{split}.json``.

A caption file is a list of ``{"target", "candidate", "captions"}`` (test files have no
target); a split file lists the image ids of that split's retrieval gallery. Images are
``<id>.jpg`` in an image folder and may be missing: Fashion IQ is distributed as URLs,
and many have gone dead, so a missing file is counted and listed, not an error.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

from studio.errors import ValidationError
from studio.importers.image_files import facts_for, screen_files
from studio.importers.json_format import file_format
from studio.importers.plan import (
    ImagePaths,
    ImportPlan,
    ImportReport,
    PairEntry,
    apply_plan,
    image_record,
)
from studio.importers.validation import (
    MAX_CAPTION_CHARS,
    Problems,
    caption_too_long,
    expect_list,
    is_id,
    load_json,
)
from studio.jobs import CancelToken, ProgressCallback, no_progress
from studio.store import Project
from studio.store.repos import images as images_repo

DATASET = "Fashion IQ"
SOURCE = "fashioniq"
ENTRY_KEYS = ("target", "candidate", "captions")
CAPTION_FILE = re.compile(r"^cap\.([^.]+)\.([^.]+)\.json$")
SPLIT_FILE = re.compile(r"^split\.([^.]+)\.([^.]+)\.json$")
# An id names a file ``<id>.jpg``: no path separators, and not ``.`` or ``..``.
SAFE_ID = re.compile(r"^(?!\.\.?$)[^/\\]+$")

Group = tuple[str, str]


def import_fashioniq(
    project: Project,
    root: Path,
    images_dir: Path | None = None,
    *,
    skip_invalid: bool = False,
    actor: str = "",
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
) -> ImportReport:
    """Validate every file under ``root``, then import all of it in one transaction."""
    cancel = cancel or CancelToken()
    plan = read_fashioniq(
        project, root, images_dir, skip_invalid=skip_invalid, progress=progress, cancel=cancel
    )
    return apply_plan(project, plan, actor or SOURCE, progress=progress, cancel=cancel)


def dataset_files(folder: Path, pattern: re.Pattern[str]) -> dict[Group, Path]:
    if not folder.is_dir():
        return {}
    found = {}
    for path in sorted(folder.iterdir()):
        match = pattern.match(path.name)
        if match and path.is_file():
            found[(match.group(1), match.group(2))] = path
    return found


def read_fashioniq(
    project: Project,
    root: Path,
    images_dir: Path | None = None,
    *,
    skip_invalid: bool = False,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
) -> ImportPlan:
    """Read and validate; raises ``ImportValidationError`` unless ``skip_invalid``."""
    cancel = cancel or CancelToken()
    root = Path(root).expanduser()
    images_dir = _image_folder(project, root, images_dir)
    caption_files = dataset_files(root / "captions", CAPTION_FILE)
    split_files = dataset_files(root / "image_splits", SPLIT_FILE)
    if not caption_files and not split_files:
        raise ValidationError(
            f"No Fashion IQ files under {root}: expected captions/cap.CATEGORY.SPLIT.json "
            "and image_splits/split.CATEGORY.SPLIT.json."
        )
    problems = Problems(root)
    known = images_repo.missing_flags(project)
    galleries, listed = _read_galleries(split_files, problems)
    pairs: list[PairEntry] = []
    for group, path in caption_files.items():
        pairs += _read_captions(path, group, listed.get(group), known, problems)
    found = problems.settle(DATASET, skip_invalid)
    formats = {
        problems.name(path): file_format(path)
        for path in [*caption_files.values(), *split_files.values()]
    }
    wanted = _images_wanted(galleries, pairs, known)
    missing_known = _known_missing(project, galleries, pairs, known)
    files = {image_id: images_dir / f"{image_id}.jpg" for image_id in wanted}
    readable, skipped_files = screen_files(files, images_dir, problems.name)
    facts = facts_for(readable, progress, cancel, "reading images")
    paths = ImagePaths(project)
    images = [
        image_record(
            paths,
            image_id,
            files[image_id],
            facts.get(image_id),
            SOURCE,
            category=category,
            split=split,
        )
        for image_id, (category, split) in wanted.items()
    ]
    return ImportPlan(
        dataset=DATASET,
        source=SOURCE,
        images=images,
        pairs=pairs,
        problems=found,
        author=SOURCE,
        gallery=Counter({group: len(ids) for group, ids in galleries.items()}),
        missing_known=missing_known,
        memberships=galleries,
        formats=formats,
        skipped_files=skipped_files,
        image_dir=images_dir,
    )


def _image_folder(project: Project, root: Path, images_dir: Path | None) -> Path:
    """The given folder, else ``ROOT/images`` if there is one, else the project's image root."""
    if images_dir is not None:
        return Path(images_dir).expanduser()
    return root / "images" if (root / "images").is_dir() else project.image_root


def _known_missing(
    project: Project,
    galleries: dict[Group, list[str]],
    pairs: list[PairEntry],
    known: dict[str, int],
) -> list[tuple[str, Group]]:
    """Images this import refers to that the project already has, without their file."""
    referenced = {i for ids in galleries.values() for i in ids}
    referenced |= {i for p in pairs for i in (p.reference_id, p.target_id) if i}
    gone = [i for i in referenced if known.get(i)]
    return sorted(images_repo.first_galleries(project, gone))


def _read_galleries(
    split_files: dict[Group, Path], problems: Problems
) -> tuple[dict[Group, list[str]], dict[Group, set[str]]]:
    """Gallery ids per group in file order, and the set of ids each file lists.

    An image may be listed by several split files: Fashion IQ puts some images in both
    the shirt and the toptee gallery, even across splits. Each gallery keeps them all.
    """
    galleries: dict[Group, list[str]] = {}
    listed: dict[Group, set[str]] = {}
    for group, path in split_files.items():
        ids = expect_list(load_json(path, problems), path, problems, "image ids")
        if ids is None:
            continue
        gallery: list[str] = []
        seen: dict[str, int] = {}
        for index, image_id in enumerate(ids):
            if not is_id(image_id) or not SAFE_ID.match(image_id):
                problems.add(
                    path,
                    f"expected an image id (a non-empty string without "
                    f"slashes), found {image_id!r}",
                    index,
                )
            elif image_id in seen:
                problems.add(
                    path, f"duplicate image id, first at entry [{seen[image_id]}]", index, image_id
                )
            else:
                seen[image_id] = index
                gallery.append(image_id)
        galleries[group] = gallery
        listed[group] = set(seen)
    return galleries, listed


def _read_captions(
    path: Path, group: Group, gallery: set[str] | None, known: dict[str, int], problems: Problems
) -> list[PairEntry]:
    """Every valid entry in file order. A verbatim repeat is kept: in a test file (no
    target) it is a query of its own, and dropping it would make the export lose it."""
    entries = expect_list(load_json(path, problems), path, problems, "caption entries")
    if entries is None:
        return []
    category, split = group
    pairs: list[PairEntry] = []
    repeats: Counter[str] = Counter()
    for index, entry in enumerate(entries):
        errors = _entry_errors(entry, split)
        if not errors:
            candidate, target = entry["candidate"], entry.get("target")
            for role, image_id in (("candidate", candidate), ("target", target)):
                if (
                    image_id is not None
                    and gallery is not None
                    and image_id not in gallery
                    and image_id not in known
                ):
                    errors.append(
                        f"unknown {role} id {image_id!r}: not in "
                        f"image_splits/split.{category}.{split}.json"
                    )
        for message in errors:
            problems.add(path, message, index, _label(entry))
        if errors:
            continue
        if target:
            key = f"{category}.{split}:{candidate}>{target}"
            repeats[key] += 1
            if repeats[key] > 1:
                key += f"#{repeats[key]}"
        else:
            repeats[candidate] += 1
            key = f"{category}.{split}:{candidate}#{repeats[candidate]}"
        pairs.append(PairEntry(key, candidate, target, category, split, tuple(entry["captions"])))
    return pairs


def _entry_errors(entry: Any, split: str) -> list[str]:
    if not isinstance(entry, dict):
        return [
            f"expected an object with keys {', '.join(ENTRY_KEYS)}, found {type(entry).__name__}"
        ]
    required = ENTRY_KEYS if split != "test" else ("candidate", "captions")
    errors = [f"missing key {key!r}" for key in required if key not in entry]
    extra = sorted(set(entry) - set(ENTRY_KEYS))
    if extra:
        errors.append(f"unexpected key{'s' if len(extra) > 1 else ''} {', '.join(extra)}")
    for key in ("candidate", "target"):
        if key in entry and not (is_id(entry[key]) and SAFE_ID.match(entry[key])):
            errors.append(
                f"{key} must be an image id (a non-empty string without slashes), "
                f"found {entry[key]!r}"
            )
    captions = entry.get("captions", [])
    if (
        not isinstance(captions, list)
        or not captions
        or not all(isinstance(text, str) for text in captions)
    ):
        errors.append(f"captions must be a non-empty list of strings, found {captions!r:.200}")
    else:
        errors += [caption_too_long(text) for text in captions if len(text) > MAX_CAPTION_CHARS]
    return errors


def _label(entry: Any) -> str | None:
    if not isinstance(entry, dict):
        return None
    parts = [
        f"{key} {entry[key]}" for key in ("candidate", "target") if isinstance(entry.get(key), str)
    ]
    return ", ".join(parts) or None


def _images_wanted(
    galleries: dict[Group, list[str]], pairs: list[PairEntry], known: dict[str, int]
) -> dict[str, Group]:
    """New images to register, in gallery order (the order export writes back)."""
    wanted: dict[str, Group] = {}
    for group, ids in galleries.items():
        for image_id in ids:
            if image_id not in known:
                wanted.setdefault(image_id, group)
    for pair in pairs:
        for image_id in (pair.reference_id, pair.target_id or ""):
            if image_id and image_id not in known:
                wanted.setdefault(image_id, (pair.category, pair.split))
    return wanted
