"""Embedding mining and the ranking export, through the project's index (demo model)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from studio.captions import store
from studio.exporters.ranking import export_ranking, joined_captions
from studio.pairs.mining import mine_pairs
from studio.store import Project


def test_captions_are_joined_as_fashion_iq_does() -> None:
    assert joined_captions(["is red.", "has longer sleeves"]) == ("is red and has longer sleeves")


@pytest.fixture
def project(demo_project_dir: Path, demo_model):
    with Project.open(demo_project_dir) as opened:
        yield opened


def test_embedding_mining_pairs_nearest_images_of_one_group(project) -> None:
    report = mine_pairs(project, "embedding", 10, model="demo", device="cpu")
    assert report.added == 10
    rows = project.db.execute(
        "SELECT r.category, r.split, t.category, t.split, p.method, p.score, "
        "p.reference_id != p.target_id FROM pairs p JOIN images r ON r.id = p.reference_id "
        "JOIN images t ON t.id = p.target_id"
    ).fetchall()
    for ref_cat, ref_split, tgt_cat, tgt_split, method, score, distinct in rows:
        assert (ref_cat, ref_split, method, distinct) == (tgt_cat, tgt_split, "embedding", 1)
        assert -1.0 <= score <= 1.0001


def test_ranking_export_lists_top_ids_of_the_gallery(project, tmp_path) -> None:
    mine_pairs(project, "tfidf", 6)
    pair_ids = [r[0] for r in project.db.execute("SELECT id FROM pairs")]
    for pair_id in pair_ids:
        store.submit_caption(project, pair_id, "ana", "is red")
        store.submit_caption(project, pair_id, "ben", "has longer sleeves")
    summary = export_ranking(project, tmp_path / "out", model="demo", device="cpu", k=5)
    assert sum(f["entries"] for f in summary["files"].values()) == len(pair_ids)
    name, counts = next(iter(summary["files"].items()))
    entries = json.loads((tmp_path / "out" / f"ranking.{name}.json").read_text())
    entry = entries[0]
    assert list(entry) == ["target", "candidate", "captions", "ranking"]
    assert len(entry["ranking"]) == min(5, project.count_images(*name.split(".")))
    category, split = name.split(".")
    gallery = {image.id for image in project.iter_images(category, split)}
    assert set(entry["ranking"]) <= gallery
    assert 0.0 <= counts["recall@5"] <= 1.0
