"""The caption-review queue, one contract for both faces: the project open here
(``LocalReviewQueue``) and a team server (``RemoteReviewQueue`` over a real server and its
client's outbox) answer the same calls with the same captions, flags, decisions and
figures; offline, the team queue keeps a decision and says in one line what needs the
server."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from server_support import Server, call, make_project, tokens

from studio.captions.store import get_caption, submit_caption
from studio.errors import StudioError
from studio.server.client import Client
from studio.store import Project
from studio.work_queue import Progress
from studio.work_queue.local_review import LocalReviewQueue
from studio.work_queue.remote_review import OFFLINE, RemoteReviewQueue
from studio.work_queue.review_protocol import (
    NO_CAPTION,
    NO_DECISION,
    NO_REASON,
    Decided,
    ReviewItem,
    ReviewQueue,
)

TEXTS = ("is red with long sleeves", "x", "is blue and shorter", "has a collar")


@dataclass
class Served:
    queue: ReviewQueue
    captions: list[int]  # the captions written, in pair order


def _write(project: Project) -> list[int]:
    pairs = sorted(int(row[0]) for row in project.db.execute("SELECT id FROM pairs"))
    return [submit_caption(project, pair_id, "ann", text)[0].id
            for pair_id, text in zip(pairs, TEXTS, strict=False)]


@pytest.fixture(params=["local", "remote"])
def served(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Served]:
    if request.param == "local":
        make_project(str(tmp_path / "copy.sqlite"), tmp_path, n_pairs=6)
        with Project.open(tmp_path / "lite") as project:
            yield Served(LocalReviewQueue(project, "rev"), _write(project))
        return
    url = request.getfixturevalue("postgresql_url")
    make_project(url, tmp_path, n_pairs=6)
    key = tokens(url, {"rev": "reviewer"})["rev"]
    with Project.open(url) as project:
        captions = _write(project)
    server = Server(url).start()
    client = Client(server.base, key, tmp_path / "outbox.sqlite", timeout=30)
    try:
        yield Served(RemoteReviewQueue(client, "rev"), captions)
    finally:
        client.close()
        server.stop()


def _seen(served: Served, item: ReviewItem | None) -> tuple | None:
    """A caption as the reviewer sees it: which (by its place), text, status, author, the
    kinds of its flags, who decided it and why it was rejected."""
    if item is None:
        return None
    assert served.queue.current == item
    return (served.captions.index(item.caption_id), item.text, item.status, item.author,
            [flag.kind for flag in item.flags], item.reviewer, item.reject_reason)


def test_both_review_queues_answer_the_same_calls_alike(served: Served) -> None:
    queue, ids = served.queue, served.captions
    assert isinstance(queue, ReviewQueue)
    assert queue.can("undo_decision") == NO_DECISION
    assert queue.can("accept") == NO_CAPTION
    assert _seen(served, queue.take_next()) == (0, TEXTS[0], "submitted", "ann", [], None, None)
    assert queue.progress() == Progress(0, 4)

    assert queue.accept("is red with long   sleeves and a collar") == Decided(ids[0], "accept")
    item = queue.current
    assert _seen(served, item) == (1, "x", "submitted", "ann", ["short"], None, None)
    assert item is not None and item.flags[0].reason.startswith("Very short")
    with pytest.raises(StudioError, match=NO_REASON):
        queue.reject("   ")
    assert queue.reject(" too short ") == Decided(ids[1], "reject")
    assert _seen(served, queue.current)[:3] == (2, TEXTS[2], "submitted")
    assert _seen(served, queue.skip())[:3] == (3, TEXTS[3], "submitted")
    # A skipped caption comes back after the others: skipping the last one left brings
    # back the one skipped before, and skipping that one brings the other back again.
    assert _seen(served, queue.skip())[:3] == (2, TEXTS[2], "submitted")
    assert _seen(served, queue.skip())[:3] == (3, TEXTS[3], "submitted")
    assert queue.progress() == Progress(2, 2)

    # Previous and Next run over the captions to review and those this reviewer decided.
    assert _seen(served, queue.step(False))[:3] == (2, TEXTS[2], "submitted")
    assert _seen(served, queue.step(False)) == (1, "x", "rejected", "ann", ["short"], "rev",
                                                "too short")
    accepted = (0, "is red with long sleeves and a collar", "accepted", "ann", [], "rev", None)
    assert _seen(served, queue.step(False)) == accepted
    assert _seen(served, queue.step(False)) == accepted  # none before: it stays
    assert _seen(served, queue.step(True))[:3] == (1, "x", "rejected")

    # Taking decisions back, last first: each caption is as its author left it, on screen.
    assert _seen(served, queue.undo_last_decision()) == (1, "x", "submitted", "ann", ["short"],
                                                         None, None)
    assert queue.progress() == Progress(1, 3)
    assert queue.can("undo_decision") is None
    assert _seen(served, queue.undo_last_decision()) == (0, TEXTS[0], "submitted", "ann", [],
                                                         None, None)
    assert queue.can("undo_decision") == NO_DECISION and queue.undo_last_decision() is None
    assert queue.progress() == Progress(0, 4)
    assert _seen(served, queue.hold())[:3] == (0, TEXTS[0], "submitted")
    queue.release()  # let go, not skipped: it is still the reviewer's next
    assert queue.current is None
    assert _seen(served, queue.take_next())[:3] == (0, TEXTS[0], "submitted")


def test_offline_the_team_review_queue_keeps_a_decision_and_says_what_needs_the_server(
    postgresql_url: str, tmp_path: Path
) -> None:
    make_project(postgresql_url, tmp_path, n_pairs=4)
    key = tokens(postgresql_url, {"rev": "reviewer"})["rev"]
    with Project.open(postgresql_url) as project:
        ids = _write(project)
    server = Server(postgresql_url).start()
    client = Client(server.base, key, tmp_path / "outbox.sqlite", timeout=30)
    queue = RemoteReviewQueue(client, "rev")
    try:
        first = queue.take_next()
        assert first is not None and first.caption_id == ids[0]
        server.stop()
        # the caption held can be decided offline: the decision waits here
        decided = queue.accept("is red with long sleeves and a belt")
        assert decided == Decided(ids[0], "accept", waiting=True)
        assert client.waiting() == 1
        assert queue.current is None and queue.can("next") == OFFLINE["next"]
        assert queue.can("previous") == OFFLINE["previous"]
        assert queue.can("undo_decision") == OFFLINE["undo_decision"]
        assert queue.can("accept") == NO_CAPTION
        assert queue.take_next() is None and queue.step(True) is None
        with pytest.raises(StudioError, match="needs the team server"):
            queue.undo_last_decision()
        assert queue.outcome(decided) == decided  # still waiting

        server.start()
        second = queue.take_next()  # what waited is sent first
        assert second is not None and second.caption_id == ids[1]
        assert client.waiting() == 0 and queue.can("next") is None
        assert queue.outcome(decided) == Decided(ids[0], "accept")
        assert [flag.kind for flag in second.flags] == ["short"]
    finally:
        client.close()
        server.stop()
    with Project.open(postgresql_url) as project:
        caption = get_caption(project, ids[0])
        assert (caption.status, caption.text, caption.reviewer) == (
            "accepted", "is red with long sleeves and a belt", "rev")


def test_the_team_server_keeps_its_rules_for_the_review_routes(
    postgresql_url: str, tmp_path: Path
) -> None:
    """A reviewer cannot hold their own caption nor one another reviewer holds; a decision
    can be taken back only by its reviewer, once per uid."""
    make_project(postgresql_url, tmp_path, n_pairs=4)
    keys = tokens(postgresql_url, {"rev": "reviewer", "ann": "reviewer"})
    with Project.open(postgresql_url) as project:
        ids = _write(project)
    server = Server(postgresql_url).start()
    base = server.base
    try:
        status, answer = call(base, "POST", f"/v1/reviews/{ids[0]}/hold", keys["ann"], {})
        assert status == 403
        status, answer = call(base, "POST", f"/v1/reviews/{ids[0]}/hold", keys["rev"], {})
        assert status == 200 and answer["item"]["author"] == "ann"
        with Project.open(postgresql_url) as project:
            submit_caption(project, answer["item"]["pair_id"], "bob", "is bluer")
            bobs = project.db.execute("SELECT max(id) FROM captions").fetchone()[0]
        keys.update(tokens(postgresql_url, {"eve": "reviewer"}))
        status, _ = call(base, "POST", f"/v1/reviews/{ids[0]}/hold", keys["eve"], {})
        assert status == 409  # rev holds it
        status, answer = call(base, "POST", f"/v1/reviews/{bobs}/hold", keys["rev"], {})
        assert answer["item"]["others"] == [
            {"text": TEXTS[0], "author": "ann", "status": "submitted"}]
        decision = {"edit_uid": "decide-0001", "decision": "reject", "reason": "too vague"}
        assert call(base, "POST", f"/v1/reviews/{bobs}/decision", keys["rev"], decision)[0] == 200
        undo = {"edit_uid": "undo-0001", "text": "is bluer"}
        status, answer = call(base, "POST", f"/v1/reviews/{bobs}/undo", keys["eve"], undo | {
            "edit_uid": "undo-0002"})
        assert status == 409 and "cannot be undone" in answer["error"]["message"]
        first = call(base, "POST", f"/v1/reviews/{bobs}/undo", keys["rev"], undo)
        assert first[0] == 200 and first[1]["status"] == "submitted"
        assert call(base, "POST", f"/v1/reviews/{bobs}/undo", keys["rev"], undo) == first
        assert call(base, "GET", "/v1/reviews/progress", keys["rev"])[1] == {
            "done": 0, "remaining": 5, "total": 5}
    finally:
        server.stop()
    with Project.open(postgresql_url) as project:
        caption = get_caption(project, bobs)
        assert (caption.status, caption.reviewer, caption.reject_reason) == (
            "submitted", None, None)
