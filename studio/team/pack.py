"""A work package: a self-contained project file holding one person's work and no more.

Made from a consistent snapshot of the project (``studio.store.package_file``), then cut
down to the person's assignments: their caption and review pairs (with the captions already on them,
so the "N per pair from different people" rule still holds on their machine), their
attribute batches, and their own rating queue. Ratings stay blind: no other rater's
assignments or scores, and transactions lose their dataset name and key (their uid is
what the merge uses), images their source. Audit rows of other people go too. Finally
the file is vacuumed, so nothing deleted can be read back from its free pages.

The package records its id, the person, when it was packed, and a per-record hash of
everything it holds (``team_base``): the merge compares against that to tell what the
person changed. It is written under a temporary name and renamed when complete.
"""

from __future__ import annotations

import json
import os
import shutil
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from studio.errors import StudioError
from studio.jobs import CancelToken, ProgressCallback, no_progress
from studio.store import Project, package_file
from studio.store.database import utc_now
from studio.store.project import PROJECT_SUFFIX
from studio.store.repos import people as people_repo
from studio.store.repos import team as team_repo
from studio.wording import count


@dataclass
class PackResult:
    path: Path
    package_id: str
    person: str
    handed_out: dict[str, int]
    images_copied: int = 0
    notes: list[str] = field(default_factory=list)


def default_package_path(project: Project, person: str, out: Path) -> Path:
    out = Path(out).expanduser()
    if out.is_dir():
        safe = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in person)
        stem = project.path.parent.name if project.path.stem == "project" else project.path.stem
        return out / f"{stem}-{safe}{PROJECT_SUFFIX}"
    return out if out.suffix else out.with_suffix(PROJECT_SUFFIX)


def handed_out(project: Project, person_id: int) -> dict[str, int]:
    """kind -> items handed to the person (``rating``: their rating queue)."""
    return team_repo.handed_out(project, person_id)


# What one assignment of each kind is, as the pack's summary names it.
HANDED_OUT_NOUNS = {
    "caption": ("pair", "to caption"),
    "review": ("caption", "to review"),
    "attributes": ("image", "to label"),
    "rating": ("transaction", "to rate"),
}


def handed_out_text(counts: dict[str, int]) -> str:
    """"14 pairs to caption, 1 caption to review, 6 images to label, 12 transactions to rate"."""
    parts = []
    for kind, (noun, task) in HANDED_OUT_NOUNS.items():
        if counts.get(kind):
            parts.append(f"{count(counts[kind], noun)} {task}")
    parts += [count(n, kind) for kind, n in sorted(counts.items()) if kind not in HANDED_OUT_NOUNS]
    return ", ".join(parts)


def pack(
    project: Project,
    person: str,
    out: Path,
    actor: str,
    with_images: bool = False,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
    image_root: str | None = None,
) -> PackResult:
    """Write ``person``'s work package to ``out`` (a file, or a folder to put it in).

    Images: copied beside the package (``with_images``), or looked for under
    ``image_root`` as the person's machine will see it (absolute, or relative to the
    package's folder), by default this project's image root.
    """
    if with_images and image_root:
        raise StudioError("Choose either --with-images or --image-root, not both.")
    if project.get_meta("team.package_id"):
        raise StudioError(
            f"{project.path} is itself a work package; pack from the coordinator's project."
        )
    found = people_repo.find_person(project, person)
    if found is None:
        raise StudioError(
            f"There is nobody called {person!r} in {project.name}; "
            "assign them work first (cir-studio team assign …)."
        )
    person_id = found.id
    counts = handed_out(project, person_id)
    if not counts:
        raise StudioError(
            f"{person} has no assigned work in {project.name}; assign some "
            "first (cir-studio team assign …)."
        )
    path = default_package_path(project, person, out)
    if path.exists():
        raise StudioError(f"{path} already exists; choose another name or remove it first.")
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    partial.unlink(missing_ok=True)
    package_id = uuid.uuid4().hex
    images_dir = path.with_name(path.stem + ".images")
    copied = 0
    try:
        progress(0, 4, "copying the project")
        package_file.copy_project(project, partial)
        if cancel is not None:
            cancel.raise_if_cancelled()
        progress(1, 4, f"keeping only {person}'s work")
        needed = _cut_down(project, partial, person, person_id, package_id, counts)
        if cancel is not None:
            cancel.raise_if_cancelled()
        progress(2, 4, "copying images" if with_images else "writing the package")
        root = project.image_root
        if with_images:
            copied = _copy_images(root, needed, images_dir, cancel)
            root_text = images_dir.name
        else:
            root_text = image_root or str(root)
        package_file.finish(partial, root_text)
        progress(3, 4, "recording the hand-out")
        os.replace(partial, path)
    except package_file.PackageFileError as error:
        partial.unlink(missing_ok=True)
        raise StudioError(
            f"Packing {person}'s work failed ({error}); nothing was written."
        ) from error
    except BaseException:
        partial.unlink(missing_ok=True)
        if with_images and copied:
            shutil.rmtree(images_dir, ignore_errors=True)
        raise
    with project.change(actor, "team.pack", "team_package", package_id) as record:
        team_repo.add_package(
            project, package_id, person_id, str(path), utc_now(), json.dumps(counts, sort_keys=True)
        )
        record["after"] = {"person": person, "path": str(path), "handed_out": counts}
    progress(4, 4, "packed")
    return PackResult(path, package_id, person, counts, copied)


def _cut_down(
    project: Project,
    partial: Path,
    person: str,
    person_id: int,
    package_id: str,
    counts: dict[str, int],
) -> list[str]:
    """Prune the copy to the person's work; returns the image paths it needs."""
    meta = {
        # the package is a copy of its own: what it makes carries the package id as
        # origin, so the audit log says which package changed what
        "origin_id": package_id,
        "name": f"{project.name} — {person}'s work",
        "team.package_id": package_id,
        "team.person": person,
        "team.packed_at": utc_now(),
        "team.source_origin": project.get_meta("origin_id") or "",
        "team.handed_out": json.dumps(counts, sort_keys=True),
    }
    return package_file.cut_down(partial, person, person_id, meta)


def _copy_images(root: Path, paths: list[str], target: Path, cancel: CancelToken | None) -> int:
    copied = 0
    for relative in paths:
        if cancel is not None and copied % 100 == 0:
            cancel.raise_if_cancelled()
        source = root / relative
        if not source.is_file():
            continue
        destination = target / relative
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, destination)
        copied += 1
    return copied


def package_info(project: Project) -> dict[str, str] | None:
    """The package meta of an open project, or None when it is not a work package."""
    package_id = project.get_meta("team.package_id")
    if not package_id:
        return None
    return {
        "package_id": package_id,
        "person": project.get_meta("team.person") or "",
        "packed_at": project.get_meta("team.packed_at") or "",
    }
