"""The rating queue, one contract for both faces: the project open here
(``LocalRatingQueue``) and a team server (``RemoteRatingQueue`` over a real server and its
client's outbox) answer the same calls with the same blind items, scores, finishes and
figures; offline, the team queue keeps the scores and the finish and says in one line what
needs the server."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from server_support import Served, Server, build_lite, serve_both_ways, tokens

from studio.errors import StudioError
from studio.quality import ratings
from studio.quality.criteria import CRITERION_KEYS
from studio.server.client import Client
from studio.store import Project
from studio.store.transfer import copy_project
from studio.work_queue.local_rating import LocalRatingQueue
from studio.work_queue.rating_protocol import (
    NO_ITEM,
    NOT_SCORED,
    Finished,
    Progress,
    RatingCard,
    RatingQueue,
)
from studio.work_queue.remote_rating import OFFLINE, RemoteRatingQueue

TEXTS = ("is red", "is longer", "has a v-neck")
FULL = dict(zip(CRITERION_KEYS, (4, 3, 5, 4, 2), strict=True))


@pytest.fixture(params=["local", "remote"])
def served(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Served]:
    yield from serve_both_ways(
        request.param, tmp_path, "rater", lambda: request.getfixturevalue("postgresql_url"),
        lambda project: LocalRatingQueue(project, "rae"), lambda client: RemoteRatingQueue(client, "rae"))


def _blind(card: RatingCard | None) -> None:
    """What a rater sees: turns by image id and text, their own scores; nothing else."""
    assert card is not None
    assert {f.name for f in dataclasses.fields(card)} == {
        "assignment_id", "position", "queue_size", "history", "turn", "scores", "note",
        "status"}
    assert "SecretSet" not in repr(card) and "/" not in repr(card)
    assert card.turn.text in TEXTS and len(card.history) == card.turn.index - 1
    assert [turn.index for turn in card.history] == list(range(1, card.turn.index))
    if card.history:
        assert card.history[-1].target_id == card.turn.reference_id


def test_both_rating_queues_answer_the_same_calls_alike(served: Served) -> None:
    queue = served.queue
    assert isinstance(queue, RatingQueue)
    assert queue.current is None and queue.sample == ""
    assert queue.can("score") == NO_ITEM and queue.can("finish") == NO_ITEM
    with pytest.raises(StudioError, match=NO_ITEM):
        queue.score("accuracy", 3)
    samples = queue.samples()
    total = samples["main"].total
    assert list(samples) == ["main"] and total > 3
    assert samples["main"] == Progress(total, total, 0, 0, 0)

    # The rater opens on the sample with work, at the first item of their queue.
    first = queue.take_next()
    _blind(first)
    assert first is not None and queue.current == first and queue.sample == "main"
    assert (first.position, first.queue_size, first.status, first.note) == (1, total,
                                                                           "pending", "")
    assert dict(first.scores) == dict.fromkeys(CRITERION_KEYS)
    assert queue.can("score") is None and queue.can("finish") is None

    # Scores are kept one by one; wrong ones are refused alike; done needs all five.
    assert queue.score("accuracy", 4).scores["accuracy"] == 4
    for key, bad in (("accuracy", 7), ("accuracy", True), ("origin", 3)):
        with pytest.raises(StudioError):
            queue.score(key, bad)
    with pytest.raises(StudioError, match=re.escape(NOT_SCORED)):
        queue.finish("done")
    assert queue.current is not None and queue.current.assignment_id == first.assignment_id
    for key, value in FULL.items():
        queue.score(key, value)
    assert queue.keep_note(" fine ").note == "fine"
    assert queue.take_next() == queue.current  # still the item on screen: nothing lost
    assert queue.current is not None and dict(queue.current.scores) == FULL
    assert queue.finish("done") == Finished(first.assignment_id, "done")

    second = queue.current
    _blind(second)
    assert second is not None and second.position == 2
    assert queue.progress() == Progress(total, total - 1, 1, 0, 0)
    assert queue.finish("skipped") == Finished(second.assignment_id, "skipped")
    third = queue.current
    assert third is not None and third.position == 3
    assert queue.finish("flagged", "the target is blurred") == Finished(
        third.assignment_id, "flagged")
    assert queue.progress() == Progress(total, total - 3, 1, 1, 1)

    # The score was saved once, in the project, and is the rater's own.
    project = served.opened()
    saved = ratings.load_item(project, first.assignment_id, "rae")
    assert (dict(saved.scores), saved.note, saved.status) == (FULL, "fine", "done")
    assert len(project.audit_trail("rating", first.assignment_id)) == len(FULL) + 1
    flagged = ratings.load_item(project, third.assignment_id, "rae")
    assert (flagged.note, flagged.status) == ("the target is blurred", "flagged")

    # To the end of the queue: the view then says what was done, and nothing is offered.
    while queue.current is not None:
        queue.finish("skipped")
    assert queue.take_next() is None
    assert queue.can("next") == (f"Nothing left to rate in sample main: finished with 1 rated, "
                                 f"{total - 2} skipped, 1 flagged — thank you!")
    assert queue.progress() == Progress(total, 0, 1, total - 2, 1)
    queue.choose("main")
    assert queue.current is None and queue.take_next() is None


def test_offline_the_team_rating_queue_keeps_the_scores_and_says_what_needs_the_server(
    postgresql_url: str, tmp_path: Path
) -> None:
    build_lite(tmp_path / "lite")
    copy_project(tmp_path / "lite", postgresql_url)
    key = tokens(postgresql_url, {"rae": "rater"})["rae"]
    server = Server(postgresql_url).start()
    client = Client(server.base, key, tmp_path / "outbox.sqlite", timeout=5)
    queue = RemoteRatingQueue(client, "rae")
    try:
        first = queue.take_next()
        assert first is not None
        before = queue.progress()
        server.stop()
        # The item on screen can be scored and finished offline: it all waits here.
        for key_, value in FULL.items():
            queue.score(key_, value)
        finished = queue.finish("done", "fine")
        assert finished == Finished(first.assignment_id, "done", waiting=True)
        assert client.waiting() == len(FULL) + 1
        assert queue.current is None and queue.can("next") == OFFLINE["next"]
        assert queue.can("progress") == OFFLINE["progress"]
        assert queue.can("score") == NO_ITEM
        assert queue.take_next() is None and queue.progress() == before  # the last figures
        assert queue.outcome(finished) == finished  # still waiting

        server.start()
        second = queue.take_next()  # what waited is sent first
        assert second is not None and second.position == 2
        assert client.waiting() == 0 and queue.can("next") is None
        assert queue.outcome(finished) == Finished(first.assignment_id, "done")
        assert queue.progress() == Progress(before.total, before.pending - 1, 1, 0, 0)
    finally:
        client.close()
        server.stop()
    with Project.open(postgresql_url) as project:
        saved = ratings.load_item(project, first.assignment_id, "rae")
        assert (dict(saved.scores), saved.note, saved.status) == (FULL, "fine", "done")
