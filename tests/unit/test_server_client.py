"""The client's outbox: the server stops mid-session, the person keeps saving, the
server comes back and every edit is applied exactly once; the same when the studio
dies between saving to the outbox and sending."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from server_support import ROOT, Server, make_project, tokens

from studio.server.client import Client, Offline
from studio.store import Project


def _applied(url: str) -> tuple[list[str], list[tuple]]:
    with Project.open(url) as project:
        uids = [r[0] for r in project.db.execute("SELECT uid FROM server_edits ORDER BY uid")]
        captions = project.db.execute(
            "SELECT c.pair_id, a.name, c.status, c.text FROM captions c "
            "JOIN people a ON a.id = c.author_id ORDER BY c.id"
        ).fetchall()
    return uids, captions


def test_edits_made_while_the_server_is_down_arrive_once(
    postgresql_url: str, tmp_path: Path
) -> None:
    make_project(postgresql_url, tmp_path, n_pairs=3)
    key = tokens(postgresql_url, {"ann": "annotator"})["ann"]
    server = Server(postgresql_url).start()
    client = Client(server.base, key, tmp_path / "outbox.sqlite", timeout=30)
    try:
        item = client.next_item()
        assert item is not None
        pair = item["pair_id"]
        uids = [client.save_draft(pair, "is dark"), client.save_draft(pair, "is darker")]
        assert client.waiting() == 0
        server.stop()
        uids += [client.save_draft(pair, f"is darker and {word}") for word in ("long", "longer")]
        uids.append(client.submit(pair, "is darker and longer, with buttons"))
        assert client.waiting() == 3
        try:
            client.flush()
            raise AssertionError("flush should fail while the server is down")
        except Offline as error:
            assert "edits wait" in str(error)
        assert client.waiting() == 3
        server.start()
        assert client.flush() == 3 and client.waiting() == 0
        assert client.answer(uids[-1])[0] == 200
        # the answer to the submission was lost on the way back: sent again, applied once
        status, again = client.call("POST", f"/v1/captions/{pair}/submit",
                                    {"edit_uid": uids[-1], "text": "a different text"})
        assert (status, again) == client.answer(uids[-1])
    finally:
        client.close()
        server.stop()
    applied, captions = _applied(postgresql_url)
    assert applied == sorted(uids)
    assert captions == [(pair, "ann", "submitted", "is darker and longer, with buttons")]


KILLED = """
import os, sys
from studio.server.client import Client
client = Client(sys.argv[1], sys.argv[2], __import__('pathlib').Path(sys.argv[3]))
client.save_draft(int(sys.argv[4]), "written before the crash", send=False)
os._exit(9)  # dies between saving to the outbox and sending
"""


def test_an_edit_kept_before_a_crash_is_sent_by_the_next_session(
    postgresql_url: str, tmp_path: Path
) -> None:
    make_project(postgresql_url, tmp_path, n_pairs=2)
    key = tokens(postgresql_url, {"ann": "annotator"})["ann"]
    server = Server(postgresql_url).start()
    box = tmp_path / "outbox.sqlite"
    try:
        first = Client(server.base, key, box)
        pair = first.next_item()["pair_id"]
        first.close()
        died = subprocess.run(
            [sys.executable, "-c", KILLED, server.base, key, str(box), str(pair)],
            env={"PYTHONPATH": str(ROOT), "PATH": ""}, check=False,
        )
        assert died.returncode == 9
        again = Client(server.base, key, box)
        assert again.waiting() == 1
        assert again.flush() == 1 and again.waiting() == 0
        again.close()
    finally:
        server.stop()
    applied, captions = _applied(postgresql_url)
    assert len(applied) == 1
    assert captions == [(pair, "ann", "draft", "written before the crash")]


def test_one_client_used_from_two_threads_sends_each_edit_once(
    postgresql_url: str, tmp_path: Path
) -> None:
    """The studio saves on its UI thread and sends from its IO lane: one thread keeps
    saving while another flushes; every edit arrives once, in the order made."""
    import threading

    make_project(postgresql_url, tmp_path, n_pairs=2)
    key = tokens(postgresql_url, {"ann": "annotator"})["ann"]
    server = Server(postgresql_url).start()
    client = Client(server.base, key, tmp_path / "outbox.sqlite")
    uids: list[str] = []
    try:
        pair = client.next_item()["pair_id"]
        saving = True
        errors: list[BaseException] = []

        def send() -> None:
            while saving:
                try:
                    client.flush()
                except BaseException as error:  # noqa: BLE001 - reported below
                    errors.append(error)
                    return

        sender = threading.Thread(target=send)
        sender.start()
        for n in range(20):
            uids.append(client.save_draft(pair, f"is darker {n}", send=False))
        saving = False
        sender.join()
        client.flush()
        assert errors == [] and client.waiting() == 0
        assert all(client.answer(uid)[0] == 200 for uid in uids)
    finally:
        client.close()
        server.stop()
    applied, captions = _applied(postgresql_url)
    assert applied == sorted(uids)
    assert captions == [(pair, "ann", "draft", "is darker 19")]


def test_two_tokens_on_one_machine_keep_separate_default_outboxes(
    postgresql_url: str, tmp_path: Path, studio_home: Path
) -> None:
    """ann's edit, kept while the server is away, goes out under ann's name only: bo's
    client on the same machine and server has an outbox of its own (the default one,
    named by a hash of server and token, never the token itself)."""
    make_project(postgresql_url, tmp_path, n_pairs=3)
    keys = tokens(postgresql_url, {"ann": "annotator", "bo": "annotator"})
    server = Server(postgresql_url)
    ann = Client(server.base, keys["ann"], timeout=30)
    bo = Client(server.base + "/", keys["bo"], timeout=30)
    try:
        assert ann.outbox_path != bo.outbox_path
        assert ann.outbox_path.is_relative_to(studio_home)
        for client in (ann, bo):
            assert keys["ann"] not in str(client.outbox_path)
            assert keys["bo"] not in str(client.outbox_path)
        again = Client(server.base + "/", keys["ann"], timeout=30)
        assert again.outbox_path == ann.outbox_path  # the same person finds their edits
        again.close()
        server.start()
        pair = ann.next_item()["pair_id"]
        server.stop()
        ann.save_draft(pair, "is darker")  # kept: the server is away
        assert (ann.waiting(), bo.waiting()) == (1, 0)
        server.start()
        assert bo.flush() == 0  # nothing of ann's goes out with bo's token
        assert ann.flush() == 1
    finally:
        ann.close()
        bo.close()
        server.stop()
    _uids, captions = _applied(postgresql_url)
    assert captions == [(pair, "ann", "draft", "is darker")]
