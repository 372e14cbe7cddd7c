"""Precision and recall of suggestions, checked against counts worked out by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from studio.attributes import vocabulary as vocab
from studio.attributes.labels import replace_suggestions, review
from studio.attributes.quality import (
    mean_precision_recall_at_k,
    precision_recall,
    suggestion_quality,
)
from studio.store import Project
from studio.store.records import ImageRecord

TYPES = {"red": "color", "blue": "color", "floral": "texture", "striped": "texture"}


def test_complete_truth_counts_by_attribute_type_and_overall() -> None:
    predicted = {"a": {"red", "floral"}, "b": {"blue", "floral"}, "c": {"red"}}
    truth = {"a": {"red", "striped"}, "b": {"blue", "floral"}, "c": {"blue"}}
    report = precision_recall(predicted, truth, TYPES)
    # a: red TP, floral FP, striped FN; b: blue TP, floral TP; c: red FP, blue FN
    assert report.images == 3
    assert (report.overall.tp, report.overall.fp, report.overall.fn) == (3, 2, 2)
    assert report.overall.precision == pytest.approx(3 / 5)
    assert report.overall.recall == pytest.approx(3 / 5)
    color, texture = report.per_type["color"], report.per_type["texture"]
    assert (color.tp, color.fp, color.fn) == (2, 1, 1)
    assert (texture.tp, texture.fp, texture.fn) == (1, 1, 1)
    assert report.per_attribute["red"].precision == pytest.approx(1 / 2)
    assert report.per_attribute["red"].recall == pytest.approx(1.0)
    assert report.per_attribute["blue"].recall == pytest.approx(1 / 2)
    assert report.per_attribute["striped"].precision is None  # never suggested
    assert report.per_attribute["striped"].recall == 0.0


def test_partial_truth_ignores_what_nobody_decided() -> None:
    predicted = {"a": {"red", "floral", "striped"}}
    accepted = {"a": {"red", "blue"}}
    rejected = {"a": {"floral"}}
    report = precision_recall(predicted, accepted, TYPES, rejected=rejected)
    # red TP, floral FP, striped undecided (ignored), blue FN
    assert (report.overall.tp, report.overall.fp, report.overall.fn) == (1, 1, 1)
    assert report.per_attribute.get("striped") is None


def test_images_without_truth_or_prediction_do_not_count() -> None:
    report = precision_recall({"a": {"red"}, "x": {"red"}}, {"a": {"red"}, "y": {"blue"}}, TYPES)
    assert report.images == 1 and report.overall.precision == 1.0


def test_precision_and_recall_at_k_are_per_image_means() -> None:
    predicted = {"a": {"red", "floral"}, "b": {"blue", "striped"}}
    truth = {"a": {"red"}, "b": {"blue", "striped", "floral", "red"}}
    precision, recall = mean_precision_recall_at_k(predicted, truth, k=2)
    assert precision == pytest.approx((1 / 2 + 2 / 2) / 2)
    assert recall == pytest.approx((1 / 1 + 2 / 4) / 2)


def test_quality_of_a_models_suggestions_against_reviews(tmp_path: Path) -> None:
    with Project.create(tmp_path / "p") as project:
        project.add_images([ImageRecord(id=i, path=f"{i}.jpg") for i in "abc"])
        for name, type_ in TYPES.items():
            vocab.add_attribute(project, "ana", name, type_)
        ids = {e.name: e.id for e in vocab.load_vocabulary(project)}
        replace_suggestions(project, "job", "model", "m1", {
            "a": {ids["red"]: 0.9, ids["floral"]: 0.6},
            "b": {ids["blue"]: 0.8, ids["striped"]: 0.7},
            "c": {ids["red"]: 0.5},
        }, "attributes.suggest")
        review(project, "ana", "a", ["red"], "accepted")
        review(project, "ana", "a", ["floral"], "rejected")
        review(project, "ana", "a", ["blue"], "accepted")  # a person added what the model missed
        review(project, "ana", "b", ["striped"], "accepted")
        # c is not reviewed; b's "blue" is undecided
        report = suggestion_quality(project, "model", "m1")
        assert report.images == 2
        assert (report.overall.tp, report.overall.fp, report.overall.fn) == (2, 1, 1)
        assert report.per_type["color"].precision == 1.0
        assert report.per_type["color"].recall == pytest.approx(1 / 2)
        assert report.per_type["texture"].precision == pytest.approx(1 / 2)
        assert suggestion_quality(project, "model", "other").images == 0
