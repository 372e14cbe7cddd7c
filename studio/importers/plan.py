"""What an importer decided to write, and writing it: one transaction, cancellable.

Importers only read and validate; they hand an ``ImportPlan`` to ``apply_plan``, which
inserts images, pairs and captions inside one ``Project.change`` (one transaction and
one audit row). Cancelling rolls everything back. Rows that already exist are kept as
they are (images by id, pairs by ``(source, external_key)``, captions by pair and
position), so importing the same files twice adds nothing.

After the commit the new pictures are measured (lightness, colourfulness;
``studio.image_measures``), so "darker" and "more colourful" work without waiting for
an index and no live rank ever has to measure. A cancel during that step keeps the
import and what was measured.
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from studio.errors import StudioError
from studio.image_measures import MeasureReport, measure_imported
from studio.importers.image_files import FileFacts
from studio.importers.validation import Problem
from studio.jobs import CancelToken, ProgressCallback, no_progress
from studio.store import Project
from studio.store.database import utc_now
from studio.store.galleries import set_gallery
from studio.store.records import ImageRecord
from studio.store.repos import datasets as datasets_repo
from studio.store.repos import images as images_repo
from studio.store.repos.ground_truths import add_ground_truths_by_key

BATCH = 1000


@dataclass(frozen=True)
class PairEntry:
    """One annotated pair of the input, with its captions in order."""

    external_key: str
    reference_id: str
    target_id: str | None
    category: str
    split: str
    captions: tuple[str, ...]
    extra: str = "{}"  # dataset fields without a column, as JSON (pairs.extra)
    # Every image that counts as correct, in dataset order (CIRCO's gt_img_ids); empty for
    # datasets with one target (pair_ground_truths).
    ground_truths: tuple[str, ...] = ()


@dataclass
class ImportPlan:
    dataset: str
    source: str
    images: list[ImageRecord] = field(default_factory=list)
    pairs: list[PairEntry] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    author: str = ""
    gallery: Counter[tuple[str, str]] = field(default_factory=Counter)
    missing_known: list[tuple[str, tuple[str, str]]] = field(default_factory=list)
    # Gallery members per (category, split) in split-file order; an image may be in several.
    memberships: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    # How each source file was written (see ``json_format``), keyed by its path under ROOT.
    formats: dict[str, dict[str, Any] | None] = field(default_factory=dict)
    # Files not read (see ``image_files.screen_files``), and the folder images came from
    # (registered with the project when it lies outside the image root).
    skipped_files: list[Problem] = field(default_factory=list)
    image_dir: Path | None = None


@dataclass
class ImportReport:
    """What an import found and wrote; ``groups`` is keyed by (category, split)."""

    dataset: str
    groups: dict[tuple[str, str], dict[str, int]]
    images_added: int
    pairs_added: int
    captions_added: int
    missing_images: list[str]
    problems: list[Problem]
    skipped_files: list[Problem] = field(default_factory=list)
    measures: MeasureReport | None = None  # the new pictures' measuring, after the commit

    @property
    def skipped(self) -> int:
        """Entries (or whole files) left out because of problems (one may have several)."""
        return len({(problem.file, problem.entry) for problem in self.problems})

    def to_dict(self) -> dict[str, Any]:
        per_group: dict[str, dict[str, dict[str, int]]] = {}
        for (category, split), counts in sorted(self.groups.items()):
            per_group.setdefault(category or "(none)", {})[split or "(none)"] = counts
        return {
            "dataset": self.dataset,
            "groups": per_group,
            "images_added": self.images_added,
            "pairs_added": self.pairs_added,
            "captions_added": self.captions_added,
            "missing_images": len(self.missing_images),
            "missing_image_ids": self.missing_images,
            "problems": [p.to_dict() for p in self.problems],
            "skipped": self.skipped,
            "skipped_files": [p.to_dict() for p in self.skipped_files],
            "unreadable_images": self.unreadable_images,
        }

    @property
    def unreadable_images(self) -> list[str]:
        """Imported files that could not be read (broken, or too large to decode): they
        stay in the project, unmeasured, and the index leaves them out with the reason."""
        return list(self.measures.unreadable_files) if self.measures is not None else []


class ImagePaths:
    """Image paths relative to the project's image root, for one import.

    The root and each image's folder are resolved once per import, not once per image (the
    complete Fashion IQ is 77,000 pictures in one folder; resolving per picture was 5.7 of
    the 9.3 profiled seconds of reading the 15,415 of its test slice). A link is stored as the link, so reading it later goes through
    ``Project.image_path``'s check of where it leads.
    """

    def __init__(self, project: Project) -> None:
        self.root = project.image_root
        self._folders: dict[Path, str] = {}

    def relative(self, file: Path) -> str:
        """``file``'s path relative to the image root ('../' where it lies outside)."""
        file = Path(file)
        if file.name in ("", ".", ".."):
            return self._relative_to_root(file.resolve())
        folder = self._folders.get(file.parent)
        if folder is None:
            folder = self._folders[file.parent] = self._relative_to_root(file.parent.resolve())
        return file.name if folder == "." else f"{folder}/{file.name}"

    def _relative_to_root(self, located: Path) -> str:
        try:
            return Path(os.path.relpath(located, self.root)).as_posix()
        except ValueError as error:  # another drive on Windows
            raise StudioError(
                f"{located} cannot be reached from the project's image root {self.root}."
            ) from error


