"""Extraction as a job over a project, and the query API other panes read labels with."""

from __future__ import annotations

from pathlib import Path

import pytest

from studio.attributes.extract import extract_from_text
from studio.attributes.labels import review, review_many
from studio.attributes.query import (
    accepted_by_type,
    images_with_attribute,
    labels_of_image,
    suggestions,
    truth,
)
from studio.demo.truth import catalog_truth
from studio.jobs import CancelToken, JobCancelled
from studio.store import Project


@pytest.fixture
def project(demo_project_dir: Path):
    with Project.open(demo_project_dir) as project:
        yield project


def test_extraction_labels_the_demo_exactly(project: Project) -> None:
    reports: list[tuple[int, int]] = []
    summary = extract_from_text(project, "ana",
                                progress=lambda done, total, message="": reports.append(
                                    (done, total)))
    assert summary["images"] == 60 and summary["labelled_images"] == 60
    assert reports[-1] == (60, 60)
    assert suggestions(project, "text") == catalog_truth(project.path.parent)
    labels = labels_of_image(project, "dress-00000")
    assert {(lb.source, lb.confidence, lb.status) for lb in labels} == {
        ("text", 1.0, "suggested")
    }


def test_cancelled_extraction_writes_nothing(project: Project) -> None:
    token = CancelToken()
    token.cancel()
    with pytest.raises(JobCancelled):
        extract_from_text(project, "ana", cancel=token)
    assert suggestions(project, "text") == {}


def test_rerunning_follows_changed_text_but_keeps_decisions(project: Project) -> None:
    extract_from_text(project, "ana")
    review(project, "bo", "dress-00000", ["floral"], "accepted")
    assert extract_from_text(project, "ana")["added"] == 0
    project.db.execute("UPDATE images SET title = 'Plain dress', description = 'A red dress.' "
                       "WHERE id = 'dress-00000'")
    summary = extract_from_text(project, "ana")
    assert summary["added"] == 2  # "red" and "plain" (a synonym of solid) newly named
    found = {lb.attribute: lb.status for lb in labels_of_image(project, "dress-00000")}
    assert found["red"] == found["solid"] == "suggested" and found["floral"] == "accepted"
    assert "black" not in found  # no longer in the text and nobody had decided on it


def test_query_api_for_other_panes(project: Project) -> None:
    extract_from_text(project, "ana")
    review(project, "bo", "dress-00000", ["floral", "black"], "accepted")
    review(project, "bo", "dress-00000", ["midi"], "rejected")
    review_many(project, "bo", "floral", ["dress-00001", "dress-00000"], "accepted")
    assert accepted_by_type(project, "dress-00000") == {"texture": ["floral"], "color": ["black"]}
    by_image = {i: status for i, _, status in images_with_attribute(project, "floral")}
    assert by_image["dress-00000"] == "accepted" and by_image["dress-00001"] == "accepted"
    undecided = images_with_attribute(project, "floral", statuses=["suggested"])
    assert "dress-00000" not in {i for i, _, _ in undecided}
    assert truth(project) == {"dress-00000": {"floral", "black"}, "dress-00001": {"floral"}}
    assert [lb.attribute for lb in labels_of_image(project, "dress-00000",
                                                   statuses=["rejected"])] == ["midi"]


def test_a_decision_audits_each_attributes_state_before_and_refuses_unknown_ones(
    project: Project,
) -> None:
    """The audit row of a decision says what each attribute was on the image before it
    (suggested, decided, or none), as the person would see it undone; a name the
    vocabulary lacks changes nothing."""
    import json

    from studio.attributes.vocabulary import VocabularyError

    extract_from_text(project, "ana")
    review(project, "bo", "dress-00000", ["midi"], "rejected")
    before = {lb.attribute: lb.status for lb in labels_of_image(project, "dress-00000")}
    review(project, "bo", "dress-00000", [" floral ", "midi", "red", "floral"], "accepted")
    row = project.audit_trail("image_attributes", "dress-00000")[-1]
    assert json.loads(row["before"]) == {
        "floral": before["floral"], "midi": "rejected", "red": before.get("red"),
    }
    assert json.loads(row["after"]) == {"floral": "accepted", "midi": "accepted",
                                        "red": "accepted"}
    trail = len(project.audit_trail("image_attributes", "dress-00000"))
    with pytest.raises(VocabularyError, match="'no such thing'"):
        review(project, "bo", "dress-00000", ["red", "no such thing"], "rejected")
    assert len(project.audit_trail("image_attributes", "dress-00000")) == trail
    assert {lb.attribute: lb.status for lb in labels_of_image(project, "dress-00000")}["red"] \
        == "accepted"
