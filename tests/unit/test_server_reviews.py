"""Reviewing captions and deciding attributes over the team server, through the client:
the next item comes with a lease, nobody reviews their own caption, two people never hold
one item, and every decision is applied exactly once (also when sent again)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from server_support import Server, tokens

from studio.errors import StudioError
from studio.server.client import Client
from studio.store import Project
from studio.store.transfer import copy_project
from studio.team.rehearsal import build_project

PEOPLE = {"rev": "reviewer", "rob": "reviewer", "earlier-0": "reviewer", "ann": "annotator",
          "bob": "annotator", "rae": "rater", "lead": "coordinator"}


@pytest.fixture
def team(postgresql_url: str, tmp_path: Path) -> Iterator[dict[str, Any]]:
    """A project with submitted captions (by earlier-0 and earlier-1), attribute
    suggestions, attribute batches and rating items for rae and ray, and a server."""
    build_project(tmp_path / "lite", ("rae", "ray"), n_images=40, n_pairs=24).close()
    copy_project(tmp_path / "lite", postgresql_url)
    keys = tokens(postgresql_url, PEOPLE)
    server = Server(postgresql_url).start()
    clients: list[Client] = []

    def client(name: str) -> Client:
        made = Client(server.base, keys[name], tmp_path / f"{name}.outbox",
                      picture_cache=tmp_path / f"{name}-pictures")
        clients.append(made)
        return made

    yield {"url": postgresql_url, "server": server, "keys": keys, "client": client}
    for made in clients:
        made.close()
    server.stop()


def _captions(url: str) -> dict[int, tuple[str, str, str | None]]:
    """caption id → (author, status, reviewer)."""
    with Project.open(url) as project:
        rows = project.db.execute(
            "SELECT c.id, a.name, c.status, r.name FROM captions c JOIN people a "
            "ON a.id = c.author_id LEFT JOIN people r ON r.id = c.reviewer_id"
        ).fetchall()
    return {int(r[0]): (r[1], r[2], r[3]) for r in rows}


def test_reviews_come_with_a_lease_and_are_decided_once(team: dict) -> None:
    rev, rob, author = team["client"]("rev"), team["client"]("rob"), team["client"]("earlier-0")
    mine = rev.next_review()
    theirs = rob.next_review()
    assert mine is not None and theirs is not None
    assert mine["caption_id"] != theirs["caption_id"]  # one caption, one reviewer
    assert rev.next_review()["lease_id"] == mine["lease_id"]  # asked again: the same
    assert rev.picture(mine["target_id"], 32)  # the pictures of the pair held
    held = {mine["reference_id"], mine["target_id"]}
    for image in {theirs["reference_id"], theirs["target_id"]} - held:
        with pytest.raises(StudioError, match="not part of an item you hold"):
            rev.picture(image, 32)
    captions = _captions(team["url"])
    assert captions[mine["caption_id"]][1] == "submitted"

    # The author never gets their own caption, and cannot decide it.
    offered = author.next_review()
    assert offered is not None and captions[offered["caption_id"]][0] != "earlier-0"
    own = next(cid for cid, (who, status, _) in captions.items()
               if who == "earlier-0" and status == "submitted")
    status, answer = author.call("POST", f"/v1/reviews/{own}/decision",
                                 {"edit_uid": "self-review-1", "decision": "accept"})
    assert status == 403 and "your own caption" in answer["error"]
    # Another reviewer's caption: refused, nothing kept.
    status, answer = rob.call("POST", f"/v1/reviews/{mine['caption_id']}/decision",
                              {"edit_uid": "rob-steal-01", "decision": "accept"})
    assert status == 409 and "another reviewer" in answer["error"]

    uid = rev.decide(mine["caption_id"], "accept", text="is darker and has longer sleeves")
    assert rev.waiting() == 0
    status, answer = rev.answer(uid)
    assert status == 200 and answer["status"] == "accepted"
    assert answer["text"] == "is darker and has longer sleeves"
    resent = rev.call("POST", f"/v1/reviews/{mine['caption_id']}/decision",
                      {"edit_uid": uid, "decision": "reject", "reason": "changed my mind"})
    assert resent == (status, answer)  # applied once
    # The store's rule: a reject needs a reason; the refusal is the edit's answer.
    nxt = rev.next_review()
    assert nxt is not None and nxt["caption_id"] not in (mine["caption_id"],
                                                         theirs["caption_id"])
    refused = rev.decide(nxt["caption_id"], "reject")
    assert rev.answer(refused)[0] == 409 and "why" in rev.answer(refused)[1]["error"]
    rev.decide(nxt["caption_id"], "reject", reason="says nothing about the target")
    rob.decide(theirs["caption_id"], "accept")

    # Skipping lets the caption go and puts it behind the others for the one who skipped:
    # the last caption this reviewer may take (the other one waiting is held by earlier-0)
    # comes back to them.
    skipped = rev.next_review()
    assert skipped is not None
    rev.skip(skipped["lease_id"])
    again = rev.next_review()
    assert again is not None and again["caption_id"] == skipped["caption_id"]
    after = _captions(team["url"])
    assert after[mine["caption_id"]][1:] == ("accepted", "rev")
    assert after[nxt["caption_id"]][1:] == ("rejected", "rev")
    assert after[theirs["caption_id"]][1:] == ("accepted", "rob")
    assert all(who != reviewer for who, _, reviewer in after.values())

    with pytest.raises(StudioError, match="annotator role"):
        team["client"]("ann").next_review()
    progress = team["client"]("lead").call("GET", "/v1/progress")[1]
    assert progress["reviewed_by"] == {"rev": 2, "rob": 1}
    assert progress["captions"]["accepted"] == 2 and progress["captions"]["rejected"] == 1
    assert progress["ratings"]["pending"] > 0 and progress["images_to_decide"] > 0


def _label_states(url: str, image_id: str) -> dict[str, set[str]]:
    with Project.open(url) as project:
        rows = project.db.execute(
            "SELECT v.name, l.status FROM image_attributes l JOIN attribute_vocab v "
            "ON v.id = l.attribute_id WHERE l.image_id = :image_id", {"image_id": image_id}
        ).fetchall()
    states: dict[str, set[str]] = {}
    for name, status in rows:
        states.setdefault(name, set()).add(status)
    return states


def test_attribute_decisions_come_with_a_lease_and_apply_once(team: dict) -> None:
    ann, bob = team["client"]("ann"), team["client"]("bob")
    item = ann.next_attributes()
    other = bob.next_attributes()
    assert item is not None and other is not None and item["image_id"] != other["image_id"]
    image = item["image_id"]
    with Project.open(team["url"]) as project:
        batched = {row[0] for row in project.db.execute(
            "SELECT item FROM team_assignments WHERE kind = 'attributes'")}
    assert batched and image not in batched  # rae's and ray's batches are theirs
    names = [entry["attribute"] for entry in item["attributes"]]
    assert names and all(entry["status"] == "suggested" for entry in item["attributes"])

    status, answer = bob.call("POST", f"/v1/attributes/{image}/decisions", {
        "edit_uid": "bob-steal-01", "decisions": [{"attribute": names[0],
                                                   "status": "accepted"}]})
    assert status == 409 and "held by someone else" in answer["error"]

    decisions = {names[0]: "accepted", **{name: "rejected" for name in names[1:]}}
    uid = ann.decide_attributes(image, decisions)
    assert ann.answer(uid)[0] == 200
    resent = ann.call("POST", f"/v1/attributes/{image}/decisions",
                      {"edit_uid": uid, "decisions": [{"attribute": names[0],
                                                       "status": "rejected"}]})
    assert resent == ann.answer(uid)
    states = _label_states(team["url"], image)
    assert states[names[0]] == {"accepted"}
    assert all(states[name] == {"rejected"} for name in names[1:])
    with Project.open(team["url"]) as project:
        audit = project.db.execute(
            "SELECT action FROM audit_log WHERE entity = 'image_attributes' AND entity_id = :image "
            "ORDER BY id", {"image": image}).fetchall()
    assert [row[0] for row in audit] == (
        ["attributes.accept", "attributes.reject"] if len(names) > 1 else ["attributes.accept"])
    # everything decided: the lease is gone and the next image is another one
    following = ann.next_attributes()
    assert following is None or following["image_id"] not in (image, other["image_id"])


def test_pictures_are_served_to_holders_and_cached_on_disk(team: dict) -> None:
    from io import BytesIO

    from PIL import Image

    from studio.server.client import Offline

    ann, lead = team["client"]("ann"), team["client"]("lead")
    item = ann.next_attributes()
    image = item["image_id"]
    small = ann.picture(image, 64)
    with Image.open(BytesIO(small)) as picture:
        assert picture.format == "JPEG" and max(picture.size) <= 64
    cached = list((ann.picture_cache).rglob("*.img"))
    etags = list((ann.picture_cache).rglob("*.etag"))
    assert len(cached) == 1 and len(etags) == 1 and cached[0].read_bytes() == small
    # Asked again: the server answers 304 to the stored ETag, the cached bytes come back.
    status, _ = _get(team["server"].base, f"/v1/images/{image}?size=64", team["keys"]["ann"],
                     etags[0].read_text())
    assert status == 304
    status, headers = _get(team["server"].base, f"/v1/images/{image}?size=64",
                           team["keys"]["ann"], '"another"')
    assert status == 200 and headers["ETag"] == etags[0].read_text()
    assert headers["Cache-Control"].startswith("private")
    assert ann.picture(image, 64) == small
    with Project.open(team["url"]) as project:
        record = project.image(image)
        on_disk = project.image_path(record).read_bytes()
    assert lead.picture(image) == on_disk  # no size: the file itself
    # Someone holding nothing sees nothing; the server gone: the cache still shows it.
    with pytest.raises(StudioError, match="not part of an item you hold"):
        team["client"]("bob").picture(image, 64)
    team["server"].stop()
    assert ann.picture(image, 64) == small
    with pytest.raises(Offline, match="not cached"):
        ann.picture(image, 128)


def test_a_replaced_picture_file_is_served_anew_not_from_the_workers_thumbnails(
    team: dict,
) -> None:
    import os
    from io import BytesIO

    from PIL import Image

    ann = team["client"]("ann")
    image = ann.next_attributes()["image_id"]
    first = ann.picture(image, 48)  # made once, kept by the worker
    with Project.open(team["url"]) as project:
        path = project.image_path(project.image(image))
    Image.new("RGB", (90, 60), (250, 10, 10)).save(path, "JPEG")
    later = path.stat().st_mtime + 5
    os.utime(path, (later, later))
    status, _ = _get(team["server"].base, f"/v1/images/{image}?size=48", team["keys"]["ann"],
                     '"none"')
    assert status == 200
    second = ann.picture(image, 48)
    assert second != first
    with Image.open(BytesIO(second)) as picture:
        assert picture.size == (48, 32)
        red, green, blue = picture.convert("RGB").getpixel((24, 16))
        assert red > 200 and green < 60 and blue < 60


def _get(base: str, path: str, token: str, etag: str) -> tuple[int, Any]:
    import urllib.error
    import urllib.request

    request = urllib.request.Request(base + path)
    request.add_header("Authorization", f"Bearer {token}")
    request.add_header("If-None-Match", etag)
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, answer.headers
    except urllib.error.HTTPError as error:
        return error.code, error.headers


def test_a_rater_rates_through_the_client_once_and_sees_only_their_turns(team: dict) -> None:
    rae = team["client"]("rae")
    item = rae.next_rating()
    assert item is not None and item["status"] == "pending"
    scores = {"accuracy": 4, "historical_awareness": 3, "granularity": 5, "consistency": 4,
              "coverage": 2}
    shown = {image for turn in [*item["history"], item["turn"]]
             for image in (turn["reference_id"], turn["target_id"])}
    assert all(rae.picture(image, 32) for image in shown)  # the turn held and its history
    first = rae.save_scores(item["assignment_id"], scores, note="clear")
    done = rae.set_rating_status(item["assignment_id"], "done")
    assert rae.answer(first)[1]["scores"] == scores and rae.answer(done)[1]["status"] == "done"
    following = rae.next_rating()
    assert following is None or following["assignment_id"] != item["assignment_id"]
    with Project.open(team["url"]) as project:
        rows = project.db.execute(
            "SELECT accuracy, note FROM ratings WHERE assignment_id = :assignment_id",
            {"assignment_id": item["assignment_id"]}).fetchall()
    assert rows == [(4, "clear")]


def test_reviewers_at_once_each_caption_decided_once_never_by_its_author(team: dict) -> None:
    """Three reviewers (one of them an author) work through the review queue at the same
    time: every submitted caption is decided exactly once, never by its author, and no
    decision is refused for a clash."""
    import threading

    names = ("rev", "rob", "earlier-0")
    clients = {name: team["client"](name) for name in names}
    problems: list[str] = []
    decided: dict[str, list[int]] = {name: [] for name in names}

    def work(name: str) -> None:
        client = clients[name]
        for _ in range(50):
            item = client.next_review()
            if item is None:
                return
            uid = client.decide(item["caption_id"], "accept")
            status, answer = client.answer(uid)
            if status != 200:
                problems.append(f"{name}: {status} {answer}")
                return
            decided[name].append(item["caption_id"])
        problems.append(f"{name} never finished")

    threads = [threading.Thread(target=work, args=(name,)) for name in names]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert problems == []
    everything = [cid for ids in decided.values() for cid in ids]
    captions = _captions(team["url"])
    submitted = [cid for cid, (_, status, _) in captions.items() if status != "draft"]
    assert sorted(everything) == sorted(submitted)  # each once
    assert all(status == "accepted" for _, status, _ in captions.values())
    assert all(captions[cid][2] == name for name, ids in decided.items() for cid in ids)
    assert all(author != reviewer for author, _, reviewer in captions.values())


def test_the_server_describes_a_review_item_after_its_lease_is_committed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A caption's flags and other captions are read after the lease's write transaction
    ends: taking, holding or stepping to a caption keeps other writers waiting only for the
    lease itself."""
    from server_support import make_project

    from studio.captions.store import submit_caption
    from studio.server import reviews
    from studio.server.tokens import Identity

    make_project(str(tmp_path / "copy.sqlite"), tmp_path, n_pairs=4)
    with Project.open(tmp_path / "lite") as project:
        pairs = sorted(int(row[0]) for row in project.db.execute("SELECT id FROM pairs"))
        for pair_id in pairs[:3]:
            submit_caption(project, pair_id, "ann", "is red with long sleeves")
        in_transaction: list[bool] = []
        real = reviews.describe

        def described(project: Project, caption_id: int):  # type: ignore[no-untyped-def]
            in_transaction.append(project.db.conn.in_transaction)
            return real(project, caption_id)

        monkeypatch.setattr(reviews, "describe", described)
        rev = Identity(0, "rev", "reviewer")
        first = reviews.take_next(project, rev, 60)
        assert first is not None
        again = reviews.take_next(project, rev, 60)  # the held caption, renewed
        assert again is not None and again["caption_id"] == first["caption_id"]
        second = reviews.step(project, rev, first["caption_id"], True, 60)
        assert second is not None and second["caption_id"] != first["caption_id"]
        assert reviews.hold(project, rev, first["caption_id"], 60)["flags"] is not None
    assert in_transaction == [False, False, False, False]
