"""A project's picture files: how many are missing, why that matters, and pointing the
project at the folder that holds them.

Fashion IQ and several other datasets ship annotations without pictures, so a project
imported from them can hold thousands of images with no file. Each step that needs
pictures (the index, a search, the caption view) explains that with the same words, and
*Set image folder…* (or ``set_image_folder``) points the project at the right folder and
checks every image again.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

from studio.errors import StudioError
from studio.jobs import CancelToken, ProgressCallback, no_progress
from studio.store import Project
from studio.store.picture_files import (
    mark_pictures,
    pairs_without_pictures,
    picture_counts,
    stored_picture_paths,
)

FASHION_IQ_PICTURES = (
    "Fashion IQ ships no pictures: its images are product photos listed with their URLs in "
    "image_url/asin2url.{dress,shirt,toptee}.txt of github.com/hongwang600/fashion-iq-metadata "
    "(the list the Fashion IQ README links); download them into one folder, named ASIN.jpg."
)


@dataclass(frozen=True)
class PictureCount:
    images: int
    missing: int
    root: Path

    @property
    def present(self) -> int:
        return self.images - self.missing

    def note(self) -> str:
        """One line: how many pictures are missing and where they were looked for."""
        return (
            f"{self.missing:,} of {self.images:,} images have no picture file under the "
            f"image folder {self.root}"
        )


CHECK_FILE = "picture_check.json"  # in the project's cache folder
CHECK_BATCH = 2000


@dataclass(frozen=True)
class PictureCheck:
    """What a look at the disk found: how many images have no picture file, and where."""

    images: int
    missing: int
    root: Path
    from_cache: bool = False  # nothing on disk changed since the last check

    def message(self) -> str:
        """ "2,300 of 2,302 pictures are missing (looked in …)", or "" when none is."""
        if not self.missing:
            return ""
        return (f"{self.missing:,} of {self.images:,} pictures are missing "
                f"(looked in {self.root})")


def check_picture_files(
    project: Project,
    *,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
    batch: int = CHECK_BATCH,
) -> PictureCheck:
    """Look for every image's picture file under the image root, as a job.

    The stored ``missing`` flags say what the import found; a project file copied alone,
    or pictures moved since, make them wrong, so the studio checks the disk when it opens
    a project. The result is kept in the cache folder under a key made of the stored paths
    and the modification times of the folders holding them (a folder's time changes when a
    file in it comes or goes), so opening the project again costs one ``stat`` per folder,
    not one per image. Read-only: nothing in the project is written.
    """
    root = project.image_root
    stored = stored_picture_paths(project)
    paths = [os.path.normpath(os.path.join(root, relative)) for _id, relative, _m in stored]
    key = _check_key(root, paths)
    cached = _read_check(project, key)
    if cached is not None:
        return PictureCheck(len(paths), cached, root, from_cache=True)
    missing = 0
    for start in range(0, len(paths), max(1, batch)):
        if cancel is not None:
            cancel.raise_if_cancelled()
        chunk = paths[start : start + batch]
        missing += sum(not os.path.isfile(path) for path in chunk)
        done = start + len(chunk)
        progress(done, len(paths), f"Looking for picture files: {done:,} of {len(paths):,}")
    _write_check(project, key, missing)
    return PictureCheck(len(paths), missing, root)


def _check_key(root: Path, paths: list[str]) -> str:
    digest = hashlib.sha256(str(root).encode())
    digest.update("\0".join(paths).encode("utf-8", "surrogateescape"))
    for folder in sorted({os.path.dirname(path) for path in paths}):
        try:
            stamp = os.stat(folder).st_mtime_ns
        except OSError:
            stamp = -1  # absent: its appearing changes the key
        digest.update(f"\0{folder}\0{stamp}".encode("utf-8", "surrogateescape"))
    return digest.hexdigest()


def _read_check(project: Project, key: str) -> int | None:
    try:
        data = json.loads((project.cache_dir / CHECK_FILE).read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("key") != key:
        return None
    missing = data.get("missing")
    return missing if isinstance(missing, int) else None


def _write_check(project: Project, key: str, missing: int) -> None:
    """Keep the result for the next open (a read-only folder: checked again next time)."""
    path = project.cache_dir / CHECK_FILE
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_suffix(".tmp")
        temporary.write_text(json.dumps({"key": key, "missing": missing}))
        os.replace(temporary, path)
    except OSError:
        pass


def picture_count(project: Project) -> PictureCount:
    images, missing = picture_counts(project)
    return PictureCount(images, missing, project.image_root)


def no_pictures_message(project: Project) -> str | None:
    """Why nothing can be embedded or searched (None while some picture files exist)."""
    count = picture_count(project)
    if count.images == 0 or count.present > 0:
        return None
    return (
        f"None of this project's {count.images:,} images has its picture file: there are no "
        f"picture files under the image folder {count.root}. {FASHION_IQ_PICTURES} Then "
        "point the project at that folder with File → Set image folder…."
    )


def hidden_pairs_message(project: Project) -> str | None:
    """Why no pair is offered for captions although some lack them (None if none hides)."""
    hidden = pairs_without_pictures(project)
    if not hidden:
        return None
    pairs = "1 pair is" if hidden == 1 else f"{hidden:,} pairs are"
    return (
        f"No pair to caption here: {pairs} not offered because a picture file is missing "
        f"({picture_count(project).note()}). File → Set image folder… points the project at "
        "the folder that holds them."
    )


def refuse_without_pictures(project: Project) -> None:
    message = no_pictures_message(project)
    if message is not None:
        raise StudioError(message)


def set_image_folder(
    project: Project,
    folder: Path,
    actor: str,
    *,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
) -> PictureCount:
    """Make ``folder`` the image root and check every image's file there again.

    Stored paths stay relative, so the same project works with the pictures wherever they
    are. One change (one audit row); a cancelled check writes nothing.
    """
    folder = Path(folder).expanduser().resolve()
    if not folder.is_dir():
        raise StudioError(f"{folder} is not a folder.")
    stored = stored_picture_paths(project)
    found: list[str] = []
    missing: list[str] = []
    for done, (image_id, relative, _was_missing) in enumerate(stored, start=1):
        if cancel is not None and done % 500 == 0:
            cancel.raise_if_cancelled()
        path = os.path.normpath(folder / relative)
        (found if os.path.isfile(path) else missing).append(image_id)
        if done % 2000 == 0 or done == len(stored):
            progress(done, len(stored), f"Looking for picture files: {done:,} of {len(stored):,}")
    before = {"image_root": str(project.image_root), "missing": sum(m for *_, m in stored)}
    with project.change(actor, "set_image_folder", "images", "image_root", before) as record:
        project.set_meta("image_root", _portable(project, folder))
        mark_pictures(project, found, missing)
        record["after"] = {"image_root": str(folder), "missing": len(missing)}
    return PictureCount(len(stored), len(missing), folder)


def _portable(project: Project, folder: Path) -> str:
    """Relative to the project file when the folder lies below it (the project moves)."""
    try:
        return folder.relative_to(project.path.parent.resolve()).as_posix() or "."
    except ValueError:
        return str(folder)
