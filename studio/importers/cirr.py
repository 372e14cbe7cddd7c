"""CIRR import: ``captions/cap.rc2.{split}.json`` and ``image_splits/split.rc2.{split}.json``.

A caption file is a list of ``{pairid, reference, target_hard, target_soft, caption,
img_set: {id, members}}`` (the test split has no targets); a split file maps image names
to paths relative to the image folder. CIRR has no categories, so pairs and images get
an empty category. ``target_soft`` and ``img_set`` are kept verbatim for export.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path, PurePosixPath
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

DATASET = "CIRR"
SOURCE = "cirr"
ENTRY_KEYS = ("pairid", "reference", "target_hard", "target_soft", "caption", "img_set")
CAPTION_FILE = re.compile(r"^cap\.rc2\.([^.]+)\.json$")
SPLIT_FILE = re.compile(r"^split\.rc2\.([^.]+)\.json$")


def import_cirr(
    project: Project,
    root: Path,
    images_dir: Path | None = None,
    *,
    skip_invalid: bool = False,
    actor: str = "",
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
) -> ImportReport:
    """Validate every CIRR file under ``root``, then import all of it in one transaction."""
    cancel = cancel or CancelToken()
    plan = read_cirr(
        project, root, images_dir, skip_invalid=skip_invalid, progress=progress, cancel=cancel
    )
    return apply_plan(project, plan, actor or SOURCE, progress=progress, cancel=cancel)


def is_test_split(split: str) -> bool:
    """CIRR's hidden-target splits are named ``test1`` (and sometimes ``test``)."""
    return split.startswith("test")


def _files(folder: Path, pattern: re.Pattern[str]) -> dict[str, Path]:
    if not folder.is_dir():
        return {}
    return {
        m.group(1): p
        for p in sorted(folder.iterdir())
        if (m := pattern.match(p.name)) and p.is_file()
    }


