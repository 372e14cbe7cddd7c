"""The outfit model: garments hold parts, labels keep source and review, edits are audited."""

from __future__ import annotations

from pathlib import Path

import pytest

from studio.outfits import editing
from studio.outfits.ontology import load_ontology
from studio.outfits.records import effective
from studio.outfits.store import load_outfit
from studio.store import Project
from studio.store.records import ImageRecord
from studio.store.repos import outfits as repo


@pytest.fixture
def project(tmp_path: Path) -> Project:
    project = Project.create(tmp_path / "p")
    project.add_images([ImageRecord(id="look1", path="look1.jpg", width=400, height=600)])
    assert editing.ensure_picture(project, "ann", "look1")  # seeds the studio ontology
    yield project
    project.close()


def entry(project: Project, kind: str, name: str, supercategory: str | None = None) -> int:
    found = load_ontology(project).find(kind, name, supercategory)
    assert found is not None, name
    return found.id


def test_an_outfit_holds_garments_parts_and_outfit_values(project: Project) -> None:
    heard: list[str] = []
    project.events.outfits.connect(lambda: heard.append("outfits"))
    shirt = editing.add_region(project, "ann", "look1", entry(project, "category",
                               "shirt, blouse"), box=(10, 10, 200, 250))
    pants = editing.add_region(project, "ann", "look1", entry(project, "category", "pants"),
                               polygon=((20, 260, 180, 260, 180, 590, 20, 590),))
    sleeve = editing.add_region(project, "ann", "look1", entry(project, "category", "sleeve"),
                                box=(10, 20, 40, 120), garment_id=shirt)
    editing.set_region_attribute(project, "ann", shirt, entry(project, "attribute", "blue"))
    editing.set_region_attribute(project, "ann", sleeve,
                                 entry(project, "attribute", "wrist-length"))
    editing.set_outfit_value(project, "ann", "look1", entry(project, "outfit", "casual"))
    editing.set_descriptions(project, "ann", "look1", "A blue shirt over pants.", "Blue shirt")
    outfit = load_outfit(project, "look1")
    assert outfit is not None
    assert [r.id for r in outfit.garments()] == [shirt, pants]
    assert [r.id for r in outfit.parts_of(shirt)] == [sleeve]
    assert outfit.regions[2].role == "part"  # the category decides the role
    assert [label.source for label in outfit.region_labels[shirt]] == ["person"]
    assert len(effective(outfit.outfit_labels)) == 1
    assert outfit.picture.concise == "Blue shirt"
    assert heard  # views hear about every change
    trail = project.audit_trail("outfit_picture", "look1")
    assert [row["action"] for row in trail][-1] == "outfits.describe"
    assert all(row["actor"] == "ann" for row in trail)
    uids = [row["uid"] for row in repo.region_rows(project, "look1")]
    assert all(uids) and len(set(uids)) == 3  # team identity on every record


def test_a_part_attaches_only_to_a_garment_of_its_picture(project: Project) -> None:
    sleeve = editing.add_region(project, "ann", "look1", entry(project, "category", "sleeve"),
                                box=(0, 0, 5, 5))
    with pytest.raises(editing.OutfitError):
        editing.edit_region(project, "ann", sleeve, garment_id=sleeve)
    with pytest.raises(editing.OutfitError):
        editing.add_region(project, "ann", "look1", entry(project, "category", "shoe"),
                           polygon=((0, 0, 1, 1),))


def test_review_is_by_a_second_person_and_decides_every_source(project: Project) -> None:
    shirt = editing.add_region(project, "ann", "look1",
                               entry(project, "category", "shirt, blouse"), box=(0, 0, 9, 9))
    red = entry(project, "attribute", "red")
    editing.set_region_attribute(project, "ann", shirt, red)
    with pytest.raises(editing.OutfitError, match="second person"):
        editing.review_label(project, "ann", editing.REGION_LABELS, shirt, red, "rejected")
    editing.review_label(project, "bob", editing.REGION_LABELS, shirt, red, "rejected")
    outfit = load_outfit(project, "look1")
    assert outfit is not None
    assert effective(outfit.region_labels[shirt]) == []
    assert outfit.region_labels[shirt][0].reviewer == "bob"


def test_undo_restores_a_picture_with_the_same_identities(project: Project) -> None:
    shirt = editing.add_region(project, "ann", "look1",
                               entry(project, "category", "shirt, blouse"), box=(0, 0, 9, 9))
    editing.set_region_attribute(project, "ann", shirt, entry(project, "attribute", "red"))
    saved = editing.snapshot(project, "look1")
    editing.delete_region(project, "ann", shirt)
    assert load_outfit(project, "look1").regions == []  # type: ignore[union-attr]
    editing.restore(project, "ann", "look1", saved)
    assert editing.snapshot(project, "look1") == saved


def test_a_model_region_is_reviewed_by_someone_else(project: Project) -> None:
    hat = editing.add_region(project, "bot", "look1", entry(project, "category", "hat"),
                             box=(10, 0, 50, 30), source="model", confidence=0.7, model="m")
    assert load_outfit(project, "look1").regions[0].status == "suggested"
    editing.review_region(project, "ana", hat, "accepted")
    region = load_outfit(project, "look1").regions[0]
    assert (region.status, region.reviewer) == ("accepted", "ana")
    mine = editing.add_region(project, "ana", "look1", entry(project, "category", "belt"),
                              box=(10, 200, 80, 10))
    with pytest.raises(editing.OutfitError, match="second person"):
        editing.review_region(project, "ana", mine, "rejected")
