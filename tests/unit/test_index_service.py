"""The project's embedding cache and index: build, resume, keep in step, query, CLI."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from studio.embeddings import EmbeddingCache, embed_project_images
from studio.errors import StudioError
from studio.hashing import file_digest
from studio.index_service import (
    ProjectIndex,
    build_index,
    compose,
    index_status,
)
from studio.jobs import CancelToken, JobCancelled
from studio.store import Project
from studio.store.records import ImageRecord


@pytest.fixture
def project(demo_project_dir: Path):
    with Project.open(demo_project_dir) as opened:
        yield opened


def test_build_embeds_once_then_reuses_the_cache(project: Project, demo_model) -> None:
    first = build_index(project, demo_model)
    assert (first.indexed, first.embedded, first.cached, first.added) == (60, 60, 0, 60)
    second = build_index(project, demo_model)
    assert (second.indexed, second.embedded, second.cached) == (60, 0, 60)
    assert (second.added, second.removed) == (0, 0)
    status = index_status(project, "demo")
    assert status["built"] and status["indexed"] == 60 and status["to_add"] == 0


def test_status_before_any_build(project: Project) -> None:
    status = index_status(project, "demo")
    assert status == {"model": "demo", "project_images": 60, "missing_files": 0, "built": False}


def test_text_query_with_filters(project: Project, demo_model) -> None:
    build_index(project, demo_model)
    index = ProjectIndex.load(project, demo_model)
    hits = index.query(text="red dress", k=5)
    assert len(hits) == 5 and [h.score for h in hits] == sorted(
        (h.score for h in hits), reverse=True
    )
    shirts = index.query(text="red dress", k=50, category="shirt")
    categories = {project.image(hit.id).category for hit in shirts}
    assert categories == {"shirt"} and len(shirts) == project.count_images(category="shirt")
    tests = index.query(text="top", k=3, split="test", category="toptee")
    assert all(project.image(h.id).split == "test" for h in tests) and len(tests) == 3
    chosen = ["dress-00001", "shirt-00002", "toptee-00003"]
    assert {h.id for h in index.query(text="anything", k=10, ids=chosen)} == set(chosen)


def test_image_and_composed_queries(project: Project, demo_model) -> None:
    build_index(project, demo_model)
    index = ProjectIndex.load(project, demo_model)
    top = index.query(image="dress-00004", k=3)
    assert top[0].id == "dress-00004" and top[0].score == pytest.approx(1.0, abs=1e-4)
    without = index.query(image="dress-00004", k=3, exclude=["dress-00004"])
    assert "dress-00004" not in {h.id for h in without} and len(without) == 3
    file_query = index.query(image=project.image_path(project.image("dress-00004")), k=1)
    assert file_query[0].id == "dress-00004"
    composed = index.query(text="in blue", image="dress-00004", k=4)
    assert len(composed) == 4
    with pytest.raises(StudioError, match="neither an image id"):
        index.query(image="no-such-image", k=1)


def test_compose_is_unit_length() -> None:
    import numpy as np

    vector = compose([np.array([1.0, 0.0]), np.array([0.0, 1.0])])
    assert np.allclose(vector, [2**-0.5, 2**-0.5])


def test_added_and_changed_images_update_the_index(project: Project, demo_model) -> None:
    build_index(project, demo_model)
    root = project.image_root
    shutil.copy(root / "images/dress-00000.jpg", root / "images/new-copy.jpg")
    project.add_images(
        [
            ImageRecord(
                id="new-copy",
                path="images/new-copy.jpg",
                category="dress",
                split="train",
                content_hash=file_digest(root / "images/new-copy.jpg"),
            )
        ]
    )
    assert index_status(project, "demo")["to_add"] == 1
    report = build_index(project, demo_model)
    assert (report.added, report.removed, report.embedded) == (1, 0, 0)  # same bytes: cached
    shutil.copy(root / "images/shirt-00000.jpg", root / "images/dress-00001.jpg")
    changed = replace(
        project.image("dress-00001"), content_hash=file_digest(root / "images/dress-00001.jpg")
    )
    project.add_images([changed], replace=True)
    report = build_index(project, demo_model)
    assert (report.added, report.removed, report.indexed) == (1, 1, 61)
    index = ProjectIndex.load(project, demo_model)
    assert index.query(image="shirt-00000", k=2)[1].score == pytest.approx(1.0, abs=1e-4)


def test_unreadable_images_are_skipped_and_remembered(project: Project, demo_model) -> None:
    root = project.image_root
    (root / "images/broken.jpg").write_bytes(b"\xff\xd8 not really")
    project.add_images(
        [
            ImageRecord(
                id="broken",
                path="images/broken.jpg",
                content_hash=file_digest(root / "images/broken.jpg"),
            )
        ]
    )
    report = build_index(project, demo_model)
    assert report.indexed == 60 and [i for i, _ in report.skipped] == ["broken"]
    again = build_index(project, demo_model)
    assert again.embedded == 0 and [i for i, _ in again.skipped] == ["broken"]


def test_cancelled_embedding_resumes(project: Project, demo_model) -> None:
    token = CancelToken()

    def progress(done: int, total: int, message: str = "") -> None:
        if done >= 16:
            token.cancel()

    with pytest.raises(JobCancelled):
        embed_project_images(project, demo_model, batch_size=16, progress=progress, cancel=token)
    resumed = embed_project_images(project, demo_model, batch_size=16)
    assert resumed.cached == 16 and resumed.embedded == 44


def test_cache_refuses_another_model(tmp_path: Path) -> None:
    EmbeddingCache(tmp_path, "model-a", 8).close()
    with pytest.raises(StudioError, match="belongs to model 'model-a'"):
        EmbeddingCache(tmp_path, "model-b", 8)


def test_query_without_index_explains(project: Project, demo_model) -> None:
    with pytest.raises(StudioError, match="index build"):
        ProjectIndex.load(project, demo_model)


def test_approximate_and_torch_kinds(project: Project, demo_model) -> None:
    for kind in ("ivf", "torch"):
        report = build_index(project, demo_model, kind, device="cpu", rebuild=True)
        assert report.kind == kind and report.indexed == 60
        index = ProjectIndex.load(project, demo_model, "cpu")
        assert (
            index.index.kind == kind
            and index.query(image="toptee-00002", k=1)[0].id == "toptee-00002"
        )


def test_cli_build_status_query(demo_project_dir: Path, tmp_path: Path, capsys) -> None:
    from studio.cli.main import main

    project = str(demo_project_dir)
    assert (
        main(
            ["index", "build", "--project", project, "--model", "demo", "--device", "cpu", "--json"]
        )
        == 0
    )
    assert json.loads(capsys.readouterr().out)["indexed"] == 60
    assert main(["index", "status", "--project", project, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["indexed"] == 60
    assert (
        main(["index", "query", "--project", project, "--text", "red dress", "--k", "3", "--json"])
        == 0
    )
    hits = json.loads(capsys.readouterr().out)
    assert len(hits) == 3 and set(hits[0]) == {"id", "score"}
    queries = tmp_path / "queries.txt"
    queries.write_text("red dress\n\nblue shirt with long sleeves\n")
    assert (
        main(["index", "query", "--project", project, "--queries", str(queries), "--k", "2"]) == 0
    )
    lines = capsys.readouterr().out.strip().splitlines()
    assert [len(json.loads(line)) for line in lines] == [2, 0, 2]
    assert main(["index", "query", "--project", project, "--model", "nope:x", "--text", "red"]) == 2
    assert "Unsupported model backend 'nope'" in capsys.readouterr().err


def test_cache_reads_numbered_shards_of_older_caches(tmp_path: Path) -> None:
    import sqlite3

    import numpy as np

    db = sqlite3.connect(tmp_path / "keys.sqlite")
    db.execute("CREATE TABLE vectors (hash TEXT PRIMARY KEY, shard INTEGER, row INTEGER)")
    db.execute("INSERT INTO vectors VALUES ('old', 1, 2)")
    db.commit()
    db.close()
    np.save(tmp_path / "shard-000001.npy", np.eye(4, dtype=np.float32))
    cache = EmbeddingCache(tmp_path, "model-a", 4)
    cache.put(["new"], np.ones((1, 4), np.float32))
    found, vectors = cache.get(["old", "new", "absent"])
    cache.close()
    assert found.tolist() == [True, True, False]
    assert vectors.tolist() == [[0, 0, 1, 0], [1, 1, 1, 1]]
