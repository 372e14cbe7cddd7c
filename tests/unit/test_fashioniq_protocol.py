"""``evaluate fashioniq``: one split, each category over its own gallery, the paper's table."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from studio.cli.main import main
from studio.demo.placeholders import draw_placeholders
from studio.store import Project

CATEGORIES = ("dress", "shirt", "toptee")
SHARED = [f"SH{i}" for i in range(4)]  # in the shirt and the toptee gallery, as in Fashion IQ


def generated_dataset(root: Path) -> dict[str, list[str]]:
    """val galleries of 20 images (shirt and toptee sharing 4), 6 pairs each, plus a test
    split without targets; returns the galleries."""
    galleries = {c: [f"{c[0].upper()}{i:03d}" for i in range(16)] for c in CATEGORIES}
    galleries["dress"] += [f"D{i:03d}" for i in range(16, 20)]
    galleries["shirt"] += SHARED
    galleries["toptee"] += SHARED
    for category, ids in galleries.items():
        entries = [
            {
                "target": ids[(2 * i + 5) % len(ids)],
                "candidate": ids[2 * i],
                "captions": ["is darker", "has a different print"],
            }
            for i in range(6)
        ]
        if category == "toptee":  # a target only the shared part of the gallery holds
            entries.append(
                {
                    "target": SHARED[0],
                    "candidate": ids[1],
                    "captions": ["is plain", "shorter sleeves"],
                }
            )
        write(root / f"captions/cap.{category}.val.json", entries)
        write(root / f"image_splits/split.{category}.val.json", ids)
    write(
        root / "captions/cap.dress.test.json",
        [{"candidate": "X1", "captions": ["is red", "longer"]}],
    )
    write(root / "image_splits/split.dress.test.json", ["X1", "X2"])
    return galleries


def write(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=4))


@pytest.fixture(scope="module")
def indexed(tmp_path_factory) -> tuple[Path, dict[str, list[str]]]:
    folder = tmp_path_factory.mktemp("fiq")
    galleries = generated_dataset(folder / "fiq")
    category_of = {i: c for c, ids in galleries.items() for i in ids}
    draw_placeholders(folder / "images", sorted(category_of), category_of=category_of)
    project = folder / "p"
    assert (
        main(
            [
                "import",
                "fashioniq",
                str(folder / "fiq"),
                "--project",
                str(project),
                "--images",
                str(folder / "images"),
            ]
        )
        == 0
    )
    assert main(["index", "build", "--project", str(project), "--model", "demo"]) == 0
    return project, galleries


def test_each_category_is_searched_in_exactly_its_split_files_gallery(
    indexed, tmp_path, capsys
) -> None:
    project, galleries = indexed
    capsys.readouterr()
    out = tmp_path / "fiq.json"
    assert main(["evaluate", "fashioniq", "--project", str(project), "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    report = json.loads(out.read_text())
    assert set(report) == {"split", "categories", "average"} and report["split"] == "val"
    for category in CATEGORIES:
        row = report["categories"][category]
        assert set(row) == {"R@10", "R@50", "queries", "gallery"}
        assert row["gallery"] == len(galleries[category]) == 20
        assert row["queries"] == (7 if category == "toptee" else 6)
        assert row["R@50"] == 100.0  # the gallery is smaller than 50: every target is found
        assert 0.0 <= row["R@10"] <= 100.0
    average = report["average"]
    assert average["R@10"] == pytest.approx(
        sum(report["categories"][c]["R@10"] for c in CATEGORIES) / 3, abs=1e-3
    )
    assert average["score"] == pytest.approx((average["R@10"] + average["R@50"]) / 2, abs=1e-3)
    assert "NaN" not in out.read_text()
    lines = printed.splitlines()
    assert lines[1].split() == ["category", "R@10", "R@50", "queries", "gallery"]
    assert lines[2].split()[0] == "dress" and lines[2].split()[-2:] == ["6", "20"]
    assert lines[-1].startswith("score (R@10 + R@50) / 2 =")
    with Project.open(project) as opened:
        kinds = [r[0] for r in opened.db.execute("SELECT kind FROM experiment_runs")]
    assert "evaluate-fashioniq" in kinds


def test_one_category_and_a_split_without_targets(indexed, tmp_path, capsys) -> None:
    project, _ = indexed
    out = tmp_path / "shirt.json"
    assert (
        main(
            [
                "evaluate",
                "fashioniq",
                "--project",
                str(project),
                "--category",
                "shirt",
                "--json",
                str(out),
            ]
        )
        == 0
    )
    assert list(json.loads(out.read_text())["categories"]) == ["shirt"]
    with Project.open(project) as opened:
        before = opened.db.execute("SELECT count(*) FROM experiment_runs").fetchone()[0]
    capsys.readouterr()
    assert main(["evaluate", "fashioniq", "--project", str(project), "--split", "test"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Fashion IQ test" in err and "no captioned pair" in err
    with Project.open(project) as opened:
        after = opened.db.execute("SELECT count(*) FROM experiment_runs").fetchone()[0]
    assert after == before  # nothing stored


def test_without_image_files_it_says_so_and_stores_nothing(tmp_path, capsys) -> None:
    generated_dataset(tmp_path / "fiq")
    project = tmp_path / "p"
    assert (
        main(
            [
                "import",
                "fashioniq",
                str(tmp_path / "fiq"),
                "--project",
                str(project),
                "--images",
                str(tmp_path / "none"),
            ]
        )
        == 0
    )
    capsys.readouterr()
    assert main(["evaluate", "fashioniq", "--project", str(project)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Fashion IQ" in err and "Traceback" not in err
    assert "no index for model 'demo'" in err
    # No picture file at all: the index build refuses and says why (#27 D6) …
    assert main(["index", "build", "--project", str(project), "--model", "demo"]) == 2
    assert "picture file" in capsys.readouterr().err
    # … so evaluating still names the missing index, writes nothing and stores nothing.
    assert (
        main(
            [
                "evaluate",
                "fashioniq",
                "--project",
                str(project),
                "--category",
                "dress",
                "--json",
                str(tmp_path / "r.json"),
            ]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert "Fashion IQ" in err and "Traceback" not in err
    assert not (tmp_path / "r.json").exists()
    with Project.open(project) as opened:
        assert opened.db.execute("SELECT count(*) FROM experiment_runs").fetchone()[0] == 0


def test_cirr_without_images_exits_2_and_prints_no_nan(tmp_path, capsys) -> None:
    root = tmp_path / "cirr"
    write(root / "image_splits/split.rc2.val.json", {"a": "./dev/a.png", "b": "./dev/b.png"})
    write(
        root / "captions/cap.rc2.val.json",
        [
            {
                "pairid": 1,
                "reference": "a",
                "target_hard": "b",
                "target_soft": {"b": 1.0},
                "caption": "is b",
                "img_set": {"id": 1, "members": ["a", "b"]},
            },
        ],
    )
    project = tmp_path / "p"
    assert main(["import", "cirr", str(root), "--project", str(project)]) == 0
    assert main(["index", "build", "--project", str(project), "--model", "demo"]) == 2
    assert "picture file" in capsys.readouterr().err
    assert main(["evaluate", "cirr", "--project", str(project)]) == 2
    captured = capsys.readouterr()
    assert "NaN" not in captured.out + captured.err
    assert captured.err.startswith("cir-studio: error: CIRR: nothing to evaluate")
    assert captured.err.count("\n") == 1
    with Project.open(project) as opened:
        assert opened.db.execute("SELECT count(*) FROM experiment_runs").fetchone()[0] == 0


def test_no_estimate_is_ever_nan() -> None:
    from studio.simulation.metrics import recall_at

    value = recall_at([], 10).to_json()
    assert value["value"] is None and not any(
        isinstance(v, float) and math.isnan(v) for v in value.values()
    )
