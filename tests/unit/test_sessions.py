"""Retrieval sessions on the real demo model and index: turns, rollback, combination, chat,
recording and export."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from studio.errors import StudioError
from studio.sessions.questioner import InformationGainQuestioner
from studio.sessions.setup import load_session_context
from studio.sessions.store import SessionRecorder, load_session, session_transaction
from studio.store import Project


@pytest.fixture
def context(indexed_demo_dir: Path):
    project = Project.open(indexed_demo_dir)
    yield load_session_context(project, "demo", "cpu")
    project.close()


def test_a_composed_turn_ranks_the_gallery_and_reports_the_target(context) -> None:
    images = list(context.project.iter_images())
    target, reference = images[3].id, images[40].id
    session = context.new_session("history", target_id=target, k=10)
    colour = context.facets[target]["color"]
    turn = session.composed_turn(f"is {colour}", reference_id=reference)
    assert len(turn.results) == 10
    assert reference not in [hit.id for hit in turn.results]  # the reference is not a result
    assert turn.asked == {"color": colour}
    assert 1 <= turn.target_rank <= len(images) - 1
    scores = [hit.score for hit in turn.results]
    assert scores == sorted(scores, reverse=True)


def test_text_constraints_pull_matching_items_up(context) -> None:
    session = context.new_session("history")
    colour = "red" if any(f.get("color") == "red" for f in context.facets.values()) else next(
        iter(context.facets.values()))["color"]
    turn = session.composed_turn(f"is {colour}")
    with_colour = [i for i, f in context.facets.items() if f.get("color") == colour]
    top = [hit.id for hit in turn.results[: len(with_colour)]]
    assert set(top) == set(with_colour)


def test_rollback_makes_an_earlier_item_the_reference_again(context) -> None:
    images = [image.id for image in context.project.iter_images()]
    session = context.new_session("history")
    session.composed_turn("is longer", reference_id=images[0])
    session.choose(images[5])
    session.composed_turn("is darker")
    session.choose(images[9])
    turn = session.composed_turn("I still prefer the item from the first turn, and in blue")
    assert turn.kind == "rollback"
    assert turn.reference_id == images[5]  # the item carried forward from turn 1
    with pytest.raises(StudioError, match="no turn 7"):
        session.composed_turn("go back to turn 7")


def test_combination_keeps_the_named_turns_facet(context) -> None:
    images = [image.id for image in context.project.iter_images()]

    def run(strategy: str):
        session = context.new_session(strategy)
        session.composed_turn("is shorter", reference_id=images[0])
        session.choose(images[7])
        return session.composed_turn("keep the colour of the first turn and make it loose")

    turn = run("history")
    assert turn.kind == "combination"
    colour = context.facets[images[7]]["color"]
    assert turn.kept == {"color": colour}

    def mean_position_of_colour(results) -> float:
        ids = [hit.id for hit in results]
        positions = [ids.index(i) for i, f in context.facets.items()
                     if f.get("color") == colour and i in ids]
        return sum(positions) / len(positions)

    assert mean_position_of_colour(turn.results) < mean_position_of_colour(run("image").results)


def test_chat_asks_new_questions_and_narrows_the_results(context) -> None:
    images = list(context.project.iter_images())
    target = images[10].id
    truth = context.facets[target]
    session = context.new_session("history", mode="chat", target_id=target)
    questioner = InformationGainQuestioner(context.facet_map.names)
    session.chat_turn(images[10].category)
    asked = []
    for _ in range(3):
        question = session.next_question(questioner)
        assert question.facet not in asked
        asked.append(question.facet)
        session.chat_turn(truth.get(question.facet, "unknown"), question)
    ranks = [turn.target_rank for turn in session.turns]
    assert ranks[-1] <= ranks[0]
    assert ranks[-1] <= 5


def record_two_turns(context, strategy: str, target: str, start: str, chosen: str,
                     second_text: str) -> int:
    """Record 'is red' from ``start``, carry ``chosen`` forward, then ``second_text``."""
    session = context.new_session(strategy, target_id=target)
    recorder = SessionRecorder(context.project, "ana")
    session_id = recorder.start(session, "demo")
    recorder.record(session.composed_turn("is red", reference_id=start))
    session.choose(chosen)
    recorder.record(session.turns[-1])
    recorder.record(session.composed_turn(second_text))
    return session_id


def test_turns_are_recorded_and_export_as_a_transaction(context) -> None:
    images = [image.id for image in context.project.iter_images()]
    session_id = record_two_turns(context, "sum", images[2], images[0], images[4],
                                  "go back to turn 1 and make it blue")
    recorded = load_session(context.project, session_id)
    assert recorded.strategy == "sum" and recorded.target_id == images[2]
    assert [t["kind"] for t in recorded.turns] == ["composed", "rollback"]
    assert recorded.turns[0]["timings"]["chosen_id"] == images[4]
    assert all(t["target_rank"] for t in recorded.turns)
    transaction = session_transaction(context.project, session_id)
    assert transaction.image_ids[:2] == (images[0], images[4])
    assert [turn.reference_position for turn in transaction.turns] == [0, 1]


def test_sessions_cli_lists_replays_and_exports(context, indexed_demo_dir, tmp_path, capsys) -> None:
    from studio.cli.main import main

    images = [image.id for image in context.project.iter_images()]
    session_id = record_two_turns(context, "history", images[3], images[0], images[8],
                                  "is longer")
    project = ["--project", str(indexed_demo_dir)]
    assert main(["sessions", "list", *project]) == 0
    assert f"{session_id:>4}" in capsys.readouterr().out
    assert main(["sessions", "show", *project, str(session_id)]) == 0
    shown = capsys.readouterr().out
    assert "turn 1 (composed)" in shown and "is longer" in shown and "target rank" in shown
    out = tmp_path / "sessions.json"
    assert main(["sessions", "export", *project, str(session_id), str(out)]) == 0
    [entry] = json.loads(out.read_text())
    assert (entry["ref"], entry["tar1"], entry["mod1"], entry["mod2"]) == (
        images[0], images[8], "is red", "is longer")
    assert main(["sessions", "show", *project, "999"]) == 2
    assert "no retrieval session 999" in capsys.readouterr().err
