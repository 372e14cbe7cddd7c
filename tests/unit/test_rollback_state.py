"""What a rollback means (#27, "Also seen"): going back to turn N's item is turn N's state
plus the new request; what the abandoned turns asked for no longer applies."""

from __future__ import annotations

from pathlib import Path

import pytest

from studio.sessions.setup import load_session_context
from studio.store import Project


@pytest.fixture
def context(indexed_demo_dir: Path):
    project = Project.open(indexed_demo_dir)
    yield load_session_context(project, "demo", "cpu")
    project.close()


def test_going_back_to_the_first_item_drops_what_later_turns_asked(context) -> None:
    images = [image.id for image in context.project.iter_images()]
    session = context.new_session("history")
    session.composed_turn("is sleeveless", reference_id=images[0])
    session.choose(images[5])
    second = session.composed_turn("has a v-neck and is cropped")
    assert "neckline = v-neck" in second.wants and "length = cropped" in second.wants
    session.choose(images[9])
    session.composed_turn("is longer")
    session.choose(images[12])
    back = session.composed_turn("I still prefer the item from the first turn, but in red")
    assert back.kind == "rollback" and back.reference_id == images[5]
    # Turn 1's request and the new one; nothing of turns 2 and 3.
    assert "sleeve = sleeveless" in back.wants and "colour = red" in back.wants
    assert "neckline" not in back.wants and "length" not in back.wants
    # The next turn builds on that branch: turn 1, the rollback, itself.
    after = session.composed_turn("has a crew neck")
    assert "sleeve = sleeveless" in after.wants and "colour = red" in after.wants
    assert "neckline = crew" in after.wants and "length" not in after.wants


def test_keeping_a_later_facet_is_said_explicitly(context) -> None:
    """To carry something of an abandoned turn along, the shopper says so (combination)."""
    images = [image.id for image in context.project.iter_images()]
    session = context.new_session("history")
    session.composed_turn("is sleeveless", reference_id=images[0])
    session.choose(images[5])
    session.composed_turn("is blue")
    session.choose(images[9])
    turn = session.composed_turn(
        "I still prefer the item from the first turn, and keep the colour of the second turn"
    )
    colour = context.facets[images[9]].get("color")
    assert "sleeve = sleeveless" in turn.wants
    if colour is not None:
        assert f"colour = {colour}" in turn.wants
