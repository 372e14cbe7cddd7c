"""Sessions on the real demo model: comparatives relative to the reference, negations and
several values, carried across turns and shown in words."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from studio.image_measures import measure_pixels
from studio.sessions.constraints import SCALES, Constraint
from studio.sessions.setup import load_session_context
from studio.sessions.strategies import constraint_bonus
from studio.store import Project


@pytest.fixture
def context(indexed_demo_dir: Path):
    project = Project.open(indexed_demo_dir)
    yield load_session_context(project, "demo", "cpu")
    project.close()


def _length(context, image_id: str) -> int:
    return SCALES["length"].index(context.facets[image_id]["length"])


def test_shorter_prefers_items_shorter_than_the_reference(context) -> None:
    dresses = [
        i.id
        for i in context.project.iter_images(category="dress")
        if context.facets.get(i.id, {}).get("length") in ("midi", "maxi")
    ]
    reference = dresses[0]
    session = context.new_session("history", k=10, category="dress")
    turn = session.composed_turn("is shorter", reference_id=reference)
    assert turn.wants == "length < the reference"
    top = [hit.id for hit in turn.results[:5]]
    assert len(top) == 5  # the check below is about real results, not an empty list
    assert all(_length(context, i) < _length(context, reference) for i in top)


def test_darker_compares_measured_lightness_with_the_reference(context) -> None:
    images = [i.id for i in context.project.iter_images()]
    lightness = {i: context.measures.value(i, "lightness") for i in images}
    reference = max(images, key=lambda i: lightness[i] or 0.0)  # the lightest picture
    session = context.new_session("history", k=10)
    turn = session.composed_turn("is darker", reference_id=reference)
    assert all(lightness[hit.id] < lightness[reference] for hit in turn.results)
    lighter = session.composed_turn("is lighter", reference_id=turn.results[-1].id)
    assert "lightness > the reference" in lighter.wants


def test_measures_order_black_white_and_a_print_as_a_person_would() -> None:
    white_bg = np.full((64, 64, 3), 255, dtype=np.uint8)
    black, red, stripes = white_bg.copy(), white_bg.copy(), white_bg.copy()
    black[16:48, 16:48] = (20, 20, 20)
    red[16:48, 16:48] = (200, 30, 30)
    stripes[16:48, 16:48] = (200, 30, 30)
    stripes[16:48:4, 16:48] = (30, 60, 200)
    assert measure_pixels(black)[0] < measure_pixels(red)[0]
    assert measure_pixels(black)[1] < measure_pixels(red)[1] < measure_pixels(stripes)[1]


def test_not_excludes_and_a_later_turn_overrides_the_same_facet(context) -> None:
    colours = sorted({f["color"] for f in context.facets.values() if "color" in f})
    banned, wanted = colours[0], colours[1]
    session = context.new_session("history", k=20)
    first = session.composed_turn(
        f"is not {banned} and is shorter", reference_id=next(iter(context.facets))
    )
    assert banned not in {context.facets[h.id].get("color") for h in first.results[:5]}
    assert f"colour \u2260 {banned}" in first.wants
    session.choose(first.results[0].id)
    second = session.composed_turn(f"is {wanted}")
    # Turn 1's length request is still in force; the colour is replaced by turn 2's.
    assert second.wants == f"colour = {wanted}, length < the reference"
    third = session.composed_turn("is longer")
    assert third.wants == f"colour = {wanted}, length > turn 2's item"


def test_several_values_of_one_facet_all_count() -> None:
    values = {"color": np.array(["red", "white", "blue", None], dtype=object)}
    bonus = constraint_bonus(values, {"color": Constraint("color", ("red", "white"))}, 0.1)
    assert np.allclose(bonus, [0.1, 0.1, -0.1, 0.0])
    bonus = constraint_bonus(values, {"color": Constraint("color", excluded=("red",))}, 0.1)
    assert np.allclose(bonus, [-0.1, 0.1, 0.1, 0.0])
