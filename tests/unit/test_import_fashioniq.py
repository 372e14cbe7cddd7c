"""Fashion IQ import and export on the real validation files, and on broken copies of them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image

from studio.cli.main import main
from studio.errors import ValidationError
from studio.exporters import export_fashioniq
from studio.importers import ImportValidationError, import_fashioniq
from studio.jobs import CancelToken, JobCancelled
from studio.store import Project
from studio.store.galleries import gallery as gallery_of

EXPECTED = {
    "dress": (2017, 4034, 3817),
    "shirt": (2038, 4076, 6346),
    "toptee": (1961, 3922, 5373),
}
FILES = [
    "captions/cap.dress.val.json",
    "captions/cap.shirt.val.json",
    "image_splits/split.dress.val.json",
    "image_splits/split.shirt.val.json",
    "captions/cap.toptee.val.json",
    "image_splits/split.toptee.val.json",
]


@pytest.fixture
def project(tmp_path: Path) -> Project:
    with Project.create(tmp_path / "project") as opened:
        yield opened


def small_set(fixtures: Path, root: Path, entries: int = 6) -> tuple[list, list]:
    """A dress/val set of the first entries of the real file, gallery = their images."""
    captions = json.loads((fixtures / FILES[0]).read_text())[:entries]
    gallery = sorted({e[k] for e in captions for k in ("candidate", "target")})
    write_set(root, captions, gallery)
    return captions, gallery


def write_set(root: Path, captions: object, gallery: object, text: str | None = None) -> None:
    (root / "captions").mkdir(parents=True, exist_ok=True)
    (root / "image_splits").mkdir(parents=True, exist_ok=True)
    (root / "captions" / "cap.dress.val.json").write_text(
        text if text is not None else json.dumps(captions, indent=4)
    )
    (root / "image_splits" / "split.dress.val.json").write_text(json.dumps(gallery, indent=4))


@pytest.mark.slow
def test_the_real_files_import_with_exact_counts(project, fashioniq_fixtures) -> None:
    report = import_fashioniq(project, fashioniq_fixtures)
    for category, (entries, captions, gallery) in EXPECTED.items():
        counts = report.groups[(category, "val")]
        assert (counts["entries"], counts["captions"], counts["gallery"]) == (
            entries,
            captions,
            gallery,
        )
        assert project.count_images(category, "val") == gallery
        stored = project.db.execute(
            "SELECT count(DISTINCT p.id), count(c.id) FROM pairs p JOIN captions c "
            "ON c.pair_id = p.id WHERE p.category = :category",
            {"category": category},
        ).fetchone()
        assert stored == (entries, captions)
    # Every gallery is exactly its split file, in order, although shirt and toptee share
    # images: an image may belong to several galleries.
    listed = {}
    for category in EXPECTED:
        listed[category] = json.loads(
            (fashioniq_fixtures / f"image_splits/split.{category}.val.json").read_text()
        )
        assert gallery_of(project, category, "val") == listed[category]
    shared = set(listed["shirt"]) & set(listed["toptee"])
    assert shared and report.problems == []
    distinct = set().union(*listed.values())
    # No image files ship with the fixtures: every image is kept, marked missing, listed.
    assert len(report.missing_images) == len(distinct) == project.count_images()
    assert project.db.execute("SELECT count(*) FROM images WHERE missing = 0").fetchone()[0] == 0
    people = project.db.execute(
        "SELECT DISTINCT a.name, c.status FROM captions c JOIN people a ON a.id = c.author_id"
    ).fetchall()
    assert people == [("fashioniq", "submitted")]
    positions = project.db.execute("SELECT DISTINCT position FROM captions ORDER BY 1").fetchall()
    assert positions == [(0,), (1,)]


@pytest.mark.slow
def test_export_of_the_imported_set_equals_the_original_files(
    project, fashioniq_fixtures, tmp_path
) -> None:
    import_fashioniq(project, fashioniq_fixtures)
    export_fashioniq(project, tmp_path / "out")
    for name in FILES:
        original = (fashioniq_fixtures / name).read_text()
        exported = (tmp_path / "out" / name).read_text()
        assert json.loads(exported) == json.loads(original)
        assert exported == original  # same order, same key order, same layout
    first = json.loads((tmp_path / "out" / FILES[0]).read_text())[0]
    assert list(first) == ["target", "candidate", "captions"]


@pytest.mark.slow
def test_importing_twice_adds_nothing(project, fashioniq_fixtures) -> None:
    import_fashioniq(project, fashioniq_fixtures)
    before = project.table_counts()
    again = import_fashioniq(project, fashioniq_fixtures)
    after = project.table_counts()
    assert (again.images_added, again.pairs_added, again.captions_added) == (0, 0, 0)
    assert {k: after[k] for k in ("images", "pairs", "captions", "people")} == {
        k: before[k] for k in ("images", "pairs", "captions", "people")
    }
    assert again.groups[("dress", "val")]["missing"] == 3817


BROKEN = {
    "malformed JSON": (lambda c, g: (None, g, '[{"target": "x",'), "line 1 column"),
    "not a list": (lambda c, g: ({"entries": c}, g, None), "expected a JSON list"),
    "missing key": (
        lambda c, g: ([*c[:2], {k: v for k, v in c[2].items() if k != "target"}, *c[3:]], g, None),
        "entry [2]",
    ),
    "wrong type": (
        lambda c, g: ([*c[:3], {**c[3], "captions": "is red"}, *c[4:]], g, None),
        "entry [3]",
    ),
    "unexpected key": (lambda c, g: ([{**c[0], "note": "x"}, *c[1:]], g, None), "entry [0]"),
    "unknown id": (
        lambda c, g: ([*c[:4], {**c[4], "target": "B0NOTTHERE"}, *c[5:]], g, None),
        "entry [4]",
    ),
}


@pytest.mark.parametrize("kind", list(BROKEN))
def test_a_bad_caption_file_is_refused_naming_file_and_entry(
    kind, project, fashioniq_fixtures, tmp_path
) -> None:
    captions, gallery = small_set(fashioniq_fixtures, tmp_path / "fiq")
    make, expected = BROKEN[kind]
    bad_captions, bad_gallery, text = make(captions, gallery)
    write_set(tmp_path / "fiq", bad_captions, bad_gallery, text)
    with pytest.raises(ValidationError) as error:
        import_fashioniq(project, tmp_path / "fiq")
    message = str(error.value)
    assert "captions/cap.dress.val.json" in message and expected in message
    assert "\n" not in message
    assert project.table_counts()["pairs"] == 0 and project.count_images() == 0


def test_a_duplicate_gallery_id_is_refused(project, fashioniq_fixtures, tmp_path) -> None:
    captions, gallery = small_set(fashioniq_fixtures, tmp_path / "fiq")
    write_set(tmp_path / "fiq", captions, [*gallery, gallery[2]])
    with pytest.raises(ImportValidationError) as error:
        import_fashioniq(project, tmp_path / "fiq")
    [problem] = error.value.problems
    assert problem.file == "image_splits/split.dress.val.json"
    assert (problem.entry, problem.key) == (len(gallery), gallery[2])
    assert "duplicate image id, first at entry [2]" in str(error.value)


def test_skip_invalid_imports_the_rest_and_reports_the_problems(
    project, fashioniq_fixtures, tmp_path
) -> None:
    captions, gallery = small_set(fashioniq_fixtures, tmp_path / "fiq")
    broken = [*captions[:2], {"candidate": captions[2]["candidate"]}, *captions[3:], "x"]
    write_set(tmp_path / "fiq", broken, gallery)
    report = import_fashioniq(project, tmp_path / "fiq", skip_invalid=True)
    assert report.pairs_added == len(captions) - 1
    assert {(p.file, p.entry) for p in report.problems} == {
        ("captions/cap.dress.val.json", 2),
        ("captions/cap.dress.val.json", len(captions)),
    }
    assert any("missing key 'target'" in str(p) for p in report.problems)
    assert project.table_counts()["pairs"] == len(captions) - 1


def test_present_images_are_hashed_and_missing_ones_listed(
    project, fashioniq_fixtures, tmp_path
) -> None:
    _, gallery = small_set(fashioniq_fixtures, tmp_path / "fiq")
    images = tmp_path / "fiq" / "images"
    images.mkdir()
    Image.new("RGB", (40, 60), "red").save(images / f"{gallery[0]}.jpg")
    report = import_fashioniq(project, tmp_path / "fiq")
    present = project.image(gallery[0])
    assert (
        not present.missing and present.content_hash and (present.width, present.height) == (40, 60)
    )
    assert project.image_path(present).resolve() == (images / f"{gallery[0]}.jpg").resolve()
    assert sorted(report.missing_images) == gallery[1:]
    assert project.image(gallery[1]).missing


def test_test_split_entries_need_no_target(project, tmp_path) -> None:
    root = tmp_path / "fiq"
    (root / "captions").mkdir(parents=True)
    (root / "image_splits").mkdir()
    entries = [
        {"candidate": "A1", "captions": ["is red", "longer"]},
        {"candidate": "A1", "captions": ["is blue", "shorter"]},
    ]
    (root / "captions" / "cap.dress.test.json").write_text(json.dumps(entries, indent=4))
    (root / "image_splits" / "split.dress.test.json").write_text(json.dumps(["A1", "A2"]))
    report = import_fashioniq(project, root)
    assert report.pairs_added == 2
    export_fashioniq(project, tmp_path / "out")
    assert json.loads((tmp_path / "out/captions/cap.dress.test.json").read_text()) == entries


def test_a_cancelled_import_writes_nothing(project, fashioniq_fixtures) -> None:
    token = CancelToken()
    token.cancel()
    with pytest.raises(JobCancelled):
        import_fashioniq(project, fashioniq_fixtures, cancel=token)
    assert project.table_counts()["images"] == 0 and project.table_counts()["audit_log"] == 0


def test_command_line_import_export_and_stats(fashioniq_fixtures, tmp_path, capsys) -> None:
    target = tmp_path / "p"
    assert (
        main(["import", "fashioniq", str(fashioniq_fixtures), "--project", str(target), "--json"])
        == 0
    )
    report = json.loads(capsys.readouterr().out)
    assert report["groups"]["shirt"]["val"] == {
        "entries": 2038,
        "captions": 4076,
        "gallery": 6346,
        "missing": 6346,
    }
    assert main(["stats", "--project", str(target), "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["groups"]["dress"]["val"] == {
        "pairs": 2017,
        "captions": 4034,
        "gallery": 3817,
        "missing": 3817,
    }
    assert main(["export", "fashioniq", "--project", str(target), str(tmp_path / "out")]) == 0
    assert (tmp_path / "out" / FILES[1]).read_text() == (fashioniq_fixtures / FILES[1]).read_text()


def test_command_line_reports_a_bad_file_in_one_line(fashioniq_fixtures, tmp_path, capsys) -> None:
    captions, gallery = small_set(fashioniq_fixtures, tmp_path / "fiq")
    write_set(tmp_path / "fiq", [*captions, {**captions[0], "target": "B0NOTTHERE"}], gallery)
    assert (
        main(["import", "fashioniq", str(tmp_path / "fiq"), "--project", str(tmp_path / "p")]) == 2
    )
    err = capsys.readouterr().err
    assert err.startswith("cir-studio: error: Fashion IQ import refused")
    assert err.count("\n") == 1 and f"entry [{len(captions)}]" in err
