"""Fashionpedia in and out: the whole file checked first, every field written back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from studio.cli.main import main
from studio.importers.validation import ImportValidationError
from studio.outfits.fashionpedia import import_fashionpedia
from studio.outfits.fashionpedia_write import export_fashionpedia
from studio.outfits.geometry import decode_counts, encode_counts
from studio.outfits.ontology import load_ontology
from studio.outfits.store import load_outfits
from studio.store import Project
from studio.store.repos import outfits as repo
from tests.conftest import SHARED_FIXTURES
from tests.outfit_samples import rle_counts, small_document, write_sample


@pytest.fixture
def fashionpedia_fixtures() -> Path:
    path = SHARED_FIXTURES / "fashionpedia"
    if not (path / "sample.json").is_file():
        pytest.skip(f"shared Fashionpedia fixtures not found at {path}")
    return path


def new_project(tmp_path: Path) -> Project:
    return Project.create(tmp_path / "project", image_root=tmp_path / "data" / "images")


def test_the_real_sample_round_trips_byte_for_byte(fashionpedia_fixtures: Path,
                                                   tmp_path: Path) -> None:
    sample = fashionpedia_fixtures / "sample.json"
    with Project.create(tmp_path / "p", image_root=fashionpedia_fixtures / "images") as project:
        report = import_fashionpedia(project, sample, fashionpedia_fixtures / "images")
        assert (report.pictures_added, report.garments_added, report.parts_added) == (2, 6, 6)
        assert report.missing_images == []
        outfits = {o.picture.image_id: o for o in load_outfits(project)}
        ontology = load_ontology(project)
        dress = outfits["000000009813"]
        names = {r.id: ontology.by_id[r.category_id].name for r in dress.regions}
        (dress_id,) = [rid for rid, name in names.items() if name == "dress"]
        parts = sorted(names[p.id] for p in dress.parts_of(dress_id))
        assert parts == ["neckline", "sleeve", "sleeve"]
        shirt = outfits["000000010223"]
        (shirt_id,) = [r.id for r in shirt.regions
                       if ontology.by_id[r.category_id].name == "shirt, blouse"]
        assert len(shirt.parts_of(shirt_id)) == 3  # two sleeves and the collar
        export_fashionpedia(project, tmp_path / "out.json")
    written = tmp_path / "out.json"
    assert json.loads(written.read_text()) == json.loads(sample.read_text())
    assert written.read_bytes() == sample.read_bytes()  # the file's own layout, too


def test_a_generated_file_round_trips_every_field(tmp_path: Path) -> None:
    path = write_sample(tmp_path / "data")
    with new_project(tmp_path) as project:
        report = import_fashionpedia(project, path, tmp_path / "data" / "images")
        assert (report.garments_added, report.parts_added, report.parts_attached) == (3, 2, 2)
        export_fashionpedia(project, tmp_path / "out.json")
        outfit = next(o for o in load_outfits(project) if o.picture.external_id == 7)
        pocket = next(r for r in outfit.regions if r.rle is not None)
        pants = next(r for r in outfit.regions if r.external_id == 3)
        assert pocket.garment_id == pants.id  # the RLE mask lies inside the pants
    assert json.loads((tmp_path / "out.json").read_text()) == small_document()


def test_importing_twice_adds_nothing(tmp_path: Path) -> None:
    path = write_sample(tmp_path / "data")
    with new_project(tmp_path) as project:
        import_fashionpedia(project, path, tmp_path / "data" / "images")
        counts = repo.count_rows(project)
        again = import_fashionpedia(project, path, tmp_path / "data" / "images")
        assert again.regions_known == 5 and again.garments_added == 0
        assert repo.count_rows(project) == counts


def test_compressed_rle_is_read_and_written_back(tmp_path: Path) -> None:
    document = small_document()
    counts = rle_counts(200, 100, 30, 120, 10, 10)
    assert decode_counts(encode_counts(counts)) == counts
    document["annotations"][3]["segmentation"]["counts"] = encode_counts(counts)
    path = write_sample(tmp_path / "data", document)
    with new_project(tmp_path) as project:
        import_fashionpedia(project, path, tmp_path / "data" / "images")
        export_fashionpedia(project, tmp_path / "out.json")
    assert json.loads((tmp_path / "out.json").read_text()) == document


def test_every_problem_is_named_and_nothing_is_written(tmp_path: Path) -> None:
    document = small_document()
    annotations = document["annotations"]
    annotations[0]["image_id"] = 99  # unknown image
    annotations[1]["category_id"] = 42  # unknown category
    annotations[2]["attribute_ids"] = [0, 77]  # unknown attribute
    annotations[4]["id"] = 1  # duplicated annotation id
    annotations[4]["segmentation"] = [[1, 2, 3, 4, 5]]  # odd coordinate count
    annotations.append({"id": 6, "image_id": 8, "category_id": 2, "attribute_ids": [],
                        "segmentation": [[0, 0, 500, 0, 500, 30]], "iscrowd": 0})  # outside
    annotations.append({"id": 9, "image_id": 7, "category_id": 2, "attribute_ids": [],
                        "segmentation": {"size": [200, 100], "counts": "#!"}})  # malformed RLE
    annotations.append({"id": 10, "image_id": 7, "category_id": 2,
                        "segmentation": {"size": [200, 100], "counts": [5, 5]}})  # short RLE
    path = write_sample(tmp_path / "data", document)
    with new_project(tmp_path) as project:
        before = repo.count_rows(project)
        images = project.count_images()
        with pytest.raises(ImportValidationError) as raised:
            import_fashionpedia(project, path, tmp_path / "data" / "images")
        text = [str(p) for p in raised.value.problems]
        assert repo.count_rows(project) == before and project.count_images() == images
    expected = [
        ("annotation id 1", "unknown image 99"),
        ("annotation id 2", "unknown category id 42"),
        ("annotation id 3", "unknown attribute id 77"),
        ("annotation id 1", "duplicated annotation id 1"),
        ("annotation id 1", "odd number of coordinates"),
        ("annotation id 6", "outside the 60x40 picture"),
        ("annotation id 9", "malformed RLE"),
        ("annotation id 10", "malformed RLE"),
    ]
    for where, what in expected:
        assert any(where in line and what in line for line in text), (where, what, text)


def test_an_edited_region_exports_its_new_geometry_and_area(tmp_path: Path) -> None:
    from studio.outfits.editing import edit_region, set_region_attribute

    path = write_sample(tmp_path / "data")
    with new_project(tmp_path) as project:
        import_fashionpedia(project, path, tmp_path / "data" / "images")
        outfit = next(o for o in load_outfits(project) if o.picture.external_id == 7)
        shirt = next(r for r in outfit.regions if r.external_id == 1)
        edit_region(project, "ann", shirt.id, polygon=((0.0, 0.0, 10.0, 0.0, 10.0, 10.0),))
        stripe = load_ontology(project).find("attribute", "stripe", "textile pattern")
        assert stripe is not None
        set_region_attribute(project, "ann", shirt.id, stripe.id, present=False)
        export_fashionpedia(project, tmp_path / "out.json")
    written = json.loads((tmp_path / "out.json").read_text())
    entry = next(a for a in written["annotations"] if a["id"] == 1)
    assert entry["segmentation"] == [[0.0, 0.0, 10.0, 0.0, 10.0, 10.0]]
    assert entry["area"] == 50.0
    assert entry["attribute_ids"] == []  # the removal rejected the imported label


def test_cli_import_and_export(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    path = write_sample(tmp_path / "data")
    project = str(tmp_path / "cli")
    assert main(["import", "fashionpedia", str(path), "--images",
                 str(tmp_path / "data" / "images"), "--project", project]) == 0
    assert "garments added: 3" in capsys.readouterr().out
    assert main(["export", "fashionpedia", "--project", project,
                 str(tmp_path / "out.json")]) == 0
    assert json.loads((tmp_path / "out.json").read_text()) == small_document()
    bad = small_document()
    bad["annotations"][0]["category_id"] = 42
    bad_path = write_sample(tmp_path / "bad", bad)
    assert main(["import", "fashionpedia", str(bad_path), "--project", project]) == 2
    assert "unknown category id 42" in capsys.readouterr().err


def test_imported_pictures_count_as_outfits_on_the_dashboard(tmp_path: Path) -> None:
    """A photograph of a person wearing several garments has no one product category: it
    counts under "outfit", as the demo's outfit pictures do, never under "(none)"."""
    from studio.outfits.fashionx_io import export_fashionx, import_fashionx
    from studio.project_stats import image_counts_by_category_split

    path = write_sample(tmp_path / "data")
    with Project.create(tmp_path / "p", image_root=tmp_path / "data" / "images") as project:
        import_fashionpedia(project, path, tmp_path / "data" / "images")
        assert image_counts_by_category_split(project) == {"outfit": {"(none)": 2}}
        export_fashionx(project, tmp_path / "x.json")
    with Project.create(tmp_path / "q", image_root=tmp_path / "data" / "images") as project:
        import_fashionx(project, tmp_path / "x.json", tmp_path / "data" / "images")
        assert image_counts_by_category_split(project) == {"outfit": {"(none)": 2}}