def read_cirr(
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
    if images_dir is None:
        images_dir = root / "img_raw" if (root / "img_raw").is_dir() else root
    caption_files = _files(root / "captions", CAPTION_FILE)
    split_files = _files(root / "image_splits", SPLIT_FILE)
    if not caption_files and not split_files:
        raise ValidationError(
            f"No CIRR files under {root}: expected captions/cap.rc2.SPLIT.json and "
            "image_splits/split.rc2.SPLIT.json."
        )
    problems = Problems(root)
    known = images_repo.missing_flags(project)
    galleries: dict[str, dict[str, str]] = {}
    for split, path in split_files.items():
        galleries[split] = _read_split(path, problems)
    pairs: list[PairEntry] = []
    for split, path in caption_files.items():
        pairs += _read_captions(path, split, galleries.get(split), known, problems)
    found = problems.settle(DATASET, skip_invalid)
    formats = {
        problems.name(path): file_format(path)
        for path in [*caption_files.values(), *split_files.values()]
    }
    # Where the split files' paths start, relative to the image root, so an export writes
    # them as the file did ("./dev/x.png") whatever the project's image root is.
    paths = ImagePaths(project)
    base = paths.relative(images_dir)
    for path in split_files.values():
        options = formats.get(problems.name(path))
        if options is not None:
            options["base"] = base
    files: dict[str, Path] = {}
    splits: dict[str, str] = {}
    missing_known = []
    for split, gallery in galleries.items():
        for name, relative in gallery.items():
            if name in known:
                if known[name]:
                    missing_known.append((name, ("", split)))
            elif name not in files:
                files[name] = images_dir / relative
                splits[name] = split
    readable, skipped_files = screen_files(files, images_dir, problems.name)
    facts = facts_for(readable, progress, cancel, "reading images")
    images = [
        image_record(paths, name, file, facts.get(name), SOURCE, split=splits[name])
        for name, file in files.items()
    ]
    return ImportPlan(
        dataset=DATASET,
        source=SOURCE,
        images=images,
        pairs=pairs,
        problems=found,
        author=SOURCE,
        gallery=Counter({("", s): len(g) for s, g in galleries.items()}),
        missing_known=missing_known,
        formats=formats,
        skipped_files=skipped_files,
        image_dir=images_dir,
    )


def _read_split(path: Path, problems: Problems) -> dict[str, str]:
    data = load_json(path, problems)
    if data is None:
        return {}
    if not isinstance(data, dict):
        problems.add(
            path,
            f"expected a JSON object mapping image names to paths, found {type(data).__name__}",
        )
        return {}
    gallery = {}
    for index, (name, relative) in enumerate(data.items()):
        if not is_id(name) or "/" in name or "\\" in name or name in (".", ".."):
            problems.add(path, f"bad image name {name!r}", index)
        elif not isinstance(relative, str) or not _is_relative(relative):
            problems.add(path, f"path must be relative, found {relative!r}", index, name)
        else:
            gallery[name] = relative
    return gallery


def _is_relative(relative: str) -> bool:
    pure = PurePosixPath(relative.replace("\\", "/"))
    return bool(relative.strip()) and not pure.is_absolute() and ".." not in pure.parts


def _read_captions(
    path: Path,
    split: str,
    gallery: dict[str, str] | None,
    known: dict[str, int],
    problems: Problems,
) -> list[PairEntry]:
    entries = expect_list(load_json(path, problems), path, problems, "caption entries")
    if entries is None:
        return []
    pairs = []
    seen: dict[Any, int] = {}
    for index, entry in enumerate(entries):
        errors = _entry_errors(entry, split)
        label = (
            f"pairid {entry['pairid']}" if isinstance(entry, dict) and "pairid" in entry else None
        )
        if not errors:
            ids = [("reference", entry["reference"])]
            if "target_hard" in entry:
                ids.append(("target_hard", entry["target_hard"]))
            ids += [("img_set member", m) for m in entry["img_set"]["members"]]
            ids += [("target_soft", m) for m in entry.get("target_soft", {})]
            for role, name in ids:
                if gallery is not None and name not in gallery and name not in known:
                    errors.append(
                        f"unknown {role} {name!r}: not in image_splits/split.rc2.{split}.json"
                    )
                    break
        if not errors:
            if entry["pairid"] in seen:
                errors.append(f"duplicate pairid, first at entry [{seen[entry['pairid']]}]")
            else:
                seen[entry["pairid"]] = index
        for message in errors:
            problems.add(path, message, index, label)
        if errors:
            continue
        extra = {k: entry[k] for k in ("target_soft", "img_set") if k in entry}
        pairs.append(
            PairEntry(
                external_key=f"{split}:{entry['pairid']}",
                reference_id=entry["reference"],
                target_id=entry.get("target_hard"),
                category="",
                split=split,
                captions=(entry["caption"],),
                extra=json.dumps(extra, ensure_ascii=False),
            )
        )
    return pairs


def _entry_errors(entry: Any, split: str) -> list[str]:
    if not isinstance(entry, dict):
        return [
            f"expected an object with keys {', '.join(ENTRY_KEYS)}, found {type(entry).__name__}"
        ]
    required = ["pairid", "reference", "caption", "img_set"]
    if not is_test_split(split):
        required.insert(2, "target_hard")
    errors = [f"missing key {key!r}" for key in required if key not in entry]
    extra = sorted(set(entry) - set(ENTRY_KEYS))
    if extra:
        errors.append(f"unexpected key{'s' if len(extra) > 1 else ''} {', '.join(extra)}")
    if "pairid" in entry and (
        not isinstance(entry["pairid"], int) or isinstance(entry["pairid"], bool)
    ):
        errors.append(f"pairid must be an integer, found {entry['pairid']!r}")
    for key in ("reference", "target_hard"):
        if key in entry and not is_id(entry[key]):
            errors.append(f"{key} must be an image name, found {entry[key]!r}")
    if "caption" in entry and not isinstance(entry["caption"], str):
        errors.append(f"caption must be a string, found {entry['caption']!r:.200}")
    elif len(entry.get("caption", "")) > MAX_CAPTION_CHARS:
        errors.append(caption_too_long(entry["caption"]))
    img_set = entry.get("img_set", {})
    if (
        not isinstance(img_set, dict)
        or not isinstance(img_set.get("members"), list)
        or not all(is_id(m) for m in img_set["members"])
    ):
        errors.append(
            f"img_set must be an object with a list of image names under 'members', "
            f"found {img_set!r}"
        )
    soft = entry.get("target_soft", {})
    if not isinstance(soft, dict) or not all(
        is_id(k) and isinstance(v, int | float) for k, v in soft.items()
    ):
        errors.append(f"target_soft must map image names to numbers, found {soft!r}")
    return errors
