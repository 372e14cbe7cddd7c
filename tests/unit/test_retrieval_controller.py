"""The Retrieval pane's rules, without a window: target, reference, gallery, turns, export."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from studio.errors import StudioError
from studio.language.turns import parse_turn_text
from studio.sessions.controller import (
    ALL_CATEGORIES,
    RetrievalController,
    SessionOptions,
)
from studio.sessions.preparation import has_attribute_labels, index_summary, prepare_retrieval
from studio.sessions.setup import load_session_context
from studio.sessions.store import list_sessions, load_session
from studio.store import Project


@pytest.fixture
def controller(indexed_demo_dir: Path):
    with Project.open(indexed_demo_dir) as project:
        context = load_session_context(project, "demo", "cpu")
        yield RetrievalController(context, "ana", seed=3)


def test_a_session_starts_from_the_secret_targets_category(controller) -> None:
    project = controller.project
    for _ in range(5):
        controller.start(SessionOptions(k=5))
        target, reference = controller.target_id, controller.reference
        assert target is not None and reference is not None and reference != target
        category = project.image(target).category
        assert project.image(reference).category == category
        # The default gallery is the reference's category, as the simulations search.
        assert controller.gallery_category == category
        assert controller.gallery_size() == project.count_images(category=category)


def test_turns_search_the_chosen_gallery_and_are_recorded(controller) -> None:
    project = controller.project
    controller.start(SessionOptions(k=8))
    category = controller.gallery_category
    assert not controller.can_save_transaction()  # nothing to save before a turn
    first = controller.run_turn("is red with long sleeves")
    assert len(first.results) == 8
    assert {project.image(hit.id).category for hit in first.results} == {category}
    assert controller.rank_text().startswith("Target rank:")
    assert controller.can_save_transaction()
    controller.set_gallery(ALL_CATEGORIES)
    second = controller.run_turn("is shorter")
    assert len({project.image(hit.id).category for hit in second.results}) > 1
    recorded = load_session(project, list_sessions(project)[0]["id"])
    assert [t["text"] for t in recorded.turns] == ["is red with long sleeves", "is shorter"]
    assert controller.save_transaction() == "saved"
    assert controller.save_transaction() == "already saved"


def test_reveal_gives_the_target_and_its_rank_even_below_the_shown_results(controller) -> None:
    controller.start(SessionOptions(k=1, gallery=ALL_CATEGORIES))
    assert controller.revealed_target().rank is None  # no turn yet
    for _ in range(10):
        turn = controller.run_turn("is a plain black garment")
        if turn.target_rank and turn.target_rank > 1:
            break
        controller.start(SessionOptions(k=1, gallery=ALL_CATEGORIES))
    view = controller.revealed_target()
    assert view.rank == controller.last_turn.target_rank and view.rank > 1
    assert not view.shown and "below the shown results" in view.text()
    assert view.image_id not in [hit.id for hit in controller.last_turn.results]


def test_menu_phrases_are_read_back_by_the_engine(controller) -> None:
    controller.start(SessionOptions())
    controller.run_turn("is red")
    second_reference = controller.last_turn.results[0].id
    controller.choose(second_reference)
    controller.run_turn("is shorter")
    [(_, back_to_first), _] = controller.rollback_choices()
    typed = controller.with_phrase(back_to_first, "is blue")
    assert parse_turn_text(typed).rollback_to == 1
    turn = controller.run_turn(typed)
    assert turn.kind == "rollback" and turn.reference_id == second_reference
    [(_, keeps), *_] = controller.keep_choices()
    label, phrase = next((label, p) for label, p in keeps if label == "keep the colour")
    assert parse_turn_text(controller.with_phrase(phrase, "")).keeps[0].attribute == "color"


def test_chat_sessions_ask_and_cannot_be_saved_as_transactions(controller) -> None:
    controller.start(SessionOptions(mode="chat"))
    assert controller.reference is None and controller.prompt.startswith("Describe")
    controller.run_turn("a dress")
    assert controller.question is not None
    assert not controller.can_save_transaction()
    with pytest.raises(StudioError, match="composed"):
        controller.save_transaction()


def test_bad_options_and_references_are_clear_errors(controller) -> None:
    controller.start(SessionOptions())
    session = controller.session
    with pytest.raises(StudioError, match="Unsupported strategy 'nope'"):
        controller.start(SessionOptions(strategy="nope"))
    assert controller.session is session and controller.options.strategy != "nope"
    with pytest.raises(StudioError, match="mode"):
        SessionOptions(mode="telepathy")  # type: ignore[arg-type]
    controller.start(SessionOptions())
    with pytest.raises(StudioError, match="no such file"):
        controller.set_reference("not-an-image")
    with pytest.raises(StudioError, match="Unknown category"):
        controller.set_gallery("hats")


def test_index_build_reads_attributes_from_text_first_when_there_are_none(
    demo_project_dir: Path, capsys
) -> None:
    from studio.cli.main import main

    with Project.open(demo_project_dir) as project:
        project.db.execute("DELETE FROM image_attributes")
        assert index_summary(project, "demo") is None
    args = ["index", "build", "--project", str(demo_project_dir), "--device", "cpu", "--json"]
    assert main(args) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["indexed"] == 60 and report["extracted"]["labels"] > 0
    with Project.open(demo_project_dir) as project:
        assert has_attribute_labels(project)
        assert "An index of 60 images for 'demo' exists" in index_summary(project, "demo")
        again = prepare_retrieval(project, "demo", "cpu", actor="ana")
    assert again.extracted is None  # labels exist now: nothing re-read
    assert again.summary().startswith("Index ready: 60 images with 'demo' (flat)")


def test_a_planned_turn_changes_nothing_until_it_is_applied(indexed_demo_dir) -> None:
    from studio.errors import StudioError
    from studio.sessions.controller import RetrievalController
    from studio.sessions.setup import load_session_context
    from studio.store import Project

    with Project.open(indexed_demo_dir) as project:
        controller = RetrievalController(load_session_context(project, "demo", "cpu"), "ana", 1)
        controller.start()
        reference = controller.reference
        planned = controller.plan_turn("is red")
        assert controller.turns == [] and controller.reference == reference  # nothing moved
        turn = controller.apply_turn(planned)
        assert controller.turns == [turn] and turn.results
        controller.start()  # a new session: the old plan no longer fits
        with pytest.raises(StudioError, match="moved on"):
            controller.apply_turn(planned)
