"""The caption-writing queue, one contract for both faces: the project open here
(``LocalCaptionQueue``) and a team server (``RemoteCaptionQueue`` over a real server and
its client's outbox) answer the same calls with the same items, texts, statuses, flags
and figures; offline, the team queue keeps every edit and says why it cannot hand out a
new pair."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from server_support import Server, call, make_project, tokens

from studio.captions.store import captions_for_pair, flagged_pairs
from studio.server.client import Client
from studio.store import Project
from studio.work_queue import Progress, Submitted, WorkItem, WorkQueue
from studio.work_queue.local import LocalCaptionQueue
from studio.work_queue.protocol import NO_PAIR, NOTHING_TO_UNDO
from studio.work_queue.remote import OFFLINE, RemoteCaptionQueue

N_PAIRS = 8


@dataclass
class Served:
    queue: WorkQueue
    pairs: list[int]  # the project's pairs, in order
    flags: Callable[[], dict[int, str]]  # flagged pair → reason, read from the project


def _pairs(project: Project) -> list[int]:
    return sorted(int(row[0]) for row in project.db.execute("SELECT id FROM pairs"))


@pytest.fixture(params=["local", "remote"])
def served(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Served]:
    if request.param == "local":
        make_project(str(tmp_path / "copy.sqlite"), tmp_path, n_pairs=N_PAIRS)
        with Project.open(tmp_path / "lite") as project:

            def flags() -> dict[int, str]:
                return flagged_pairs(project)

            yield Served(LocalCaptionQueue(project, "ann"), _pairs(project), flags)
        return
    url = request.getfixturevalue("postgresql_url")
    make_project(url, tmp_path, n_pairs=N_PAIRS)
    key = tokens(url, {"ann": "annotator"})["ann"]
    with Project.open(url) as project:
        pairs = _pairs(project)

    def remote_flags() -> dict[int, str]:
        with Project.open(url) as opened:
            return flagged_pairs(opened)

    server = Server(url).start()
    client = Client(server.base, key, tmp_path / "outbox.sqlite", timeout=5)
    try:
        yield Served(RemoteCaptionQueue(client, "ann"), pairs, remote_flags)
    finally:
        client.close()
        server.stop()


def _seen(served: Served, item: WorkItem | None) -> tuple[int, str, str | None] | None:
    """An item as the person sees it: which pair (by its place), their text, its status."""
    if item is None:
        return None
    assert served.queue.current == item
    return served.pairs.index(item.pair_id), item.text, item.status


def test_both_queues_answer_the_same_calls_alike(served: Served) -> None:
    queue, n = served.queue, len(served.pairs)
    assert isinstance(queue, WorkQueue)
    assert n == N_PAIRS
    assert queue.can("undo_save") == NOTHING_TO_UNDO
    assert _seen(served, queue.take_next()) == (0, "", None)
    assert queue.progress() == Progress(0, n)

    kept = queue.save_draft("is red")
    assert kept is not None and (kept.text, kept.status) == ("is red", "draft")
    assert _seen(served, queue.current) == (0, "is red", "draft")
    assert queue.save_draft("   ") == kept  # an emptied editor never overwrites the words

    assert queue.submit("is red with long sleeves") == Submitted(served.pairs[0])
    assert _seen(served, queue.current) == (1, "", None)
    assert queue.progress() == Progress(1, n - 1)
    assert queue.can("undo_save") is None

    assert _seen(served, queue.skip()) == (2, "", None)
    assert _seen(served, queue.flag("  the target picture is blank ")) == (3, "", None)
    assert served.flags() == {served.pairs[2]: "the target picture is blank"}
    assert queue.progress() == Progress(1, n - 3)

    # Previous and Next run over the pairs this person wrote or may write: the skipped
    # and the flagged ones are passed over.
    assert _seen(served, queue.step(False)) == (0, "is red with long sleeves", "submitted")
    assert _seen(served, queue.step(False)) == (0, "is red with long sleeves", "submitted")
    assert _seen(served, queue.step(True)) == (3, "", None)
    queue.step(True)
    assert _seen(served, queue.step(False)) == (3, "", None)

    # Taking the save back: the caption is a draft again and its pair is on screen.
    assert _seen(served, queue.undo_last_save()) == (0, "is red with long sleeves", "draft")
    assert queue.progress() == Progress(0, n - 2)
    assert queue.can("undo_save") == NOTHING_TO_UNDO
    assert queue.undo_last_save() is None

    assert queue.submit("is red, not blue") == Submitted(served.pairs[0])
    assert _seen(served, queue.current) == (3, "", None)
    assert queue.progress() == Progress(1, n - 3)
    assert all(queue.can(action) is None for action in ("next", "previous", "submit", "skip"))
    assert _seen(served, queue.hold()) == (3, "", None)
    queue.release()  # let go, not skipped: the pair is still this person's next
    assert queue.current is None
    assert _seen(served, queue.take_next()) == (3, "", None)


def test_a_submitted_caption_edited_again_goes_back_to_its_words(served: Served) -> None:
    queue = served.queue
    queue.take_next()
    queue.submit("is   darker")  # no draft before: taking it back leaves a draft
    queue.step(False)
    assert _seen(served, queue.current) == (0, "is darker", "submitted")
    queue.submit("is darker and longer")
    assert _seen(served, queue.current) == (1, "", None)
    assert _seen(served, queue.undo_last_save()) == (0, "is darker", "submitted")
    assert _seen(served, queue.undo_last_save()) == (0, "is darker", "draft")
    assert queue.undo_last_save() is None and queue.can("undo_save") == NOTHING_TO_UNDO


def test_offline_the_team_queue_keeps_every_edit_and_says_why_no_pair_comes(
    postgresql_url: str, tmp_path: Path
) -> None:
    make_project(postgresql_url, tmp_path, n_pairs=4)
    key = tokens(postgresql_url, {"ann": "annotator"})["ann"]
    server = Server(postgresql_url).start()
    client = Client(server.base, key, tmp_path / "outbox.sqlite", timeout=5)
    queue = RemoteCaptionQueue(client, "ann")
    try:
        first = queue.take_next()
        assert first is not None and queue.can("next") is None
        server.stop()
        # the held pair can be finished offline: drafts and the submission wait here
        kept = queue.save_draft("is dark")
        assert kept is not None and (kept.text, kept.status) == ("is dark", "draft")
        assert client.waiting() == 1
        assert queue.can("next") == OFFLINE["next"]
        assert queue.can("previous") == OFFLINE["previous"]
        assert queue.can("undo_save") == NOTHING_TO_UNDO
        assert queue.submit("is dark blue") == Submitted(first.pair_id, waiting=True)
        assert queue.can("undo_save") == OFFLINE["undo_save"]
        assert queue.current is None and queue.can("next") == OFFLINE["next"]
        assert queue.can("submit") == NO_PAIR
        assert queue.take_next() is None and queue.step(True) is None
        assert queue.progress() == Progress(0, 0)  # the last figures known
        assert client.waiting() == 2

        server.start()
        second = queue.take_next()  # what waited is sent first
        assert second is not None and second.pair_id != first.pair_id
        assert client.waiting() == 0 and queue.can("next") is None
        assert queue.progress().done == 1

        # a skip, made offline, waits in the outbox too
        server.stop()
        assert queue.skip() is None
        assert queue.can("next") == OFFLINE["next"] and client.waiting() == 1
        server.start()
        third = queue.take_next()
        assert third is not None and third.pair_id not in (first.pair_id, second.pair_id)
    finally:
        client.close()
        server.stop()
    with Project.open(postgresql_url) as project:
        written = [(c.author, c.status, c.text) for c in captions_for_pair(project, first.pair_id)]
        assert written == [("ann", "submitted", "is dark blue")]


def test_the_team_server_keeps_its_rules_for_the_new_queue_routes(
    postgresql_url: str, tmp_path: Path
) -> None:
    """Taking a save back never submits a draft (the quota is checked at submit only);
    a pair held by others up to its quota cannot be held; holding another pair lets the
    one held go without skipping it; a flag resent with its uid is applied once."""
    make_project(postgresql_url, tmp_path, n_pairs=3, per_pair=1)
    keys = tokens(postgresql_url, {"ann": "annotator", "bob": "annotator"})
    server = Server(postgresql_url).start()
    base = server.base
    try:
        first = call(base, "POST", "/v1/captions/next", keys["ann"], {})[1]["item"]["pair_id"]
        call(base, "PUT", f"/v1/captions/{first}/draft", keys["ann"],
             {"edit_uid": "draft-0001", "text": "is red"})
        status, answer = call(base, "POST", f"/v1/captions/{first}/undo", keys["ann"],
                              {"edit_uid": "undo-0001", "text": "is red", "status": "submitted"})
        assert status == 409 and "never submits" in answer["error"]["message"]
        # bob cannot hold the pair ann holds (quota 1); ann holds another, and the first
        # comes back to her (let go, not skipped)
        status, answer = call(base, "POST", f"/v1/captions/{first}/hold", keys["bob"], {})
        assert status == 409 and answer["error"]["code"] == "conflict"
        status, answer = call(base, "POST", "/v1/captions/step", keys["ann"],
                              {"pair_id": first, "forward": True})
        assert status == 200 and answer["item"]["pair_id"] != first
        status, answer = call(base, "POST", f"/v1/captions/{first}/hold", keys["bob"], {})
        assert status == 200 and answer["item"]["pair_id"] == first
        flag = {"edit_uid": "flag-0001", "reason": "the target is blank"}
        assert call(base, "POST", f"/v1/captions/{first}/flag", keys["bob"], flag) == call(
            base, "POST", f"/v1/captions/{first}/flag", keys["bob"], flag)
        progress = call(base, "GET", "/v1/captions/progress", keys["bob"])[1]
        assert progress == {"done": 0, "remaining": 2, "total": 2}
        status, answer = call(base, "POST", "/v1/captions/999999/hold", keys["ann"], {})
        assert status == 404
    finally:
        server.stop()
    with Project.open(postgresql_url) as project:
        assert flagged_pairs(project) == {first: "the target is blank"}
        marks = project.db.execute(
            "SELECT count(*) FROM audit_log WHERE entity = 'pair' AND action = 'flag'"
        ).fetchone()[0]
        assert marks == 1