def relative_image_path(project: Project, file: Path) -> str:
    """One image's path relative to the project's image root (see ``ImagePaths``)."""
    return ImagePaths(project).relative(file)


def image_record(
    paths: ImagePaths,
    image_id: str,
    file: Path,
    facts: FileFacts | None,
    source: str,
    **fields: Any,
) -> ImageRecord:
    """A new image at ``file`` with its file facts (None: the file is missing)."""
    return ImageRecord(
        id=image_id,
        path=paths.relative(file),
        source=source,
        missing=facts is None,
        content_hash=facts.content_hash if facts else None,
        width=facts.width if facts else None,
        height=facts.height if facts else None,
        bytes=facts.bytes if facts else None,
        **fields,
    )


def group_counts(plan: ImportPlan) -> dict[tuple[str, str], dict[str, int]]:
    groups: dict[tuple[str, str], dict[str, int]] = {}

    def group(key: tuple[str, str]) -> dict[str, int]:
        return groups.setdefault(key, {"entries": 0, "captions": 0, "gallery": 0, "missing": 0})

    for pair in plan.pairs:
        counts = group((pair.category, pair.split))
        counts["entries"] += 1
        counts["captions"] += len(pair.captions)
    for key, size in plan.gallery.items():
        group(key)["gallery"] = size
    if plan.memberships:  # an image may be in several galleries: count it in each
        missing = {image.id for image in plan.images if image.missing}
        missing |= {image_id for image_id, _ in plan.missing_known}
        for key, members in plan.memberships.items():
            group(key)["missing"] = sum(1 for image_id in members if image_id in missing)
        return groups
    for image in plan.images:
        if image.missing:
            group((image.category, image.split))["missing"] += 1
    for _, key in plan.missing_known:
        group(key)["missing"] += 1
    return groups


def apply_plan(
    project: Project,
    plan: ImportPlan,
    actor: str,
    *,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
) -> ImportReport:
    """Write the plan in one transaction; returns what was added."""
    cancel = cancel or CancelToken()
    total = len(plan.images) + len(plan.pairs)
    done = 0
    now = utc_now()
    with project.change(actor, "import", "dataset", plan.source) as record:
        before = project.table_counts()  # inside the write lock: another writer cannot skew it
        if plan.image_dir is not None and plan.images:
            project.add_image_folder(plan.image_dir)
        for start in range(0, len(plan.images), BATCH):
            cancel.raise_if_cancelled()
            rows = [
                {**image.to_row(), "added_at": now} for image in plan.images[start : start + BATCH]
            ]
            images_repo.add_missing_images(project, rows)
            done += len(rows)
            progress(done, total, "images")
        for (category, split), members in plan.memberships.items():
            set_gallery(project, category, split, members)
        for name, options in plan.formats.items():
            datasets_repo.set_source_format(project, plan.source, name, options)
        author_id = project.ensure_person(plan.author).id if plan.author else None
        for start in range(0, len(plan.pairs), BATCH):
            cancel.raise_if_cancelled()
            batch = plan.pairs[start : start + BATCH]
            _insert_pairs(project, plan.source, batch, author_id, now)
            done += len(batch)
            progress(done, total, "pairs and captions")
        after = project.table_counts()
        added = {table: after[table] - before[table] for table in ("images", "pairs", "captions")}
        record["after"] = {"dataset": plan.dataset, **added, "skipped": len(plan.problems)}
    measured = measure_imported(project, plan.images, progress=progress, cancel=cancel)
    return ImportReport(
        dataset=plan.dataset,
        groups=group_counts(plan),
        images_added=added["images"],
        pairs_added=added["pairs"],
        captions_added=added["captions"],
        missing_images=[image.id for image in plan.images if image.missing]
        + [image_id for image_id, _ in plan.missing_known],
        problems=plan.problems,
        skipped_files=plan.skipped_files,
        measures=measured,
    )


def _insert_pairs(
    project: Project, source: str, batch: list[PairEntry], author_id: int | None, now: str
) -> None:
    datasets_repo.add_imported_pairs(
        project,
        source,
        [
            (p.reference_id, p.target_id, p.category, p.split, p.external_key, p.extra, p.captions)
            for p in batch
        ],
        author_id,
        now,
    )
    add_ground_truths_by_key(
        project, source, [(p.external_key, p.ground_truths) for p in batch if p.ground_truths]
    )
