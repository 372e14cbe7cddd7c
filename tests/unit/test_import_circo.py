"""CIRCO on small hand-made files in the published layout: import, export, the authors'
metrics (mAP@K over every ground truth, Recall@K of the named target), submissions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from studio.circo.metrics import Query, SubmissionError, average_precision, read_submission, score
from studio.circo.runs import KIND, run_lines
from studio.cli.main import main
from studio.demo.placeholders import draw_placeholders
from studio.errors import ValidationError
from studio.exporters import export_circo
from studio.importers.circo import import_circo
from studio.pairs.ground_truths import correct_for_pair, correct_for_query
from studio.simulation.outputs import list_runs
from studio.store import Project
from studio.store.galleries import gallery
from studio.store.repos.ground_truths import ground_truths

VAL = [
    {
        "reference_img_id": 11,
        "target_img_id": 21,
        "relative_caption": "shows two dogs instead of one",
        "shared_concept": "a dog on a sofa",
        "gt_img_ids": [21, 22, 23],
        "id": 0,
        "semantic_aspects": ["cardinality", "addition"],
    },
    {
        "reference_img_id": 12,
        "target_img_id": 24,
        "relative_caption": "is seen from above",
        "shared_concept": "a red bus",
        "gt_img_ids": [24],
        "id": 1,
        "semantic_aspects": ["viewpoint"],
    },
]
TEST = [
    {"reference_img_id": 13, "relative_caption": "is at night", "shared_concept": "a bridge",
     "id": 0},
]
ON_DISK = [11, 12, 13, 21, 22, 24, 30, 31, 32]  # 23 is named as a ground truth but missing


def write_circo(root: Path, val: object = VAL) -> Path:
    (root / "annotations").mkdir(parents=True, exist_ok=True)
    (root / "annotations" / "val.json").write_text(json.dumps(val, indent=4))
    (root / "annotations" / "test.json").write_text(json.dumps(TEST, indent=4) + "\n")
    draw_placeholders(root / "COCO2017_unlabeled" / "unlabeled2017",
                      [f"{i:012d}.jpg" for i in ON_DISK], size=16)
    (root / "COCO2017_unlabeled" / "unlabeled2017" / "notes.txt").write_text("not an image")
    return root


def test_import_keeps_queries_ground_truths_and_the_gallery(tmp_path: Path) -> None:
    root = write_circo(tmp_path / "circo")
    with Project.create(tmp_path / "p", image_root=root) as project:
        report = import_circo(project, root)
        assert report.pairs_added == 3 and report.captions_added == 3
        assert report.missing_images == ["23"]
        assert gallery(project, "", "unlabeled2017") == [str(i) for i in sorted([*ON_DISK, 23])]
        pairs = {p["external_key"]: p for p in project.db.query("SELECT * FROM pairs")}
        assert pairs["val:0"]["target_id"] == "21" and pairs["val:0"]["reference_id"] == "11"
        assert pairs["test:0"]["target_id"] is None
        truths = ground_truths(project, [pairs["val:0"]["id"], pairs["test:0"]["id"]])
        assert truths == {pairs["val:0"]["id"]: ["21", "22", "23"]}
        image = project.image("12")
        assert image is not None and image.path.endswith("unlabeled2017/000000000012.jpg")
        assert project.image_path(image).is_file()
        assert correct_for_pair(project, pairs["val:0"]["id"]) == {"21", "22", "23"}
        assert correct_for_query(project, "11", "21") == {"21", "22", "23"}
        assert correct_for_query(project, "12", "21") == frozenset()  # another query
        again = import_circo(project, root)
        assert (again.images_added, again.pairs_added, again.captions_added) == (0, 0, 0)
        assert project.table_counts()["pairs"] == 3


def test_export_writes_the_files_back_as_they_were(tmp_path: Path) -> None:
    root = write_circo(tmp_path / "circo")
    with Project.create(tmp_path / "p", image_root=root) as project:
        import_circo(project, root)
        summary = export_circo(project, tmp_path / "out")
    assert summary["files"] == {"annotations/test.json": {"queries": 1},
                                "annotations/val.json": {"queries": 2}}
    for name in ("val.json", "test.json"):
        written = (tmp_path / "out" / "annotations" / name).read_text()
        assert written == (root / "annotations" / name).read_text()
    assert "gt_img_ids" not in (tmp_path / "out" / "annotations" / "test.json").read_text()


def test_a_bad_entry_is_refused_naming_file_and_entry_and_nothing_is_written(
    tmp_path: Path,
) -> None:
    bad = [VAL[0], {**VAL[1], "gt_img_ids": [24, 24]}, {**VAL[1], "id": 0}]
    root = write_circo(tmp_path / "circo", bad)
    with Project.create(tmp_path / "p", image_root=root) as project:
        with pytest.raises(ValidationError) as error:
            import_circo(project, root)
        message = str(error.value)
        assert "annotations/val.json entry [1] (id 1): gt_img_ids lists an image twice" in message
        assert "annotations/val.json entry [2] (id 0): duplicate id, first at entry [0]" in message
        assert project.table_counts()["pairs"] == 0 and project.count_images() == 0


def test_average_precision_divides_by_min_of_k_and_the_ground_truths() -> None:
    truths = [1, 2, 3]
    ranking = [1, 9, 2, 8, 3, 7]
    # hits at 1, 3, 5: precisions 1/1, 2/3, 3/5; divided by min(3, K)
    assert average_precision(ranking, truths, 5) == pytest.approx((1 + 2 / 3 + 3 / 5) / 3)
    assert average_precision(ranking, truths, 2) == pytest.approx(1 / 2)
    assert average_precision([9, 8], [5], 50) == 0.0
    queries = [Query(0, 1, (1, 2, 3), ("cardinality",)), Query(1, 5, (5,), ("viewpoint",))]
    report = score(queries, {0: ranking, 1: [9, 5]})
    assert report["mAP"]["5"] == pytest.approx(100 * ((1 + 2 / 3 + 3 / 5) / 3 + 1 / 2) / 2)
    assert report["recall"] == {"5": 100.0, "10": 100.0, "25": 100.0, "50": 100.0}
    assert report["semantic_mAP@10"]["viewpoint"] == pytest.approx(50.0)
    assert report["semantic_mAP@10"]["negation"] is None  # no query has it: null, not NaN


def test_a_submission_is_checked_as_the_server_checks_it() -> None:
    with pytest.raises(SubmissionError, match="query 1 has duplicate predictions"):
        read_submission({"0": [1, 2], "1": [3, 3]}, [0, 1], "sub.json")
    with pytest.raises(SubmissionError, match="1 queries missing"):
        read_submission({"0": [1, 2]}, [0, 1], "sub.json")
    assert read_submission({"1": ["7", 8], "0": []}, [0, 1], "s") == {1: [7, 8], 0: []}


def test_evaluate_circo_scores_a_submission_without_a_model(tmp_path: Path, capsys) -> None:
    root = write_circo(tmp_path / "circo")
    project = str(tmp_path / "p")
    assert main(["import", "circo", str(root), "--project", project]) == 0
    submission = tmp_path / "sub.json"
    submission.write_text(json.dumps({"0": [22, 99, 21], "1": [24]}))
    out = tmp_path / "figures.json"
    args = ["evaluate", "circo", "--project", project, "--predictions", str(submission)]
    assert main([*args, "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    # query 0: hits at 1 and 3 → (1 + 2/3) / 3; query 1: hit at 1 → 1
    assert report["mAP"]["10"] == pytest.approx(100 * ((1 + 2 / 3) / 3 + 1) / 2)
    assert report["recall"]["5"] == 100.0 and report["queries"] == 2
    assert "mAP@10:" in capsys.readouterr().out
    submission.write_text(json.dumps({"0": [22, 22], "1": [24]}))
    assert main(args) == 2
    assert "query 0 has duplicate predictions" in capsys.readouterr().err
    assert main(["evaluate", "circo", "--project", project, "--split", "test",
                 "--predictions", str(submission)]) == 2
    assert "authors keep the test ground truth" in capsys.readouterr().err


def test_evaluate_and_submission_with_the_demo_model(tmp_path: Path, capsys) -> None:
    root = write_circo(tmp_path / "circo")
    project = str(tmp_path / "p")
    assert main(["import", "circo", str(root), "--project", project]) == 0
    assert main(["index", "build", "--project", project, "--model", "demo"]) == 0
    out = tmp_path / "figures.json"
    assert main(["evaluate", "circo", "--project", project, "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["queries"] == 2 and report["gallery"] == len(ON_DISK)
    assert set(report["mAP"]) == {"5", "10", "25", "50"}
    assert all(0.0 <= value <= 100.0 for value in report["mAP"].values())
    sub = tmp_path / "submission"
    assert main(["export", "circo-submission", "--project", project, str(sub)]) == 0
    data = json.loads((sub / "circo_test_submission.json").read_text())
    assert list(data) == ["0"] and sorted(data["0"]) == sorted(ON_DISK)  # gallery < 50
    val = tmp_path / "val.json"
    assert main(["export", "circo-submission", "--project", project, "--split", "val",
                 str(val)]) == 0
    capsys.readouterr()
    assert main(["evaluate", "circo", "--project", project, "--predictions", str(val),
                 "--json", str(tmp_path / "again.json")]) == 0
    again = json.loads((tmp_path / "again.json").read_text())
    assert again["mAP"] == report["mAP"] and again["recall"] == report["recall"]
    with Project.open(Path(project)) as opened:
        runs = list_runs(opened, KIND)
    assert [r["summary"]["queries"] for r in runs] == [2, 2]
    assert run_lines(runs[1])[1] == f"CIRCO val · submission {val}"
    assert run_lines(runs[0])[3].startswith("mAP@10 ")
