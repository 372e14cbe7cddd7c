"""Image measures are a job of their own: kept as they go, never made inside a session."""

from __future__ import annotations

from pathlib import Path

import pytest

from studio import image_measures as measures_module
from studio.image_measures import ImageMeasures, measure_images, read_cache
from studio.jobs import CancelToken, JobCancelled
from studio.sessions.setup import load_session_context
from studio.store import Project


@pytest.fixture
def project(demo_project_dir: Path):
    with Project.open(demo_project_dir) as opened:
        yield opened


def test_a_cancelled_pass_keeps_what_it_measured(project: Project, monkeypatch) -> None:
    monkeypatch.setattr(measures_module, "FLUSH_EVERY", 10)
    token = CancelToken()
    real = measures_module.measure_file
    calls = {"n": 0}

    def counting(path):
        calls["n"] += 1
        if calls["n"] == 25:
            token.cancel()
        return real(path)

    monkeypatch.setattr(measures_module, "measure_file", counting)
    with pytest.raises(JobCancelled):
        measure_images(project, cancel=token)  # the person cancels after 25 images
    kept = read_cache(project)
    assert len(kept) == 25  # measured before the cancel, all written
    report = measure_images(project)
    assert report.known == 25 and report.measured == 60 - 25
    assert calls["n"] == 60  # the second pass measured only the rest


def test_a_missing_file_is_recorded_once_and_not_tried_again(project: Project) -> None:
    first = next(iter(project.iter_images()))
    project.image_path(first).unlink()
    report = measure_images(project)
    assert report.unreadable == 1 and report.measured == 59
    again = measure_images(project)
    assert (again.measured, again.unreadable, again.known) == (0, 0, 60)


def test_opening_a_session_measures_nothing_and_says_what_is_missing(
    indexed_demo_dir: Path, monkeypatch
) -> None:
    with Project.open(indexed_demo_dir) as project:
        measured = ImageMeasures(project).coverage()
        assert measured[0] == 60  # building the index measured every picture

        for file in project.cache_dir.joinpath("measures").iterdir():
            file.unlink()

        def refuse(_path):
            raise AssertionError("a picture was decoded while a session opened")

        monkeypatch.setattr(measures_module, "measure_file", refuse)
        context = load_session_context(project, "demo", "cpu")
        session = context.new_session("history", k=10)
        reference = next(iter(project.iter_images())).id
        turn = session.composed_turn("is darker", reference_id=reference)
        assert len(turn.results) == 10  # ranked with what there is
        assert "measured for 0 of 60 images" in turn.note


def picture_folder(folder: Path, count: int) -> Path:
    from PIL import Image

    folder.mkdir()
    for number in range(count):
        colour = (number % 256, number // 256 * 40, 90)  # a different file each
        Image.new("RGB", (40, 50), colour).save(folder / f"new-{number:04}.png")
    return folder


def test_an_import_measures_its_pictures_without_an_index(project: Project, tmp_path: Path) -> None:
    from studio.importers import import_folder

    report = import_folder(project, picture_folder(tmp_path / "new", 12))
    assert report.images_added == 12
    assert report.measures is not None and report.measures.measured == 12
    measures = ImageMeasures(project)
    assert measures.value("new-0003", "lightness") is not None
    assert measures.value("new-0003", "colorful") is not None
    # The demo's own 60 pictures came without an import: building the index measures them.
    assert measures.coverage() == (12, 60, 72)


def test_a_cancelled_import_measure_keeps_the_import_and_what_it_measured(
    project: Project, tmp_path: Path
) -> None:
    from studio.importers import import_folder

    token = CancelToken()

    def progress(done: int, total: int, message: str = "") -> None:
        if message.startswith("Measuring"):
            token.cancel()  # the person cancels at the first measuring report (200 images)

    report = import_folder(
        project, picture_folder(tmp_path / "new", 300), progress=progress, cancel=token
    )
    assert report.images_added == 300  # committed before measuring began: kept
    assert report.measures is not None and report.measures.stopped
    assert report.measures.measured == 200
    measured, pending, _total = ImageMeasures(project).coverage()
    assert measured == 200 and pending == 60 + 100
    again = measure_images(project)  # the rest is measured later, the 200 are not again
    assert (again.known, again.measured) == (200, 160)


def test_a_picture_found_after_it_was_recorded_missing_is_measured(project: Project) -> None:
    from PIL import Image

    from studio.picture_files import set_image_folder
    from studio.store.records import ImageRecord

    # Imported without its picture (as Fashion IQ is): no content hash, keyed by id.
    project.add_images([ImageRecord(id="late", path="late/late.png", missing=True)])
    first = measure_images(project)
    assert first.unreadable == 1
    assert measure_images(project).unreadable == 0  # recorded once, not tried again
    (project.image_root / "late").mkdir()
    Image.new("RGB", (40, 50), (200, 30, 30)).save(project.image_root / "late" / "late.png")
    set_image_folder(project, project.image_root, "tester")  # the person points at the pictures
    assert ImageMeasures(project).coverage()[1] == 1  # pending again, without reading a file
    again = measure_images(project)
    assert again.measured == 1
    assert ImageMeasures(project).value("late", "colorful") is not None
    assert measure_images(project).measured == 0
