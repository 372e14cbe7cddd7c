"""The demo project: the generated catalog plus a project database over it."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

from studio.errors import StudioError
from studio.hashing import file_digest
from studio.jobs import CancelToken, ProgressCallback, no_progress
from studio.store import Project, resolve_project_path
from studio.store.records import ImageRecord

DEMO_PROJECT_NAME = "CIR Studio demo"
DEMO_PAIRS = 500  # mined for the demo opened by --demo, so annotators can start at once
DEMO_OUTFITS = 300  # generated outfit pictures for the Outfit view and the outfit exports


def create_demo_project(
    folder: Path,
    n_images: int = 2000,
    seed: int = 0,
    *,
    pairs: int = 0,
    attributes: bool = True,
    outfits: int = 0,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
) -> dict[str, object]:
    """Draw the catalog into ``folder`` and register its images in a new project there.

    ``pairs`` > 0 also mines that many reference/target pairs by shared title words
    (TF-IDF, the Fashion IQ method), so the Pairs and Captions panes have work at once.
    ``attributes`` extracts the attribute labels from the product text (under a second
    for 2,000 images), so the Attributes pane, ``simulate`` and the transaction builder
    work on a fresh demo without a step first. ``outfits`` > 0 draws that many outfit
    pictures with their garments, parts and values known (``studio.demo.outfits``).
    """
    from studio.demo.catalog import generate_catalog, read_catalog

    folder = Path(folder).expanduser()
    if n_images < 30:
        raise StudioError("The demo catalog needs at least 30 images (10 per category).")
    if folder.exists() and any(folder.iterdir()):
        raise StudioError(f"{folder} is not empty; choose a new folder for the demo project.")
    started = time.monotonic()
    summary = generate_catalog(folder, n_images, seed, progress=progress, cancel=cancel)
    drawn = time.monotonic()
    project = Project.create(folder, name=DEMO_PROJECT_NAME, image_root=folder)
    mined = 0
    labels = 0
    outfit_pictures = 0
    try:
        records = [
            ImageRecord(
                id=item.id,
                path=item.file,
                category=item.category,
                split=item.split,
                title=item.title,
                description=item.description,
                content_hash=file_digest(folder / item.file),
                source="demo",
            )
            for item in read_catalog(folder)
        ]
        project.add_images(records)
        project.set_meta("demo_seed", str(seed))
        if attributes:
            from studio.attributes.extract import extract_from_text

            labels = int(extract_from_text(project, "demo")["labels"])
        if pairs > 0:
            from studio.pairs.mining import mine_pairs

            mined = mine_pairs(project, "tfidf", pairs, actor="demo").added
        if outfits > 0:
            from studio.demo.outfits import add_demo_outfits

            outfit_pictures = add_demo_outfits(project, folder, outfits, seed,
                                               progress=progress, cancel=cancel)
    finally:
        project.close()
    return {
        "project": str(resolve_project_path(folder)),
        "images": summary.count,
        "seed": seed,
        "pairs": mined,
        "attribute_labels": labels,
        "outfits": outfit_pictures,
        "seconds": round(time.monotonic() - started, 2),
        "draw_seconds": round(drawn - started, 2),
        "per_split": summary.per_split,
        "per_category": summary.per_category,
    }


def ensure_demo_project(
    folder: Path, *, progress: ProgressCallback = no_progress, cancel: CancelToken | None = None
) -> Path:
    """The project file of the demo in ``folder``, created on first use.

    A half-drawn catalog left by a cancelled or killed run is cleared first.
    """
    path = resolve_project_path(folder)
    if not path.exists():
        if folder.exists() and not (folder / "catalog.jsonl").exists():
            shutil.rmtree(folder)
        create_demo_project(folder, pairs=DEMO_PAIRS, outfits=DEMO_OUTFITS, progress=progress,
                            cancel=cancel)
    return path
