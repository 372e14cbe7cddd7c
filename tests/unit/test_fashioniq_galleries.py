"""Fashion IQ galleries: an image in several galleries, verbatim repeats, byte-exact export."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from studio.exporters import export_fashioniq
from studio.importers import import_fashioniq
from studio.store import Project
from studio.store.database import connect, migrate
from studio.store.galleries import galleries, gallery
from studio.store.migrations import LATEST_VERSION

SHARED = "B00SHARED1"  # listed by shirt.train and toptee.test, as the real dataset does


def write(path: Path, data: object, **options: object) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    newline = bool(options.pop("newline", False))
    text = json.dumps(data, **options) + ("\n" if newline else "")
    path.write_text(text, encoding="utf-8")
    return text


def generated_set(root: Path) -> dict[str, str]:
    """Train- and test-shaped files in three different layouts; returns name -> text."""
    texts = {}
    shirt_train = ["S1", "S2", SHARED, "S3"]
    toptee_test = ["T9", SHARED, "T8"]
    texts["image_splits/split.shirt.train.json"] = write(
        root / "image_splits/split.shirt.train.json", shirt_train, indent=4
    )
    texts["image_splits/split.toptee.test.json"] = write(
        root / "image_splits/split.toptee.test.json", toptee_test, indent=2, newline=True
    )
    train = [
        {"target": "S2", "candidate": "S1", "captions": ["is red", "has long sleeves"]},
        {"target": SHARED, "candidate": "S3", "captions": ["is blue", "café style"]},
        {"target": "S1", "candidate": "S2", "captions": ["is green ", "shorter"]},
    ]
    texts["captions/cap.shirt.train.json"] = write(
        root / "captions/cap.shirt.train.json", train, indent=4, ensure_ascii=False
    )
    test = [
        {"candidate": SHARED, "captions": ["is darker", "no print"]},
        {"candidate": "T9", "captions": ["is lighter", "has a collar"]},
        {"candidate": SHARED, "captions": ["is darker", "no print"]},  # a verbatim repeat
    ]
    texts["captions/cap.toptee.test.json"] = write(root / "captions/cap.toptee.test.json", test)
    return texts


def test_an_image_in_two_galleries_imports_cleanly_and_round_trips_byte_for_byte(
    tmp_path: Path,
) -> None:
    texts = generated_set(tmp_path / "fiq")
    with Project.create(tmp_path / "p") as project:
        report = import_fashioniq(project, tmp_path / "fiq")
        assert report.problems == []
        assert gallery(project, "shirt", "train") == ["S1", "S2", SHARED, "S3"]
        assert gallery(project, "toptee", "test") == ["T9", SHARED, "T8"]
        assert galleries(project) == {("shirt", "train"): 4, ("toptee", "test"): 3}
        assert project.count_images() == 6
        assert report.groups[("toptee", "test")]["entries"] == 3  # the repeat is a query too
        assert {image.id for image in project.iter_images("toptee", "test")} == {"T9", SHARED, "T8"}
        export_fashioniq(project, tmp_path / "out")
    for name, text in texts.items():
        assert (tmp_path / "out" / name).read_bytes() == text.encode("utf-8"), name


def test_reimporting_adds_nothing_and_keeps_the_repeat(tmp_path: Path) -> None:
    generated_set(tmp_path / "fiq")
    with Project.create(tmp_path / "p") as project:
        import_fashioniq(project, tmp_path / "fiq")
        again = import_fashioniq(project, tmp_path / "fiq")
        assert (again.images_added, again.pairs_added, again.captions_added) == (0, 0, 0)
        rows = project.db.execute(
            "SELECT reference_id FROM pairs WHERE category = 'toptee' ORDER BY id"
        ).fetchall()
        assert rows == [(SHARED,), ("T9",), (SHARED,)]


def test_new_data_exports_in_the_published_style(tmp_path: Path) -> None:
    with Project.create(tmp_path / "p") as project:
        from studio.store.records import ImageRecord

        project.add_images(
            [ImageRecord(id=i, path=f"{i}.jpg", category="dress", split="val") for i in "AB"]
        )
        export_fashioniq(project, tmp_path / "out")
    text = (tmp_path / "out/image_splits/split.dress.val.json").read_text()
    assert text == json.dumps(["A", "B"], indent=4)


def test_an_older_project_gets_one_gallery_membership_per_image(tmp_path: Path) -> None:
    path = tmp_path / "project.cirdb"
    db = connect(path)
    migrate(db, path, target=3)
    db.execute("INSERT INTO meta VALUES ('name', 'Old')")
    for number, (image_id, category) in enumerate([("b", "dress"), ("a", "dress"), ("c", "")]):
        db.execute(
            "INSERT INTO images (id, path, category, split, added_at) VALUES (:image_id, :path, :category, :split, :added_at)",
            {
                "image_id": image_id,
                "path": f"{image_id}.jpg",
                "category": category,
                "split": "val" if category else "",
                "added_at": f"2024-0{number}",
            },
        )
    db.close()
    with Project.open(path) as project:
        assert project.schema_version == LATEST_VERSION
        assert gallery(project, "dress", "val") == ["b", "a"]  # the order they were added
        assert galleries(project) == {("dress", "val"): 2}
        assert project.count_images() == 3
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT count(*) FROM images").fetchone()[0] == 3


def test_a_refused_import_leaves_no_new_project_behind(tmp_path: Path, capsys) -> None:
    from studio.cli.main import main

    root = tmp_path / "fiq"
    write(root / "captions/cap.dress.val.json", [{"target": "A", "candidate": "B"}])
    write(root / "image_splits/split.dress.val.json", ["A", "B"])
    target = tmp_path / "new-project"
    assert main(["import", "fashioniq", str(root), "--project", str(target)]) == 2
    assert "nothing was written" in capsys.readouterr().err
    assert not target.exists()
    existing = tmp_path / "existing"
    existing.mkdir()
    (existing / "notes.txt").write_text("mine")
    assert main(["import", "fashioniq", str(root), "--project", str(existing)]) == 2
    assert [p.name for p in existing.iterdir()] == ["notes.txt"]
