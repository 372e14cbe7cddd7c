"""CIRR import and export on small hand-made files in the published layout."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from studio.cli.main import main
from studio.errors import ValidationError
from studio.exporters import export_cirr
from studio.importers import import_cirr
from studio.store import Project

TRAIN = [
    {
        "pairid": 12063,
        "reference": "train-1-0-img0",
        "target_hard": "train-1-0-img1",
        "target_soft": {"train-1-0-img1": 1.0},
        "caption": "show three bottles of soft drink",
        "img_set": {"id": 1, "members": ["train-1-0-img0", "train-1-0-img1", "train-2-0-img0"]},
    },
    {
        "pairid": 12064,
        "reference": "train-2-0-img0",
        "target_hard": "train-1-0-img0",
        "target_soft": {"train-1-0-img0": 1.0, "train-1-0-img1": 0.5},
        "caption": "remove the dog and add a woman",
        "img_set": {"id": 2, "members": ["train-2-0-img0", "train-1-0-img0"]},
    },
]
TEST1 = [
    {
        "pairid": 7,
        "reference": "test1-5-0-img0",
        "caption": "make it night",
        "img_set": {"id": 9, "members": ["test1-5-0-img0", "test1-5-0-img1"]},
    },
]
SPLITS = {
    "train": {
        "train-1-0-img0": "./train/1/train-1-0-img0.png",
        "train-1-0-img1": "./train/1/train-1-0-img1.png",
        "train-2-0-img0": "./train/2/train-2-0-img0.png",
    },
    "test1": {
        "test1-5-0-img0": "./test1/test1-5-0-img0.png",
        "test1-5-0-img1": "./test1/test1-5-0-img1.png",
    },
}


def write_cirr(root: Path, train: object = TRAIN, text: str | None = None) -> Path:
    (root / "captions").mkdir(parents=True, exist_ok=True)
    (root / "image_splits").mkdir(parents=True, exist_ok=True)
    (root / "captions" / "cap.rc2.train.json").write_text(
        text if text is not None else json.dumps(train, indent=4)
    )
    (root / "captions" / "cap.rc2.test1.json").write_text(json.dumps(TEST1, indent=4))
    for split, names in SPLITS.items():
        (root / "image_splits" / f"split.rc2.{split}.json").write_text(json.dumps(names, indent=4))
    return root


@pytest.fixture
def project(tmp_path: Path) -> Project:
    with Project.create(tmp_path / "project", image_root=tmp_path / "cirr") as opened:
        yield opened


def test_import_keeps_pairs_captions_and_galleries(project, tmp_path) -> None:
    report = import_cirr(project, write_cirr(tmp_path / "cirr"))
    assert report.groups[("", "train")] == {"entries": 2, "captions": 2, "gallery": 3, "missing": 3}
    assert report.groups[("", "test1")]["entries"] == 1
    assert project.count_images() == 5
    rows = {
        row[0]: row[1:]
        for row in project.db.execute(
            "SELECT p.reference_id, p.target_id, c.text, c.status, a.name FROM pairs p "
            "JOIN captions c ON c.pair_id = p.id JOIN people a ON a.id = c.author_id"
        )
    }
    assert rows["train-1-0-img0"] == (
        "train-1-0-img1",
        "show three bottles of soft drink",
        "submitted",
        "cirr",
    )
    assert rows["test1-5-0-img0"][0] is None  # test1 has no target
    assert project.image("train-2-0-img0").path == "train/2/train-2-0-img0.png"


def test_export_writes_back_the_same_files(project, tmp_path) -> None:
    root = write_cirr(tmp_path / "cirr")
    import_cirr(project, root)
    export_cirr(project, tmp_path / "out")
    for name in [
        "captions/cap.rc2.train.json",
        "captions/cap.rc2.test1.json",
        "image_splits/split.rc2.train.json",
        "image_splits/split.rc2.test1.json",
    ]:
        assert json.loads((tmp_path / "out" / name).read_text()) == json.loads(
            (root / name).read_text()
        ), name
    first = json.loads((tmp_path / "out/captions/cap.rc2.train.json").read_text())[0]
    assert list(first) == [
        "pairid",
        "reference",
        "target_hard",
        "target_soft",
        "caption",
        "img_set",
    ]


def test_importing_twice_adds_nothing(project, tmp_path) -> None:
    root = write_cirr(tmp_path / "cirr")
    import_cirr(project, root)
    again = import_cirr(project, root)
    assert (again.images_added, again.pairs_added, again.captions_added) == (0, 0, 0)
    assert project.table_counts()["pairs"] == 3


BROKEN = {
    "missing target": (
        [{k: v for k, v in TRAIN[0].items() if k != "target_hard"}, TRAIN[1]],
        "entry [0] (pairid 12063): missing key 'target_hard'",
    ),
    "unknown reference": (
        [TRAIN[0], {**TRAIN[1], "reference": "nowhere"}],
        "entry [1] (pairid 12064): unknown reference 'nowhere'",
    ),
    "duplicate pairid": (
        [TRAIN[0], {**TRAIN[1], "pairid": 12063}],
        "entry [1] (pairid 12063): duplicate pairid, first at entry [0]",
    ),
    "bad img_set": (
        [TRAIN[0], {**TRAIN[1], "img_set": ["a"]}],
        "entry [1] (pairid 12064): img_set",
    ),
    "string pairid": (
        [{**TRAIN[0], "pairid": "12063"}, TRAIN[1]],
        "entry [0] (pairid 12063): pairid must be an integer",
    ),
}


@pytest.mark.parametrize("kind", list(BROKEN))
def test_bad_entries_are_refused_with_file_and_entry(kind, project, tmp_path) -> None:
    entries, expected = BROKEN[kind]
    with pytest.raises(ValidationError) as error:
        import_cirr(project, write_cirr(tmp_path / "cirr", entries))
    assert f"captions/cap.rc2.train.json {expected}" in str(error.value)
    assert project.table_counts()["pairs"] == 0


def test_malformed_json_is_refused_and_skip_invalid_keeps_the_other_split(
    project, tmp_path
) -> None:
    root = write_cirr(tmp_path / "cirr", text='[{"pairid": 1,,}]')
    with pytest.raises(ValidationError, match=r"cap\.rc2\.train\.json: malformed JSON"):
        import_cirr(project, root)
    report = import_cirr(project, root, skip_invalid=True)
    assert report.pairs_added == 1 and len(report.problems) == 1


def test_command_line_import_and_export(tmp_path, capsys) -> None:
    root = write_cirr(tmp_path / "cirr")
    assert main(["import", "cirr", str(root), "--project", str(tmp_path / "p")]) == 0
    assert "Added 5 images, 3 pairs and 3 captions." in capsys.readouterr().out
    assert (
        main(["export", "cirr", "--project", str(tmp_path / "p"), str(tmp_path / "out"), "--json"])
        == 0
    )
    summary = json.loads(capsys.readouterr().out)
    assert summary["files"]["train"] == {"entries": 2, "gallery": 3}
