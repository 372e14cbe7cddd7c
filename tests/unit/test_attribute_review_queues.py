"""The attribute review queue, one contract for both faces: the project open here
(``LocalAttributeQueue``) and a team server (``RemoteAttributeQueue`` over a real server
and its client's outbox) hand the same images with the same suggestions, apply one image's
decisions once, bring a skipped image back after the others and count alike; offline, the
team queue keeps the decisions in its outbox and says in one line what needs the
server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from server_support import Served, Server, build_lite, serve_both_ways, tokens

from studio.attributes.labels import review
from studio.attributes.query import attribute_states
from studio.errors import StudioError
from studio.server.client import Client
from studio.store import Project
from studio.store.transfer import copy_project
from studio.team.rehearsal import LEAD
from studio.work_queue.attribute_protocol import (
    ALL_DECIDED,
    NO_DECISIONS,
    NO_IMAGE,
    AttributeImage,
    AttributeReviewQueue,
    AttributesDecided,
)
from studio.work_queue.local_attributes import LocalAttributeQueue
from studio.work_queue.protocol import Progress
from studio.work_queue.remote_attributes import NO_STEP, OFFLINE, RemoteAttributeQueue


@pytest.fixture(params=["local", "remote"])
def served(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Served]:
    yield from serve_both_ways(
        request.param, tmp_path, "annotator", lambda: request.getfixturevalue("postgresql_url"),
        lambda project: LocalAttributeQueue(project, "rae"), lambda client: RemoteAttributeQueue(client, "rae"))


def _states(project: Project, image_id: str) -> dict[str, str]:
    return {state.attribute: state.status for state in attribute_states(project, image_id)}


def _all(image: AttributeImage, first: str = "accepted") -> dict[str, str]:
    """The first attribute ``first``, the others rejected."""
    names = [s.attribute for s in image.suggestions]
    return {names[0]: first, **{name: "rejected" for name in names[1:]}}


def test_both_attribute_queues_answer_the_same_calls_alike(served: Served) -> None:
    queue = served.queue
    assert isinstance(queue, AttributeReviewQueue)
    assert queue.current is None and queue.can("next") is None
    assert queue.can("decide") == NO_IMAGE and queue.can("skip") == NO_IMAGE
    with pytest.raises(StudioError, match=NO_IMAGE):
        queue.decide({"floral": "accepted"})
    start = queue.progress()
    assert start.done == 0 and start.remaining > 3

    # The first image of rae's own batch, every suggestion undecided, with its scores.
    first = queue.take_next()
    assert first is not None and queue.current == first
    assert (first.position, first.queue_size) == (1, start.remaining)
    assert first.suggestions and first.undecided() == [s.attribute for s in first.suggestions]
    assert all(s.score is not None and 0 <= s.score <= 1 for s in first.suggestions)
    project = served.opened()
    batch = {row[0] for row in project.db.execute(
        "SELECT t.item FROM team_assignments t JOIN people p ON p.id = t.person_id "
        "WHERE t.kind = 'attributes' AND p.name = 'rae'")}
    assert first.image_id in batch
    again = queue.take_next()  # asked again: the image on screen
    assert again is not None and again.image_id == first.image_id
    held = queue.hold()
    assert held is not None and held.image_id == first.image_id
    queue.release()  # let go, not skipped: it is still the next one
    assert queue.current is None
    again = queue.take_next()
    assert again is not None and again.image_id == first.image_id

    # Both faces refuse alike, at once, and nothing is written.
    with pytest.raises(StudioError, match="Decide at least one"):
        queue.decide({})
    assert NO_DECISIONS.startswith("Decide at least one")
    with pytest.raises(StudioError, match="accepted or rejected"):
        queue.decide({first.suggestions[0].attribute: "maybe"})
    assert queue.current is not None and queue.current.image_id == first.image_id

    # Skip: the next image; decide it: applied once, the figures count it.
    second = queue.skip()
    assert second is not None and second.image_id != first.image_id
    assert (second.position, second.queue_size) == (1, start.remaining)
    decisions = _all(second)
    decided = queue.decide(decisions)
    assert decided == AttributesDecided(second.image_id, decisions)
    assert not decided.waiting and queue.outcome(decided) == decided
    project = served.opened()
    assert _states(project, second.image_id) == decisions
    actions = [row[0] for row in project.db.execute(
        "SELECT action FROM audit_log WHERE entity = 'image_attributes' "
        "AND entity_id = :image AND actor = 'rae' ORDER BY id", {"image": second.image_id})]
    assert actions == ["attributes.accept", "attributes.reject"][:len(decisions)]
    assert queue.progress() == Progress(1, start.remaining - 1)
    third = queue.current
    assert third is not None and third.image_id not in (first.image_id, second.image_id)
    assert (third.position, third.queue_size) == (2, start.remaining)

    # Previous/Next over the images of this session, where the face has them.
    if queue.can("previous") is None:
        back = queue.step(False)
        assert back is not None and back.image_id == second.image_id
        assert {s.attribute: s.status for s in back.suggestions} == decisions
        forward = queue.step(True)
        assert forward is not None and forward.image_id == third.image_id
    else:
        assert queue.can("previous") == NO_STEP
        assert queue.step(False) == third

    # The skipped image comes back once the others are decided.
    project = served.opened()
    for image in project.iter_images():
        if image.id in (first.image_id, third.image_id):
            continue
        undecided = [name for name, status in _states(project, image.id).items()
                     if status == "suggested"]
        if undecided:
            review(project, LEAD, image.id, undecided, "rejected")
    queue.decide(_all(third, "rejected"))
    back = queue.current
    assert back is not None and back.image_id == first.image_id
    queue.decide({first.suggestions[0].attribute: "accepted"})  # one of two: it stays
    back = queue.current
    assert back is not None and back.image_id == first.image_id
    assert back.undecided() == [s.attribute for s in first.suggestions[1:]]
    queue.decide(dict.fromkeys(back.undecided(), "rejected"))
    assert queue.current is None and queue.can("next") == ALL_DECIDED
    assert queue.take_next() is None and queue.progress() == Progress(3, 0)


def test_offline_the_team_attribute_queue_keeps_the_decisions_and_says_what_needs_the_server(
    postgresql_url: str, tmp_path: Path
) -> None:
    build_lite(tmp_path / "lite")
    copy_project(tmp_path / "lite", postgresql_url)
    key = tokens(postgresql_url, {"rae": "annotator"})["rae"]
    server = Server(postgresql_url).start()
    client = Client(server.base, key, tmp_path / "outbox.sqlite", timeout=30)
    queue = RemoteAttributeQueue(client, "rae")
    try:
        first = queue.take_next()
        assert first is not None
        before = queue.progress()
        server.stop()
        with pytest.raises(StudioError, match="needs the team server"):
            queue.skip()
        # the image held can be decided offline: the decisions wait here
        decisions = _all(first)
        decided = queue.decide(decisions)
        assert decided == AttributesDecided(first.image_id, decisions, waiting=True)
        assert client.waiting() == 1
        assert queue.current is None and queue.can("next") == OFFLINE["next"]
        assert queue.can("skip") == OFFLINE["skip"] and queue.can("decide") == NO_IMAGE
        assert queue.take_next() is None and queue.progress() == before
        assert queue.outcome(decided) == decided  # still waiting

        server.start()
        second = queue.take_next()  # what waited is sent first
        assert second is not None and second.image_id != first.image_id
        assert client.waiting() == 0 and queue.can("next") is None
        assert queue.outcome(decided) == AttributesDecided(first.image_id, decisions)
        assert queue.progress() == Progress(before.done + 1, before.remaining - 1)
    finally:
        client.close()
        server.stop()
    with Project.open(postgresql_url) as project:
        assert _states(project, first.image_id) == decisions
