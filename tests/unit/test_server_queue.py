"""The lease queue without HTTP: an expired lease returns its pair to the queue; the
token commands print a token once and never list it."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest
from server_support import make_project

from studio.captions.store import review_caption, save_draft, submit_caption
from studio.cli.main import main
from studio.server import edits, queue
from studio.server.tokens import Identity
from studio.store import Project

ANN, BOB = Identity(1, "ann", "annotator"), Identity(2, "bob", "annotator")


def test_an_expired_lease_returns_the_pair_to_the_queue(
    postgresql_url: str, tmp_path: Path
) -> None:
    make_project(postgresql_url, tmp_path, n_pairs=3, per_pair=1)
    with Project.open(postgresql_url) as project:
        held = queue.take_next(project, ANN, 300)
        assert held is not None
        other = queue.take_next(project, BOB, 300)
        assert other is not None and other["pair_id"] != held["pair_id"]  # quota 1: taken
        queue.release(project, BOB, other["lease_id"])
        # Ann's lease ran out (a lease that ended a second ago, rather than a wait)
        project.db.execute("UPDATE server_leases SET expires_at = expires_at - 400")
        again = queue.take_next(project, BOB, 300)
        assert again is not None and again["pair_id"] == held["pair_id"]
        assert queue.take_next(project, ANN, 300)["pair_id"] != held["pair_id"]


def test_a_pair_handed_back_after_a_rejection_says_why_and_holds_the_new_draft(
    postgresql_url: str, tmp_path: Path
) -> None:
    make_project(postgresql_url, tmp_path, n_pairs=1, per_pair=1)
    with Project.open(postgresql_url) as project:
        first = queue.take_next(project, ANN, 300)
        assert first is not None and (first["text"], first["status"]) == ("", None)
        assert first["rejected"] is None
        pair = first["pair_id"]
        written, _ = submit_caption(project, pair, "ann", "is red")
        review_caption(project, written.id, "lead", "reject", reason="say the colour")
        back = queue.take_next(project, ANN, 300)
        assert back is not None and back["pair_id"] == pair
        assert (back["text"], back["status"]) == ("", None)  # the rejected one is not hers now
        assert back["rejected"] == {"text": "is red", "reason": "say the colour",
                                    "reviewer": "lead"}
        save_draft(project, pair, "ann", "is dark red")
        held = queue.take_next(project, ANN, 300)
        assert held is not None and held["lease_id"] == back["lease_id"]  # the same lease
        assert (held["text"], held["status"]) == ("is dark red", "draft")
        assert held["rejected"]["text"] == "is red"
        assert queue.take_next(project, BOB, 300) is None  # per pair 1: Ann holds it


def test_pairs_with_their_captions_are_passed_and_one_that_loses_a_caption_comes_first(
    postgresql_url: str, tmp_path: Path
) -> None:
    """The lease scan starts at the first pair short of its captions (``live_captions``):
    the full pairs before it are never handed out, and a pair a rejection reopens is handed
    out again before the pairs after it."""
    make_project(postgresql_url, tmp_path, n_pairs=5, per_pair=1)
    cem, dan = Identity(3, "cem", "annotator"), Identity(4, "dan", "annotator")
    with Project.open(postgresql_url) as project:
        pairs = sorted(int(row[0]) for row in project.db.execute("SELECT id FROM pairs"))
        written = []
        for person in (ANN, BOB):
            held = queue.take_next(project, person, 300)
            assert held is not None
            status, answer = edits.submit(project, person, held["pair_id"], f"uid-{person.name}",
                                          "is red")  # as the server does: the lease ends
            assert status == 200
            written.append(answer)
        assert [caption["pair_id"] for caption in written] == pairs[:2]
        assert queue.take_next(project, cem, 300)["pair_id"] == pairs[2]
        review_caption(project, written[0]["caption_id"], "lead", "reject",
                       reason="say the colour")
        assert queue.take_next(project, dan, 300)["pair_id"] == pairs[0]
        assert queue.take_next(project, Identity(5, "eve", "annotator"), 300)["pair_id"] \
            == pairs[3]


def test_a_pair_whose_author_submits_while_another_waits_for_it_is_still_handed_out(
    postgresql_url: str, tmp_path: Path
) -> None:
    """Bob asks for a pair while Ann's submit on the only one left holds it: once her
    submit commits (her caption counted, her lease gone) the pair has room for Bob. The
    scan that waited for the pair rechecks it with its new caption count but the leases
    it read before the wait (Ann's still there): counted together, the pair looked full."""
    make_project(postgresql_url, tmp_path, n_pairs=1, per_pair=2)
    submitted, commit = threading.Event(), threading.Event()
    found: list[object] = []
    with Project.open(postgresql_url) as project:
        held = queue.take_next(project, ANN, 300)
        assert held is not None
        pair = held["pair_id"]
        assert edits.save_draft(project, ANN, pair, "uid-draft", "is red")[0] == 200

        def ann_submits() -> None:
            with project.writing("captions"):  # her submit, held open until told
                assert edits.submit(project, ANN, pair, "uid-submit", "is red")[0] == 200
                submitted.set()
                commit.wait(30)

        def bob_asks() -> None:
            found.append(queue.take_next(project, BOB, 300))

        ann = threading.Thread(target=ann_submits)
        ann.start()
        assert submitted.wait(30)
        bob = threading.Thread(target=bob_asks)
        bob.start()
        waiting = ("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                   "AND datname = current_database()")
        until = time.monotonic() + 30
        while project.db.execute(waiting).fetchone()[0] == 0 and bob.is_alive():
            assert time.monotonic() < until, "Bob's scan never waited for the pair"
            time.sleep(0.02)
        commit.set()
        ann.join(30)
        bob.join(30)
        assert found and found[0] is not None and found[0]["pair_id"] == pair


def test_token_commands(postgresql_url: str, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    Project.create(postgresql_url, local_path=tmp_path / "p.pg").close()
    assert main(["server", "token", "add", "ann", "--role", "annotator",
                 "--project", postgresql_url]) == 0
    token = capsys.readouterr().out.strip()
    assert token.startswith("cir_")
    assert main(["server", "token", "add", "ann", "--role", "rater",
                 "--project", postgresql_url]) == 2
    assert "revoke it first" in capsys.readouterr().err
    assert main(["server", "token", "list", "--json", "--project", postgresql_url]) == 0
    listed = capsys.readouterr().out
    assert token.split("_", 2)[2] not in listed and "digest" not in listed
    assert [row["name"] for row in json.loads(listed)] == ["ann"]
    assert main(["server", "token", "revoke", "ann", "--project", postgresql_url]) == 0
    assert main(["server", "start", "--project", str(tmp_path / "x.cirdb")]) == 2
    assert "PostgreSQL project" in capsys.readouterr().err
