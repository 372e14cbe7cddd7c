"""Hugging Face / Parquet: a Fashion IQ project exported loads with ``datasets`` and
re-imports identically; hidden test ground truth is refused; annotations-only has no bytes."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from studio.captions.store import review_caption
from studio.cli.main import main
from studio.demo.placeholders import draw_placeholders
from studio.store import Project
from studio.transactions.records import Transaction, Turn
from studio.transactions.store import save_transactions

CAPTIONS = [
    {"target": "B002", "candidate": "B001", "captions": ["is red", "has no sleeves"]},
    {"target": "B003", "candidate": "B002", "captions": ["is longer", "is striped"]},
    {"target": "B001", "candidate": "B004", "captions": ["is shorter", "is blue"]},
]
GALLERY = ["B001", "B002", "B003", "B004", "B005"]


def fashioniq_project(tmp_path: Path) -> Path:
    root = tmp_path / "fiq"
    (root / "captions").mkdir(parents=True)
    (root / "image_splits").mkdir()
    (root / "captions" / "cap.dress.val.json").write_text(json.dumps(CAPTIONS, indent=4))
    (root / "image_splits" / "split.dress.val.json").write_text(json.dumps(GALLERY, indent=4))
    draw_placeholders(root / "images", [f"{i}.jpg" for i in GALLERY[:-1]])  # B005 missing
    project = tmp_path / "p"
    assert main(["import", "fashioniq", str(root), "--project", str(project)]) == 0
    with Project.open(project) as opened:
        first = opened.db.execute("SELECT id FROM captions ORDER BY id").fetchone()[0]
        review_caption(opened, first, "rita", "accept")
        save_transactions(opened, [Transaction(
            "fashionmt", "t1", ("B001", "B002", "B003"),
            (Turn(1, "is red", 0), Turn(2, "go back to the first and make it long", 0)),
            captions=("a dress", "a red dress", "a long dress"))], "tester")
    return project


def tables(folder: Path) -> dict[str, list[dict]]:
    return {path.relative_to(folder).as_posix(): pq.read_table(path).to_pylist()
            for path in sorted(folder.glob("*/*.parquet"))}


def test_a_fashioniq_export_loads_with_datasets_and_reimports_identically(
    tmp_path: Path,
) -> None:
    datasets = pytest.importorskip("datasets")
    project = fashioniq_project(tmp_path)
    out = tmp_path / "hf"
    assert main(["export", "hf", "--project", str(project), str(out)]) == 0
    card = (out / "README.md").read_text()
    assert "Community Data License Agreement" in card and "| triplets | val | 3 |" in card

    cache = str(tmp_path / "hf-cache")
    loaded = datasets.load_dataset(str(out), "triplets", cache_dir=cache)
    assert list(loaded) == ["val"] and loaded["val"].num_rows == 3
    row = loaded["val"][0]
    assert (row["reference"], row["target"]) == ("B001", "B002")
    assert [c["text"] for c in row["captions"]] == ["is red", "has no sleeves"]
    assert row["captions"][0]["status"] == "accepted" and row["captions"][0]["reviewer"] == "rita"
    assert row["reference_image"].size == (64, 64)  # decoded as a picture
    gallery = datasets.load_dataset(str(out), "gallery", cache_dir=cache)["val"]
    assert gallery["image_id"] == GALLERY
    (session,) = datasets.load_dataset(str(out), "sessions", cache_dir=cache)["unsplit"]
    assert session["image_ids"] == ["B001", "B002", "B003"] and len(session["images"]) == 3
    assert [t["reference_position"] for t in session["turns"]] == [0, 0]

    again = tmp_path / "again"
    assert main(["import", "hf", str(out), "--project", str(again)]) == 0
    assert main(["import", "hf", str(out), "--project", str(again)]) == 0  # adds nothing
    with Project.open(again) as opened:
        assert opened.table_counts()["pairs"] == 3 and opened.table_counts()["captions"] == 6
        assert opened.image("B005") is not None and opened.image("B005").missing
        assert opened.table_counts()["transactions"] == 1
    out2 = tmp_path / "hf2"
    assert main(["export", "hf", "--project", str(again), str(out2)]) == 0
    first, second = tables(out), tables(out2)
    assert first == second
    assert first["triplets/val-00000-of-00001.parquet"][0]["reference_image"]["bytes"]


def test_annotations_only_carries_ids_and_paths_but_no_pictures(tmp_path: Path) -> None:
    project = fashioniq_project(tmp_path)
    out = tmp_path / "hf"
    assert main(["export", "hf", "--project", str(project), str(out), "--annotations-only",
                 "--split", "val"]) == 0
    rows = pq.read_table(out / "triplets" / "val-00000-of-00001.parquet").to_pylist()
    assert "reference_image" not in rows[0] and rows[0]["reference_path"].endswith("B001.jpg")


def test_hidden_test_ground_truth_is_refused(tmp_path: Path, capsys) -> None:
    root = tmp_path / "circo"
    (root / "annotations").mkdir(parents=True)
    leaked = [{"reference_img_id": 1, "target_img_id": 2, "relative_caption": "is red",
               "shared_concept": "a car", "gt_img_ids": [2, 3], "id": 0}]
    (root / "annotations" / "test.json").write_text(json.dumps(leaked))
    project = str(tmp_path / "p")
    assert main(["import", "circo", str(root), "--project", project]) == 0
    capsys.readouterr()
    assert main(["export", "hf", "--project", project, str(tmp_path / "hf")]) == 2
    assert "Refusing to export hidden test ground truth" in capsys.readouterr().err
    assert not (tmp_path / "hf" / "triplets").exists()


def test_the_card_names_each_source_once() -> None:
    from studio.hf.card import card_text

    card = card_text({"triplets": {"val": 3}}, ["fashioniq", "mined"], with_images=False)
    assert "- **mined**: a dataset made in CIR Studio. Terms: as its owner decides." in card
    assert "mined: mined" not in card
    assert "- **fashioniq**: Fashion IQ (Wu et al., CVPR 2021). Terms: Community" in card
