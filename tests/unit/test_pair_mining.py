"""Pair mining: Fashion IQ's TF-IDF title overlap, worked out by hand on a tiny catalog."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from studio.cli.main import main
from studio.errors import StudioError
from studio.pairs.mining import allocate, mine_pairs
from studio.pairs.tfidf import TitleTfidf, title_words
from studio.store import Project
from studio.store.records import ImageRecord

TITLES = [
    "Red Floral Maxi Dress",  # 0
    "Blue Floral Maxi Dress",  # 1
    "Red Striped Mini Dress",  # 2
    "Green Plain Dress",  # 3
]


def test_tfidf_weights_and_best_reference_by_hand() -> None:
    model = TitleTfidf(TITLES)
    ln2, ln4 = math.log(2), math.log(4)
    # "dress" is in every title and weighs nothing; "red" is in two of four.
    assert model.weights[0] == pytest.approx({"red": ln2, "floral": ln2, "maxi": ln2, "dress": 0.0})
    assert model.weights[3]["green"] == pytest.approx(ln4)
    # Target 0 shares floral+maxi with 1 (2·ln2 each way) but only red with 2.
    scores = model.scores(0)
    assert scores[1] == pytest.approx(4 * ln2) and scores[2] == pytest.approx(2 * ln2)
    assert scores[3] == 0 and scores[0] == -math.inf
    assert model.best_reference(0) == (1, pytest.approx(4 * ln2))
    assert model.best_reference(2) == (0, pytest.approx(2 * ln2))
    # Only "dress" in common with anything: no informative overlap, no pair.
    assert model.best_reference(3) is None


def test_title_words_drop_filler() -> None:
    assert title_words("Women's Red-Dress with a V-Neck, size M") == ["red", "dress", "neck"]


def catalog(
    project: Project,
    titles: list[str],
    category: str = "dress",
    split: str = "train",
    prefix: str = "",
    hashes: list[str] | None = None,
) -> None:
    project.add_images(
        ImageRecord(
            id=f"{prefix}{i}",
            path=f"{prefix}{i}.jpg",
            title=t,
            category=category,
            split=split,
            content_hash=hashes[i] if hashes else None,
        )
        for i, t in enumerate(titles)
    )


@pytest.fixture
def project(tmp_path: Path) -> Project:
    with Project.create(tmp_path / "project") as opened:
        yield opened


def test_mined_pairs_keep_method_and_score_and_best_targets_come_first(project) -> None:
    catalog(project, TITLES)
    report = mine_pairs(project, "tfidf", 2, mirrored=True)
    assert report.added == 2
    rows = project.db.execute(
        "SELECT reference_id, target_id, method, round(score, 4), category, split FROM pairs "
        "ORDER BY score DESC, target_id"
    ).fetchall()
    four_ln2 = round(4 * math.log(2), 4)
    assert rows == [
        ("1", "0", "tfidf", four_ln2, "dress", "train"),
        ("0", "1", "tfidf", four_ln2, "dress", "train"),
    ]


def test_mirrored_pairs_only_when_asked(project) -> None:
    catalog(project, TITLES)
    report = mine_pairs(project, "tfidf", 2)
    assert report.added == 2  # 0 and 1 are each other's best: paired once; then 0 → 2
    rows = project.db.execute("SELECT reference_id, target_id FROM pairs").fetchall()
    assert sorted(rows) == [("0", "2"), ("1", "0")]


def test_mining_again_extends_instead_of_repeating(project) -> None:
    catalog(project, TITLES)
    mine_pairs(project, "tfidf", 2, mirrored=True)
    again = mine_pairs(project, "tfidf", 5, mirrored=True)
    assert again.added == 1  # only target 2 is left with an informative overlap
    targets = [r[0] for r in project.db.execute("SELECT target_id FROM pairs ORDER BY id")]
    assert sorted(targets) == ["0", "1", "2"]


def test_pairs_stay_within_category_and_split_and_skip_copies(project) -> None:
    catalog(project, TITLES, hashes=["h0", "h0", "h2", "h3"])
    catalog(
        project,
        ["Red Floral Maxi Dress", "Red Floral Midi Dress", "Black Leather Jacket"],
        split="val",
        prefix="v",
    )
    mine_pairs(project, "tfidf", 10)
    pairs = project.db.execute("SELECT reference_id, target_id, split FROM pairs").fetchall()
    assert all((r[0].startswith("v")) == (r[1].startswith("v")) for r in pairs)
    assert ("1", "0", "train") not in pairs  # same image bytes are not a pair
    assert ("v1", "v0", "val") in pairs


def test_allocation_is_proportional_and_exact() -> None:
    quotas = allocate(10, {("a", "train"): 70, ("a", "val"): 15, ("b", "val"): 15})
    assert sum(quotas.values()) == 10 and quotas[("a", "train")] == 7


def test_unknown_method_and_missing_index_are_clear(project) -> None:
    catalog(project, TITLES)
    with pytest.raises(StudioError, match="The available methods are tfidf, embedding"):
        mine_pairs(project, "bm25", 3)
    with pytest.raises(StudioError, match="at least one pair"):
        mine_pairs(project, "tfidf", 0)


def test_command_line_mines_pairs(tmp_path, capsys) -> None:
    with Project.create(tmp_path / "p") as project:
        catalog(project, TITLES)
    assert (
        main(
            [
                "pairs",
                "mine",
                "--project",
                str(tmp_path / "p"),
                "--method",
                "tfidf",
                "--count",
                "3",
                "--mirrored",
                "--json",
            ]
        )
        == 0
    )
    assert json.loads(capsys.readouterr().out) == {
        "method": "tfidf",
        "added": 3,
        "per_group": {"dress/train": 3},
    }


def _unordered_duplicates(project: Project) -> int:
    rows = project.db.execute("SELECT reference_id, target_id FROM pairs").fetchall()
    return len(rows) - len({frozenset(row) for row in rows})


def test_mining_pairs_two_images_once_unless_mirrors_are_asked_for(
    demo_project_dir: Path, tmp_path: Path
) -> None:
    import shutil

    from studio.pairs.mining import mine_pairs

    mirrored_copy = tmp_path / "mirrored"
    shutil.copytree(demo_project_dir, mirrored_copy)
    with Project.open(mirrored_copy) as project:
        mine_pairs(project, "tfidf", 60, mirrored=True)
        assert _unordered_duplicates(project) > 0  # the demo has look-alikes: A→B and B→A
    with Project.open(demo_project_dir) as project:
        report = mine_pairs(project, "tfidf", 60)
        assert report.added > 0
        assert _unordered_duplicates(project) == 0
        mine_pairs(project, "tfidf", 60)  # a second run adds no mirror of the first's pairs
        assert _unordered_duplicates(project) == 0


def test_pairs_mine_has_a_mirrored_flag(demo_project_dir: Path, capsys) -> None:
    assert (
        main(
            [
                "pairs",
                "mine",
                "--count",
                "60",
                "--mirrored",
                "--json",
                "--project",
                str(demo_project_dir),
            ]
        )
        == 0
    )
    with Project.open(demo_project_dir) as project:
        assert _unordered_duplicates(project) > 0
