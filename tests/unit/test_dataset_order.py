"""The order images were added is data: exports list the same order after every update.

SQLite's ``rowid`` kept that order by accident; PostgreSQL's row position (``ctid``) moves
when a row is updated, so an export after *Set image folder…* (which updates every image)
listed the gallery in another order. Runs on both engines (CIR_STUDIO_TEST_ENGINE).
"""

from __future__ import annotations

import json
from pathlib import Path

from studio.exporters import export_cirr, export_fashioniq
from studio.importers import import_fashioniq
from studio.picture_files import set_image_folder
from studio.store import Project
from studio.store.galleries import gallery
from studio.store.records import ImageRecord

SLICE = 120  # images per gallery, entries per captions file


def fashioniq_slice(fixtures: Path, root: Path) -> None:
    """The first entries of the real val files, both galleries in their file order."""
    for category in ("dress", "toptee"):
        ids = json.loads((fixtures / f"image_splits/split.{category}.val.json").read_text())
        entries = json.loads((fixtures / f"captions/cap.{category}.val.json").read_text())
        entries = entries[: SLICE // 4]
        wanted = {e["candidate"] for e in entries} | {e["target"] for e in entries}
        kept = [i for n, i in enumerate(ids) if n < SLICE // 2 or i in wanted]
        for name, data in (
            (f"image_splits/split.{category}.val.json", kept),
            (f"captions/cap.{category}.val.json", entries),
        ):
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_text(json.dumps(data, indent=4))


def exported(project: Project, out: Path) -> dict[str, bytes]:
    export_cirr(project, out / "cirr")
    export_fashioniq(project, out / "fiq")
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*.json"))}


def test_exports_are_byte_identical_after_set_image_folder(
    fashioniq_fixtures: Path, tmp_path: Path
) -> None:
    fashioniq_slice(fashioniq_fixtures, tmp_path / "fiq")
    with Project.create(tmp_path / "p") as project:
        assert import_fashioniq(project, tmp_path / "fiq").problems == []
        # Images added later, ids sorting before the imported ones: still listed last.
        project.add_images(
            [ImageRecord(id=f"0late{n}", path=f"late{n}.jpg", split="val") for n in (2, 1)]
        )
        before = exported(project, tmp_path / "before")
        order = gallery(project, "dress", "val")
        folder = tmp_path / "elsewhere"
        folder.mkdir()
        for image_id in order[::3]:  # some pictures found, the rest missing: two updates
            (folder / f"{image_id}.jpg").write_bytes(b"")
        set_image_folder(project, folder, "tester")
        after = exported(project, tmp_path / "after")
        assert gallery(project, "dress", "val") == order
    assert sorted(before) == sorted(after) and len(before) >= 5
    for name in before:
        assert after[name] == before[name], name
    cirr = json.loads(before["cirr/image_splits/split.rc2.val.json"])
    assert list(cirr)[-2:] == ["0late2", "0late1"]  # the order added, not the id order
