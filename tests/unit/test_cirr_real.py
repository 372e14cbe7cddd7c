"""CIRR on the real slice (the first 400 val entries, the whole val split) and the test
server's submission files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from studio.cli.main import main
from studio.demo.placeholders import draw_placeholders
from studio.exporters import export_cirr
from studio.importers import import_cirr
from studio.store import Project


def test_the_real_val_files_import_with_exact_counts_and_round_trip(
    cirr_fixtures: Path, tmp_path: Path
) -> None:
    captions = json.loads((cirr_fixtures / "captions/cap.rc2.val.json").read_text())
    split = json.loads((cirr_fixtures / "image_splits/split.rc2.val.json").read_text())
    # The project's image root is elsewhere: paths still come back as the file wrote them.
    with Project.create(tmp_path / "p") as project:
        report = import_cirr(project, cirr_fixtures)
        counts = report.groups[("", "val")]
        assert (
            (counts["entries"], counts["captions"], counts["gallery"])
            == (len(captions), len(captions), len(split))
            == (400, 400, 2297)
        )
        assert report.problems == [] and project.count_images(split="val") == len(split)
        export_cirr(project, tmp_path / "out")
    for name in ("captions/cap.rc2.val.json", "image_splits/split.rc2.val.json"):
        assert (tmp_path / "out" / name).read_bytes() == (cirr_fixtures / name).read_bytes()


TEST1 = [
    {
        "pairid": 100 + n,
        "reference": f"test1-{n}-img0",
        "caption": caption,
        "img_set": {"id": n, "members": [f"test1-{n}-img{m}" for m in range(6)]},
    }
    for n, caption in enumerate(["is red", "has long sleeves", "is shorter", "is blue"])
]


@pytest.fixture
def test1_project(tmp_path: Path) -> Path:
    root = tmp_path / "cirr"
    names = [f"test1-{n}-img{m}" for n in range(4) for m in range(6)]
    names += [f"test1-x-{i}" for i in range(40)]
    split = {name: f"./test1/{name}.png" for name in names}
    for folder, data in (
        ("captions/cap.rc2.test1.json", TEST1),
        ("image_splits/split.rc2.test1.json", split),
    ):
        (root / folder).parent.mkdir(parents=True, exist_ok=True)
        (root / folder).write_text(json.dumps(data))
    draw_placeholders(root / "img_raw", split.values())
    project = tmp_path / "p"
    assert main(["import", "cirr", str(root), "--project", str(project)]) == 0
    assert main(["index", "build", "--project", str(project), "--model", "demo"]) == 0
    return project


def test_submission_files_have_the_servers_shape(test1_project: Path, tmp_path: Path) -> None:
    out = tmp_path / "submission"
    assert main(["export", "cirr-submission", "--project", str(test1_project), str(out)]) == 0
    recall = json.loads((out / "test1_pred_ranks_recall.json").read_text())
    subset = json.loads((out / "test1_pred_ranks_recall_subset.json").read_text())
    assert list(recall)[:2] == ["version", "metric"] and recall["version"] == "rc2"
    assert recall["metric"] == "recall" and subset["metric"] == "recall_subset"
    assert set(recall) - {"version", "metric"} == {str(e["pairid"]) for e in TEST1}
    assert set(subset) == set(recall)
    for entry in TEST1:
        key, reference = str(entry["pairid"]), entry["reference"]
        ranking = recall[key]
        assert len(ranking) == 50 and len(set(ranking)) == 50 and reference not in ranking
        top = subset[key]
        assert len(top) == 3 and reference not in top
        assert set(top) <= set(entry["img_set"]["members"])


def test_submission_on_the_real_val_slice_keeps_one_key_per_pair(
    cirr_fixtures: Path, tmp_path: Path
) -> None:
    captions = json.loads((cirr_fixtures / "captions/cap.rc2.val.json").read_text())
    split = json.loads((cirr_fixtures / "image_splits/split.rc2.val.json").read_text())
    wanted = sorted({m for e in captions[:30] for m in e["img_set"]["members"]})
    draw_placeholders(tmp_path / "img", [split[name] for name in wanted])
    project = tmp_path / "p"
    assert (
        main(
            [
                "import",
                "cirr",
                str(cirr_fixtures),
                "--project",
                str(project),
                "--images",
                str(tmp_path / "img"),
            ]
        )
        == 0
    )
    assert main(["index", "build", "--project", str(project), "--model", "demo"]) == 0
    out = tmp_path / "out"
    assert (
        main(["export", "cirr-submission", "--project", str(project), "--split", "val", str(out)])
        == 0
    )
    recall = json.loads((out / "val_pred_ranks_recall.json").read_text())
    assert len(recall) - 2 == len(captions) == 400
    first = captions[0]
    assert first["reference"] not in recall[str(first["pairid"])]
    assert len(recall[str(first["pairid"])]) == min(50, len(wanted) - 1)
