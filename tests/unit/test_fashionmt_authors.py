"""FashionMT files as the MAI authors' scripts write them: image paths, texts ending in a
space, grouped keys; import → export gives the same content in the same key order."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from studio.cli.main import main
from studio.store import Project
from studio.store.records import ImageRecord
from studio.transactions.importer import export_transactions, import_transactions

IDS = ["B00ABC", "B00DEF", "B00GHI", "B00JKL", "B00MNO", "B00PQR"]


def path_of(image_id: str) -> str:
    return f"/data/fashion-iq/images/{image_id}.png"


GROUPED = [
    {
        "ref": path_of("B00ABC"),
        "tar1": path_of("B00DEF"),
        "tar2": path_of("B00GHI"),
        "tar3": path_of("B00JKL"),
        "mod1": "1. is red 2. has long sleeves ",
        "mod2": "1. is shorter 2. no print ",
        "mod3": "1. I still prefer the first one 2. but in blue ",
        "cap0": "a dress ",
        "cap1": "a red dress",
        "cap2": "a short dress",
        "cap3": "a blue dress",
    },
]
INTERLEAVED = [
    {
        "ref": path_of("B00MNO"),
        "tar1": path_of("B00PQR"),
        "mod1": "1. is green 2. loose ",
        "tar2": path_of("B00ABC"),
        "mod2": "1. is darker ",
    },
]


@pytest.fixture
def project(tmp_path: Path):
    with Project.create(tmp_path / "p") as opened:
        opened.add_images([ImageRecord(id=i, path=f"{i}.png", category="dress") for i in IDS])
        yield opened


def write(path: Path, data: object) -> Path:
    path.write_text(json.dumps(data, indent=1), encoding="utf-8")
    return path


@pytest.mark.parametrize("data", [GROUPED, INTERLEAVED, GROUPED + INTERLEAVED])
def test_the_authors_files_round_trip_in_content_and_key_order(
    project: Project, tmp_path: Path, data: list
) -> None:
    report = import_transactions(project, write(tmp_path / "mt.json", data))
    assert report.added == len(data) and report.skipped == []
    assert report.mapped_paths == sum(len([k for k in e if k[:3] in ("ref", "tar")]) for e in data)
    assert "by file stem" in report.mapping_note
    out = tmp_path / "out.json"
    export_transactions(project, out)
    exported = json.loads(out.read_text(encoding="utf-8"))
    assert exported == data
    assert [list(e) for e in exported] == [list(e) for e in data]  # key order kept
    stored = project.db.execute("SELECT text FROM transaction_turns ORDER BY transaction_id, turn_index").fetchone()
    assert stored[0].endswith(" ")  # verbatim, trailing space included


def test_ids_are_the_file_stems(project: Project, tmp_path: Path) -> None:
    import_transactions(project, write(tmp_path / "mt.json", GROUPED))
    rows = project.db.execute(
        "SELECT image_id FROM transaction_images ORDER BY position"
    ).fetchall()
    assert [r[0] for r in rows] == IDS[:4]


def test_new_data_is_grouped(project: Project, tmp_path: Path) -> None:
    from studio.transactions.records import Transaction, sequential_turns
    from studio.transactions.store import save_transactions

    save_transactions(
        project,
        [Transaction("new", "k", tuple(IDS[:3]), sequential_turns(["is red", "is blue"]))],
        "t",
    )
    out = tmp_path / "new.json"
    export_transactions(project, out)
    assert list(json.loads(out.read_text())[0]) == ["ref", "tar1", "tar2", "mod1", "mod2"]


def test_id_from_path_uses_the_relative_path(tmp_path: Path, capsys) -> None:
    root = tmp_path / "images"
    with Project.create(tmp_path / "p", image_root=root) as project:
        # Two images whose stems collide: only their relative paths tell them apart.
        project.add_images(
            [
                ImageRecord(id=f"{folder}-B00ABC", path=f"{folder}/B00ABC.png")
                for folder in ("dress", "shirt")
            ]
        )
    data = [{"ref": "shirt/B00ABC.png", "tar1": "./dress/B00ABC.png", "mod1": "is red "}]
    source = write(tmp_path / "mt.json", data)
    assert (
        main(
            [
                "transactions",
                "import",
                "--project",
                str(tmp_path / "p"),
                str(source),
                "--id-from",
                "path",
            ]
        )
        == 0
    )
    assert "mapped to image ids by their relative path" in capsys.readouterr().out
    with Project.open(tmp_path / "p") as project:
        rows = project.db.execute(
            "SELECT image_id FROM transaction_images ORDER BY position"
        ).fetchall()
    assert [r[0] for r in rows] == ["shirt-B00ABC", "dress-B00ABC"]
    out = tmp_path / "out.json"
    assert main(["transactions", "export", "--project", str(tmp_path / "p"), str(out)]) == 0
    assert json.loads(out.read_text()) == data


def test_the_command_line_says_paths_were_mapped(project: Project, tmp_path: Path, capsys) -> None:
    source = write(tmp_path / "mt.json", GROUPED)
    project.close()
    assert main(["transactions", "import", "--project", str(tmp_path / "p"), str(source)]) == 0
    out = capsys.readouterr().out
    assert "4 image references were paths, mapped to image ids by file stem" in out
    assert "/data/fashion-iq/images/B00ABC.png → B00ABC" in out


def test_one_imported_dataset_exports_byte_for_byte(project: Project, tmp_path: Path) -> None:
    source = tmp_path / "fashionmt_dress.json"
    source.write_text(json.dumps(GROUPED + INTERLEAVED, indent=4) + "\n", encoding="utf-8")
    report = import_transactions(project, source)
    out = tmp_path / "out.json"
    export_transactions(project, out, dataset=report.dataset)
    assert out.read_bytes() == source.read_bytes()
