"""Editing, importing and exporting the attribute vocabulary."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from studio.attributes import vocabulary as vocab
from studio.attributes.labels import review
from studio.attributes.query import attribute_states
from studio.attributes.records import ATTRIBUTE_TYPES, VocabularyEntry
from studio.attributes.vocabulary_io import (
    ensure_vocabulary,
    export_vocabulary,
    import_vocabulary,
    read_vocabulary_file,
    starter_vocabulary,
)
from studio.store import Project
from studio.store.records import ImageRecord


@pytest.fixture
def project(tmp_path: Path):
    with Project.create(tmp_path / "p") as project:
        project.add_images([ImageRecord(id=f"img{i}", path=f"img{i}.jpg") for i in range(3)])
        yield project


def audit(project: Project) -> list[dict]:
    return list(project.db.query("SELECT * FROM audit_log ORDER BY id"))


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_records_check_their_values() -> None:
    with pytest.raises(ValueError, match="unknown attribute type 'colour'"):
        VocabularyEntry("red", "colour")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="non-empty name"):
        VocabularyEntry(" ", "color")
    with pytest.raises(ValueError, match="synonyms"):
        VocabularyEntry("red", "color", "scarlet")  # type: ignore[arg-type]


def test_each_edit_is_one_audited_change(project: Project) -> None:
    vocab.add_attribute(project, "ana", "floral", "texture", ["flower print", "Flower Print"])
    vocab.add_attribute(project, "ana", "flowery", "style")
    vocab.rename_attribute(project, "bo", "flowery", "romantic")
    vocab.retype_attribute(project, "bo", "romantic", "texture")
    vocab.set_synonyms(project, "bo", "romantic", ["dreamy"])
    vocab.merge_attributes(project, "cy", ["romantic"], "floral")
    rows = audit(project)
    assert [(r["actor"], r["action"]) for r in rows] == [
        ("ana", "vocabulary.add"), ("ana", "vocabulary.add"), ("bo", "vocabulary.rename"),
        ("bo", "vocabulary.retype"), ("bo", "vocabulary.synonyms"), ("cy", "vocabulary.merge"),
    ]
    assert json.loads(rows[2]["before"])["name"] == "flowery"
    assert json.loads(rows[2]["after"])["name"] == "romantic"
    floral = vocab.get_entry(project, "floral")
    assert floral.synonyms == ("flower print", "romantic", "dreamy")  # the repeat was dropped
    assert vocab.find_entry(project, "romantic") is None


def test_edits_that_would_make_words_ambiguous_are_refused(project: Project) -> None:
    vocab.add_attribute(project, "ana", "striped", "texture", ["stripe"])
    vocab.add_attribute(project, "ana", "t-shirt", "shape")
    cases = [
        (lambda: vocab.add_attribute(project, "ana", "stripes", "texture"), "'stripe'"),
        (lambda: vocab.add_attribute(project, "ana", "tshirt", "shape"), "'t-shirt'"),
        (lambda: vocab.add_attribute(project, "ana", "lines", "texture", ["Striped"]),
         "'striped'"),
        (lambda: vocab.add_attribute(project, "ana", "striped", "style"), "already has"),
        (lambda: vocab.add_attribute(project, "ana", "dots", "pattern"), "unknown type"),
        (lambda: vocab.rename_attribute(project, "ana", "t-shirt", "striped"), "merge instead"),
        (lambda: vocab.rename_attribute(project, "ana", "nothing", "x"), "no attribute"),
    ]
    for attempt, message in cases:
        with pytest.raises(vocab.VocabularyError, match=message):
            attempt()
    assert len(audit(project)) == 2


def test_merging_moves_labels_and_keeps_decisions(project: Project) -> None:
    vocab.add_attribute(project, "ana", "striped", "texture")
    vocab.add_attribute(project, "ana", "stripy", "texture")
    review(project, "ana", "img0", ["stripy"], "accepted")
    review(project, "ana", "img1", ["stripy"], "rejected")
    review(project, "ana", "img1", ["striped"], "accepted")
    vocab.merge_attributes(project, "ana", ["stripy"], "striped")
    assert [(s.attribute, s.status) for s in attribute_states(project, "img0")] == [
        ("striped", "accepted")
    ]
    # img1 had a person's label on both: one row survives, keeping the target's decision
    assert [(s.attribute, s.status) for s in attribute_states(project, "img1")] == [
        ("striped", "accepted")
    ]


def test_removing_an_attribute_removes_its_labels(project: Project) -> None:
    vocab.add_attribute(project, "ana", "red", "color")
    review(project, "ana", "img0", ["red"], "accepted")
    assert vocab.remove_attribute(project, "ana", "red") == 1
    assert attribute_states(project, "img0") == []
    assert audit(project)[-1]["action"] == "vocabulary.remove"


@pytest.mark.parametrize("suffix", [".json", ".csv"])
def test_export_then_import_round_trips(project: Project, tmp_path: Path, suffix: str) -> None:
    vocab.add_attribute(project, "ana", "floral", "texture", ["flower print", "à fleurs"])
    vocab.add_attribute(project, "ana", "v-neck", "part", ["v neckline"])
    vocab.add_attribute(project, "ana", "linen", "fabric")
    path = tmp_path / f"vocabulary{suffix}"
    assert export_vocabulary(project, path) == 3
    with Project.create(tmp_path / "other") as other:
        assert import_vocabulary(other, "bo", path) == (3, 0)
        assert [e.to_json() for e in vocab.load_vocabulary(other)] == [
            e.to_json() for e in vocab.load_vocabulary(project)
        ]
        assert import_vocabulary(other, "bo", path) == (0, 0)  # twice: no duplicates
        assert [r["action"] for r in audit(other)] == ["vocabulary.import"]


def test_import_updates_changed_entries_and_keeps_the_rest(project: Project, tmp_path) -> None:
    vocab.add_attribute(project, "ana", "floral", "texture")
    vocab.add_attribute(project, "ana", "red", "color")
    path = write(tmp_path / "v.json", json.dumps([
        {"name": "floral", "type": "style", "synonyms": ["flowers"]},
        {"name": "linen", "type": "fabric"},
    ]))
    assert import_vocabulary(project, "bo", path) == (1, 1)
    assert vocab.get_entry(project, "floral").type == "style"
    assert vocab.get_entry(project, "red").type == "color"


BAD_FILES = [
    ("bad.json", '{"attributes": [{"name": "red", "type": "color"},', "not valid JSON"),
    ("bad.json", '{"attributes": {"name": "red"}}', "expected a list"),
    ("bad.json", '{"format": "something-else", "attributes": []}', "format 'something-else'"),
    ("bad.json", '[{"name": "red", "type": "color"}, {"name": "navy", "type": "colour"}]',
     "entry 2 ('navy'): unknown type 'colour'"),
    ("bad.json", '[{"name": "red", "type": "color"}, {"type": "color"}]',
     "entry 2: expected an object"),
    ("bad.json", '[{"name": "red", "type": "color", "synonyms": "scarlet"}]',
     "entry 1 ('red'): \"synonyms\" must be a list"),
    ("bad.json", '[{"name": "red", "type": "color"}, {"name": "blue", "type": "color"}, '
     '{"name": "red", "type": "color"}]', "entry 3 ('red'): duplicate name, first at entry 1"),
    ("bad.json", '[{"name": "scarlet", "type": "color"}, '
     '{"name": "red", "type": "color", "synonyms": ["Scarlets"]}]',
     "entry 2 ('red'): 'Scarlets' is spelled like 'scarlet' of 'scarlet'"),
    ("bad.csv", "name,type,synonyms\nred,color,scarlet\nblue,color\n",
     "line 3: expected 3 fields"),
    ("bad.csv", "name;type;synonyms\nred;color;\n", "line 1: the header must be"),
    ("bad.csv", "name,type,synonyms\nred,color,\nnavy,colour,\n",
     "line 3 ('navy'): unknown type 'colour'"),
    ("bad.csv", "name,type,synonyms\nred,color,\nred,color,crimson\n",
     "line 3 ('red'): duplicate name, first at line 2"),
    ("bad.csv", "name,type,synonyms\nred,color,crimson|scarlet\nscarlet,color,\n",
     "line 3 ('scarlet'): 'scarlet' is spelled like 'scarlet' of 'red'"),
    ("bad.csv", 'name,type,synonyms\n"red,color,\n', "not valid CSV"),
]


@pytest.mark.parametrize(("name", "text", "message"), BAD_FILES,
                         ids=[f"{n}:{m[:30]}" for n, _, m in BAD_FILES])
def test_bad_files_name_the_file_and_entry_and_change_nothing(
    project: Project, tmp_path: Path, name: str, text: str, message: str
) -> None:
    path = write(tmp_path / name, text)
    with pytest.raises(vocab.VocabularyError) as error:
        import_vocabulary(project, "ana", path)
    assert str(path) in str(error.value)
    assert message in str(error.value)
    assert vocab.load_vocabulary(project) == []
    assert audit(project) == []


def test_a_file_clashing_with_the_project_is_refused_whole(project: Project, tmp_path) -> None:
    vocab.add_attribute(project, "ana", "striped", "texture", ["stripes"])
    path = write(tmp_path / "v.json", json.dumps([
        {"name": "linen", "type": "fabric"},
        {"name": "stripe", "type": "texture"},
    ]))
    with pytest.raises(vocab.VocabularyError, match="v.json: cannot use 'stripe'"):
        import_vocabulary(project, "ana", path)
    assert [e.name for e in vocab.load_vocabulary(project)] == ["striped"]


def test_starter_vocabulary_is_large_typed_and_unambiguous() -> None:
    entries = starter_vocabulary()  # read through the same checks as any import
    assert len(entries) >= 300
    assert {e.type for e in entries} == set(ATTRIBUTE_TYPES)
    assert all(sum(e.type == t for e in entries) >= 40 for t in ATTRIBUTE_TYPES)


def test_a_project_gets_the_starter_vocabulary_once(project: Project) -> None:
    assert ensure_vocabulary(project, "ana") == len(starter_vocabulary())
    assert ensure_vocabulary(project, "ana") == 0
    assert [r["action"] for r in audit(project)] == ["vocabulary.import"]


def test_reading_a_missing_file_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(vocab.VocabularyError, match="cannot read the file"):
        read_vocabulary_file(tmp_path / "nope.json")


def test_label_import_counts_a_confidence_that_appears_or_goes_as_a_change(
    project: Project, tmp_path: Path
) -> None:
    from studio.attributes.labels_io import import_labels

    def line(confidence: float | None) -> str:
        return json.dumps({"image_id": "img0", "attribute": "red", "type": "color",
                           "source": "model", "model": "m", "confidence": confidence}) + "\n"

    counts = []
    for confidence in (None, None, 0.5, 0.5, 0.7, None):
        labels = write(tmp_path / "labels.jsonl", line(confidence))
        counts.append(import_labels(project, "ana", labels)["changed"])
    assert counts == [1, 0, 1, 0, 1, 1]


def test_merging_keeps_the_higher_confidence_of_the_same_source(
    project: Project, tmp_path: Path
) -> None:
    from studio.attributes.labels_io import import_labels
    from studio.attributes.query import labels_of_image

    rows = [("stripy", 0.9), ("striped", 0.4)]
    labels = write(tmp_path / "labels.jsonl", "".join(
        json.dumps({"image_id": "img0", "attribute": name, "type": "texture", "source": "model",
                    "model": "m", "confidence": confidence}) + "\n"
        for name, confidence in rows
    ))
    import_labels(project, "ana", labels)
    vocab.merge_attributes(project, "ana", ["stripy"], "striped")
    assert [(lb.attribute, lb.confidence) for lb in labels_of_image(project, "img0")] == [
        ("striped", 0.9)
    ]
