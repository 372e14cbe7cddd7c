"""FashionX-style JSON: export, the paper's self-checks, and import of what was exported."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from studio.importers.validation import ImportValidationError, Problems
from studio.outfits.fashionpedia import import_fashionpedia
from studio.outfits.fashionx import check_pictures
from studio.outfits.fashionx_io import export_fashionx, import_fashionx
from studio.outfits.ontology import load_ontology, seed_studio_ontology
from studio.store import Project
from studio.store.repos import outfits as repo
from tests.outfit_samples import write_sample


@pytest.fixture
def exported(tmp_path: Path) -> Path:
    path = write_sample(tmp_path / "data")
    with Project.create(tmp_path / "a", image_root=tmp_path / "data" / "images") as project:
        import_fashionpedia(project, path, tmp_path / "data" / "images")
        export_fashionx(project, tmp_path / "outfits.json")
    return tmp_path / "outfits.json"


def test_an_export_imports_into_another_project_as_the_same_outfits(
    exported: Path, tmp_path: Path
) -> None:
    documents = json.loads(exported.read_text())
    first = documents[0]
    assert first["garment_count"] == {"one-piece": 0, "top": 1, "bottom": 1, "footwear": 0,
                                      "accessory": 0}
    shirt = first["garments"][0]
    assert shirt["category"] == "shirt, blouse" and shirt["parts"][0]["category"] == "sleeve"
    assert shirt["attributes"] == {"textile pattern": ["stripe"]}
    with Project.create(tmp_path / "b", image_root=tmp_path / "data" / "images") as project:
        report = import_fashionx(project, exported, tmp_path / "data" / "images")
        assert report["garments_added"] == 3 and report["parts_added"] == 2
        export_fashionx(project, tmp_path / "again.json")
        again = import_fashionx(project, exported, tmp_path / "data" / "images")
        assert again["pictures_known"] == 2 and again["garments_added"] == 0
    assert json.loads((tmp_path / "again.json").read_text()) == documents


def problems_of(tmp_path: Path, documents: object, text: str | None = None) -> list[str]:
    path = tmp_path / "bad.json"
    path.write_text(text if text is not None else json.dumps(documents))
    folder = tmp_path / f"c{len(list(tmp_path.glob('c*')))}"
    with Project.create(folder) as project:
        before = repo.count_rows(project)
        with pytest.raises(ImportValidationError) as raised:
            import_fashionx(project, path)
        after = repo.count_rows(project)
        assert after["outfit_pictures"] == before["outfit_pictures"] == 0
        assert after["outfit_regions"] == 0
    return [str(problem) for problem in raised.value.problems]


def test_counted_and_listed_garments_must_agree_both_ways(exported: Path,
                                                          tmp_path: Path) -> None:
    documents = json.loads(exported.read_text())
    documents[0]["garment_count"]["top"] = 0  # a listed garment is not counted
    documents[1]["garment_count"]["bottom"] = 2  # counted garments are not listed
    found = problems_of(tmp_path, documents)
    assert any("(picture a garments g1): 1 top listed but 0 counted" in p for p in found), found
    assert any("(picture b): 2 bottom counted but 0 listed" in p for p in found), found


def test_a_category_listed_twice_needs_regions_that_tell_them_apart(exported: Path,
                                                                     tmp_path: Path) -> None:
    documents = json.loads(exported.read_text())
    shoe = documents[1]["garments"][0]
    twin = copy.deepcopy(shoe)
    twin["id"] = "g2"
    documents[1]["garments"].append(twin)
    documents[1]["garment_count"]["footwear"] = 2
    found = problems_of(tmp_path, documents)
    assert any("(picture b garments g1, g2): category 'shoe' is listed 2 times" in p
               for p in found), found
    twin["polygon"] = [[0, 0, 5, 0, 5, 5]]  # now a different item: no longer a problem
    checked = Problems(tmp_path)
    with Project.create(tmp_path / "d") as project:
        with project.writing():
            seed_studio_ontology(project)
        check_pictures(tmp_path / "x.json", documents, load_ontology(project), checked)
    assert checked.items == []


def test_values_come_from_the_ontology(exported: Path, tmp_path: Path) -> None:
    documents = json.loads(exported.read_text())
    garment = documents[0]["garments"][0]
    garment["attributes"] = {"color": ["ultraviolet"], "textile pattern": ["stripe", "stripe"]}
    garment["parts"][0]["category"] = "pants"
    garment["type"] = "bottom"
    documents[0]["overall"]["style"] = ["cyberpunk"]
    found = problems_of(tmp_path, documents)
    for expected in ("(picture a garment g1): attribute 'ultraviolet' of 'color' is not in",
                     "'stripe' is listed 2 times",
                     "(picture a garment g1 part g1.p1): 'pants' is a garment, not a part",
                     "type 'bottom' is not the type of 'shirt, blouse' (top)",
                     "style 'cyberpunk' is not in the ontology"):
        assert any(expected in p for p in found), (expected, found)


def test_strict_json_is_required(exported: Path, tmp_path: Path) -> None:
    text = exported.read_text()
    duplicated = text.replace('"descriptions": {', '"descriptions": {"general": "x",', 1)
    assert any("duplicated key 'general'" in p for p in problems_of(tmp_path, None, duplicated))
    nan = text.replace('"box": [\n', '"box": [\n NaN,', 1).replace("10,\n", "", 1)
    assert any("NaN is not JSON" in p for p in problems_of(tmp_path, None, nan))
    documents = json.loads(text)
    documents[0]["mood"] = "happy"
    assert "bad.json entry [0] (picture a): unknown field 'mood'" in problems_of(
        tmp_path, documents
    )


def test_the_documented_schema_and_the_checks_name_the_same_fields(exported: Path) -> None:
    from studio.outfits import fashionx
    from studio.outfits.records import GARMENT_TYPES, OUTFIT_FIELDS

    schema = json.loads((Path(__file__).resolve().parents[2] / "docs" /
                         "fashionx.schema.json").read_text())
    assert set(schema["properties"]) == fashionx.PICTURE_KEYS
    assert set(schema["required"]) == set(fashionx.REQUIRED)
    assert set(schema["$defs"]["garment"]["properties"]) == fashionx.GARMENT_KEYS
    assert set(schema["$defs"]["part"]["properties"]) == fashionx.PART_KEYS
    assert set(schema["properties"]["garment_count"]["properties"]) == set(GARMENT_TYPES)
    assert set(schema["properties"]["overall"]["properties"]) == set(OUTFIT_FIELDS)
    assert schema["$defs"]["garment"]["properties"]["type"]["enum"] == list(GARMENT_TYPES)
    # and an export holds only the fields the schema names
    for document in json.loads(exported.read_text()):
        assert set(document) <= fashionx.PICTURE_KEYS
        for garment in document["garments"]:
            assert set(garment) <= fashionx.GARMENT_KEYS


def test_the_documented_example_passes_the_checks(tmp_path: Path) -> None:
    example = Path(__file__).resolve().parents[2] / "docs" / "fashionx.example.json"
    problems = Problems(tmp_path)
    with Project.create(tmp_path / "e") as project:
        with project.writing():
            seed_studio_ontology(project)
        check_pictures(example, [json.loads(example.read_text())], load_ontology(project),
                       problems)
    assert problems.items == []


def test_an_export_of_the_real_fashionpedia_sample_reimports_as_the_manual_says(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """The sample's attributes are not those of category_attributes_descriptions.json
    ('gauze' of 'woven'): the export carries the ontology it was made with."""
    from studio.cli.main import main
    from tests.conftest import SHARED_FIXTURES

    fixtures = SHARED_FIXTURES / "fashionpedia"
    if not (fixtures / "sample.json").is_file():
        pytest.skip(f"shared Fashionpedia fixtures not found at {fixtures}")
    images = str(fixtures / "images")
    assert main(["import", "fashionpedia", str(fixtures / "sample.json"), "--images", images,
                 "--project", str(tmp_path / "a")]) == 0
    out = tmp_path / "out" / "outfits.json"
    assert main(["export", "fashionx", "--project", str(tmp_path / "a"), str(out)]) == 0
    assert "outfits.ontology.json" in capsys.readouterr().out
    # The manual (docs/formats.md): `import fashionx FILE --images DIR --project P` into a new project.
    assert main(["import", "fashionx", str(out), "--images", images,
                 "--project", str(tmp_path / "b")]) == 0, capsys.readouterr().err
    again = tmp_path / "again.json"
    assert main(["export", "fashionx", "--project", str(tmp_path / "b"), str(again)]) == 0
    assert json.loads(again.read_text()) == json.loads(out.read_text())
    with Project.open(tmp_path / "a") as first, Project.open(tmp_path / "b") as second:
        assert repo.count_rows(first) == repo.count_rows(second)
