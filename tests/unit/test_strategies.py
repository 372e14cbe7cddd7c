"""Composition strategies on a small known gallery."""

from __future__ import annotations

import numpy as np
import pytest

from studio.errors import StudioError
from studio.sessions.strategies import (
    HistoryAware,
    ImageOnly,
    TextOnly,
    TurnInput,
    WeightedSum,
    make_strategy,
    rerank,
)

# Axes: 0 = "red-ness", 1 = "long sleeves", 2 = "the reference look".
E = np.eye(3, dtype=np.float32)


def test_text_and_image_only_use_one_modality() -> None:
    turn = TurnInput(reference=E[2], text_vector=E[0])
    assert np.allclose(TextOnly().compose([turn]).vector, E[0])
    assert np.allclose(ImageOnly().compose([turn]).vector, E[2])


def test_weighted_sum_is_unit_and_weighted() -> None:
    vector = WeightedSum(image_weight=0.25).compose([TurnInput(E[2], E[0])]).vector
    assert np.linalg.norm(vector) == pytest.approx(1.0)
    assert vector[0] == pytest.approx(3 * vector[2])


def test_history_aware_keeps_a_turn_one_request_that_last_turn_only_loses() -> None:
    turns = [
        TurnInput(reference=E[2], text_vector=E[0], asked={"color": "red"}),
        TurnInput(reference=E[2], text_vector=E[1], asked={"sleeve": "long"}),
    ]
    gallery = {
        "red-long": {"color": "red", "sleeve": "long"},
        "blue-long": {"color": "blue", "sleeve": "long"},
    }
    # Both items look the same to the vector; only the remembered colour can decide.
    ids, scores = ["blue-long", "red-long"], np.array([0.8, 0.8], dtype=np.float32)
    last_only = WeightedSum().compose(turns)
    history = HistoryAware().compose(turns)
    assert history.constraints == {"color": "red", "sleeve": "long"}
    assert rerank(ids, scores, gallery, last_only.constraints)[0][0] == "blue-long"
    assert rerank(ids, scores, gallery, history.constraints)[0][0] == "red-long"
    assert history.vector[0] > 0  # turn 1's text still pulls the vector


def test_a_later_turn_overrides_an_earlier_one_on_the_same_facet() -> None:
    turns = [
        TurnInput(E[2], E[0], asked={"color": "red"}),
        TurnInput(E[2], E[1], kept={"pattern": "stripes"}),
        TurnInput(E[2], E[0], asked={"color": "blue"}),
    ]
    assert HistoryAware().compose(turns).constraints == {"color": "blue", "pattern": "stripes"}


def test_rerank_leaves_unknown_facets_alone_and_is_stable() -> None:
    ids, scores = ["x", "y", "z"], np.array([0.9, 0.8, 0.7], dtype=np.float32)
    ranked, _ = rerank(ids, scores, {"y": {"color": "red"}}, {"color": "blue"}, weight=0.15)
    assert ranked == ["x", "z", "y"]


def test_unknown_strategy_lists_the_available_ones() -> None:
    with pytest.raises(StudioError, match="Unsupported strategy 'magic'.*history, sum, text, image"):
        make_strategy("magic")


def test_constraint_bonus_by_hand() -> None:
    from studio.sessions.strategies import constraint_bonus

    values = {"color": np.array(["red", "blue", None], dtype=object),
              "sleeve": np.array(["long", "long", "short"], dtype=object)}
    bonus = constraint_bonus(values, {"color": "red", "sleeve": "long"}, weight=0.1)
    # red+long: +0.2; blue+long: 0; unknown colour + short: −0.1
    assert bonus == pytest.approx([0.2, 0.0, -0.1])
