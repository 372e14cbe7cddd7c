"""The team server over a real socket: what an attacker or a broken client sends is
refused with a 4xx and a clear message, changes nothing, and the server keeps serving;
two annotators working at once keep the per-pair quota; a resent edit applies once."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cir_pg_engine
import pytest
from server_support import Server, call, make_project, tokens

from studio.server.tokens import revoke
from studio.store import Project

PEOPLE = {"ann": "annotator", "bob": "annotator", "cat": "annotator", "rae": "rater",
          "lead": "coordinator", "mallory": "annotator"}


@pytest.fixture(scope="module")
def served(postgresql_server: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict]:
    url = cir_pg_engine.new_database(postgresql_server.get_uri())
    make_project(url, tmp_path_factory.mktemp("served"))
    keys = tokens(url, PEOPLE)
    with Project.open(url) as project:
        revoke(project, "mallory", "lead")
    server = Server(url).start()
    yield {"url": url, "base": server.base, "tokens": keys, "server": server}
    server.stop()


def snapshot(url: str) -> dict[str, Any]:
    """Everything a request could change: captions (with their review), labels, leases of
    every kind, applied edits, the audit log's length and the tokens."""
    with Project.open(url) as project:
        db = project.db
        return {
            "captions": db.execute(
                "SELECT id, pair_id, text, status, author_id, reviewer_id, reject_reason "
                "FROM captions ORDER BY id"
            ).fetchall(),
            "labels": db.execute(
                "SELECT image_id, attribute_id, source, status FROM image_attributes "
                "ORDER BY image_id, attribute_id, source"
            ).fetchall(),
            "leases": db.execute(
                "SELECT id, kind, item_id, item_key, holder, expires_at FROM server_leases "
                "ORDER BY id"
            ).fetchall(),
            "edits": db.execute("SELECT uid, status FROM server_edits ORDER BY uid").fetchall(),
            "audit": db.execute("SELECT count(*) FROM audit_log").fetchone()[0],
            "tokens": db.execute("SELECT id, revoked_at FROM server_tokens ORDER BY id").fetchall(),
        }


def test_hostile_requests_are_refused_and_change_nothing(served: dict) -> None:
    base, keys = served["base"], served["tokens"]
    # Bob holds a pair and Ann used an edit uid: their property for the attacks below.
    status, taken = call(base, "POST", "/v1/captions/next", keys["bob"], {})
    assert status == 200 and taken["item"] is not None
    bob_lease, pair = taken["item"]["lease_id"], taken["item"]["pair_id"]
    status, _ = call(base, "PUT", f"/v1/captions/{pair}/draft", keys["ann"],
                     {"edit_uid": "ann-uid-0001", "text": "is darker"})
    assert status == 200
    before = snapshot(served["url"])
    draft = f"/v1/captions/{pair}/draft"
    good = {"edit_uid": "attack-0001", "text": "is shorter"}
    cases: list[tuple[str, str, str, str | None, dict]] = [
        ("no token", "POST", "/v1/captions/next", None, {}),
        ("not a bearer token", "POST", "/v1/captions/next", "Basic YWRtaW46YWRtaW4=", {}),
        ("garbage token", "GET", "/v1/whoami", "Bearer nonsense", {}),
        ("forged secret", "GET", "/v1/whoami", "Bearer cir_1_" + "A" * 43, {}),
        ("revoked token", "POST", "/v1/captions/next", keys["mallory"], {}),
        ("annotator asks for progress", "GET", "/v1/progress", keys["ann"], {}),
        ("rater asks for captions", "POST", "/v1/captions/next", keys["rae"], {}),
        ("renew another's lease", "POST", f"/v1/leases/{bob_lease}/renew", keys["ann"], {}),
        ("release another's lease", "DELETE", f"/v1/leases/{bob_lease}", keys["ann"], {}),
        ("no such lease", "POST", "/v1/leases/999999/renew", keys["ann"], {}),
        ("no such pair", "PUT", "/v1/captions/999999/draft", keys["ann"],
         {"body": {"edit_uid": "attack-0002", "text": "x"}}),
        ("pair id not a number", "PUT", "/v1/captions/1%20OR%201=1/draft", keys["ann"],
         {"body": good}),
        ("another's edit uid", "PUT", draft, keys["bob"],
         {"body": {"edit_uid": "ann-uid-0001", "text": "is darker"}}),
        ("oversized body", "PUT", draft, keys["ann"],
         {"body": {"edit_uid": "attack-0003", "text": "ok", "padding": "a" * 100_000}}),
        ("lying content length", "PUT", draft, keys["ann"],
         {"raw": b'{"edit_uid": "attack-0004", "text": "x"}',
          "headers": {"Content-Length": "99999999"}}),
        ("malformed JSON", "PUT", draft, keys["ann"], {"raw": b'{"edit_uid": "attack-00'}),
        ("not UTF-8", "PUT", draft, keys["ann"], {"raw": b'{"text": "\xff\xfe"}'}),
        ("JSON array", "PUT", draft, keys["ann"], {"raw": b'["edit_uid", "text"]'}),
        ("text is a number", "PUT", draft, keys["ann"],
         {"body": {"edit_uid": "attack-0005", "text": 123}}),
        ("uid is a number", "PUT", draft, keys["ann"], {"body": {"edit_uid": 5, "text": "x"}}),
        ("uid with SQL", "PUT", draft, keys["ann"],
         {"body": {"edit_uid": "x'; DROP TABLE captions; --", "text": "x"}}),
        ("missing text", "PUT", draft, keys["ann"], {"body": {"edit_uid": "attack-0006"}}),
        ("NUL in text", "PUT", draft, keys["ann"],
         {"body": {"edit_uid": "attack-0007", "text": "is red\x00 and"}}),
        ("escape sequence in text", "PUT", draft, keys["ann"],
         {"body": {"edit_uid": "attack-0008", "text": "is \x1b[31mred"}}),
        ("lone surrogate", "PUT", draft, keys["ann"],
         {"raw": b'{"edit_uid": "attack-0009", "text": "is \\ud800 red"}'}),
        ("caption over the limit", "POST", f"/v1/captions/{pair}/submit", keys["ann"],
         {"body": {"edit_uid": "attack-0010", "text": "a" * 2001}}),
        ("wrong method", "GET", "/v1/captions/next", keys["ann"], {}),
        ("unknown path", "GET", "/v1/captions/../../etc/passwd", keys["ann"], {}),
    ]
    expected = {
        "no token": 401, "not a bearer token": 401, "garbage token": 401, "forged secret": 401,
        "revoked token": 401, "annotator asks for progress": 403,
        "rater asks for captions": 403, "renew another's lease": 403,
        "release another's lease": 403, "no such lease": 404, "no such pair": 404,
        "another's edit uid": 409, "oversized body": 413, "malformed JSON": 400,
        "not UTF-8": 400, "wrong method": 405,
    }
    for name, method, path, token, extra in cases:
        header = token if token is None or token.startswith(("Basic", "Bearer")) else None
        headers = dict(extra.get("headers", {}))
        if header is not None:
            headers["Authorization"] = header
        status, answer = call(
            base, method, path, None if header is not None else token,
            body=extra.get("body"), raw=extra.get("raw"), headers=headers,
        )
        assert 400 <= status < 500, f"{name}: {status} {answer}"
        assert status == expected.get(name, status), f"{name}: {status} {answer}"
        assert isinstance(answer, dict) and answer.get("error"), f"{name}: {answer}"
    assert snapshot(served["url"]) == before
    assert served["server"].alive()
    assert call(base, "GET", "/v1/whoami", keys["ann"]) == (200, {"name": "ann",
                                                               "role": "annotator"})


def test_the_messages_say_what_is_wrong(served: dict) -> None:
    base, keys = served["base"], served["tokens"]
    assert call(base, "GET", "/v1/progress", keys["ann"])[1]["error"]["message"] == (
        "The annotator role may not use this endpoint."
    )
    status, answer = call(base, "PUT", "/v1/captions/1/draft", keys["ann"],
                          {"edit_uid": "short", "text": "x"})
    assert status == 422 and "edit_uid" in answer["error"]["message"]
    status, answer = call(base, "PUT", "/v1/captions/1/draft", keys["ann"],
                          {"edit_uid": "attack-0100", "text": "a\x07"})
    assert status == 422 and "U+0007" in answer["error"]["message"]


def test_openapi_describes_every_route(served: dict) -> None:
    from studio.server.app import ServerConfig, create_app

    status, described = call(served["base"], "GET", "/openapi.json")
    assert status == 200 and described["openapi"].startswith("3.")
    routes = {
        route.path for route in create_app(ServerConfig("unused")).routes
        if route.path != "/openapi.json"
    }
    assert set(described["paths"]) == routes and "/v1/ratings/next" in routes


def test_leases_keep_the_quota_between_people(postgresql_url: str, tmp_path: Path) -> None:
    """Quota 2: Ann and Bob may hold one pair, Cat gets another and cannot write on theirs;
    Ann's skip frees her place and Cat may take it."""
    make_project(postgresql_url, tmp_path, n_pairs=4)
    keys = tokens(postgresql_url, {"ann": "annotator", "bob": "annotator", "cat": "annotator"})
    server = Server(postgresql_url).start()
    try:
        base = server.base
        take = {name: call(base, "POST", "/v1/captions/next", keys[name], {})[1]["item"]
                for name in ("ann", "bob", "cat")}
        assert take["ann"]["pair_id"] == take["bob"]["pair_id"] != take["cat"]["pair_id"]
        held = take["ann"]["pair_id"]
        # asking again gives the same item (a client that lost the answer)
        again = call(base, "POST", "/v1/captions/next", keys["ann"], {})[1]["item"]
        assert again["lease_id"] == take["ann"]["lease_id"]
        status, answer = call(base, "POST", f"/v1/captions/{held}/submit", keys["cat"],
                              {"edit_uid": "cat-0000001", "text": "is blue"})
        assert status == 409 and "held by others" in answer["error"]["message"]
        assert call(base, "DELETE", f"/v1/leases/{take['ann']['lease_id']}", keys["ann"])[0] == 200
        status, answer = call(base, "POST", f"/v1/captions/{held}/submit", keys["cat"],
                              {"edit_uid": "cat-0000001", "text": "is blue"})
        assert status == 200 and answer["status"] == "submitted"
        nxt = call(base, "POST", "/v1/captions/next", keys["ann"], {})[1]["item"]
        assert nxt is not None and nxt["pair_id"] != held  # skipped: not offered again
    finally:
        server.stop()


def test_two_annotators_at_once_keep_the_quota(postgresql_url: str, tmp_path: Path) -> None:
    """Quota 2 from different people: both work through the queue concurrently, resending
    every edit once; every pair ends with one caption from each, each edit applied once."""
    make_project(postgresql_url, tmp_path, n_pairs=6)
    keys = tokens(postgresql_url, {"ann": "annotator", "bob": "annotator",
                                   "lead": "coordinator"})
    server = Server(postgresql_url).start()
    problems: list[str] = []
    uids: list[str] = []

    def work(name: str) -> None:
        for n in range(50):
            status, answer = call(server.base, "POST", "/v1/captions/next", keys[name], {})
            item = answer["item"]
            if item is None:
                return
            pair = item["pair_id"]
            for kind, method, text in (("draft", "PUT", f"{name} is dark"),
                                       ("submit", "POST", f"{name} is darker, 日本 ☂")):
                body = {"edit_uid": f"{name}-{kind}-{n:04d}", "text": text}
                first = call(server.base, method, f"/v1/captions/{pair}/{kind}", keys[name], body)
                resent = call(server.base, method, f"/v1/captions/{pair}/{kind}", keys[name], body)
                uids.append(body["edit_uid"])
                if first != resent or first[0] != 200:
                    problems.append(f"{name} {kind} {pair}: {first} then {resent}")
        problems.append(f"{name} never finished")

    try:
        threads = [threading.Thread(target=work, args=(name,)) for name in ("ann", "bob")]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert problems == []
        progress = call(server.base, "GET", "/v1/progress", keys["lead"])[1]
        assert progress["pairs_complete"] == progress["pairs"] == 6
        assert progress["submitted_by"] == {"ann": 6, "bob": 6}
    finally:
        server.stop()
    with Project.open(postgresql_url) as project:
        rows = project.db.execute(
            "SELECT c.pair_id, a.name, c.status, c.text FROM captions c "
            "JOIN people a ON a.id = c.author_id ORDER BY c.pair_id, a.name"
        ).fetchall()
        applied = project.db.execute("SELECT count(*) FROM server_edits").fetchone()[0]
    assert len(rows) == 12 and all(status == "submitted" for _, _, status, _ in rows)
    assert {(pair, name) for pair, name, _, _ in rows} == {
        (pair, name) for pair in {r[0] for r in rows} for name in ("ann", "bob")}
    assert all("日本 ☂" in text for *_, text in rows)
    assert applied == len(uids) == 24


def test_failed_logins_are_slowed_more_each_time_up_to_a_bound() -> None:
    from studio.server.auth import MAX_DELAY, FailedLogins

    failures = FailedLogins()
    delays = [failures.fail("10.0.0.1") for _ in range(8)]
    assert delays == sorted(delays) and delays[0] < delays[3] and delays[-1] == MAX_DELAY
    assert failures.fail("10.0.0.2") == delays[0]  # per client
    failures.succeed("10.0.0.1")
    assert failures.fail("10.0.0.1") == delays[0]


def test_tokens_are_stored_hashed_and_revocable(postgresql_url: str, tmp_path: Path) -> None:
    from studio.server.tokens import verify

    with Project.create(postgresql_url, local_path=tmp_path / "p.pg") as project:
        token = tokens(postgresql_url, {"ann": "annotator"})["ann"]
        stored = project.db.execute("SELECT salt, digest FROM server_tokens").fetchall()
        assert all(token.split("_", 2)[2] not in value for row in stored for value in row)
        assert verify(project, token).name == "ann"
        assert verify(project, token[:-1] + ("A" if token[-1] != "A" else "B")) is None
        revoke(project, "ann", "lead")
        assert verify(project, token) is None
        audit = project.db.execute("SELECT before, after FROM audit_log").fetchall()
        assert token not in repr(audit)


def test_a_token_made_before_the_sha256_digests_still_verifies(
    postgresql_url: str, tmp_path: Path
) -> None:
    """New tokens are stored as a salted SHA-256 of their 256-bit secret (a check costs
    microseconds, not scrypt's 52 ms); one stored as scrypt by an older studio still opens,
    and a wrong secret fails under either scheme."""
    import hashlib

    from studio.server.tokens import verify

    with Project.create(postgresql_url, local_path=tmp_path / "p.pg") as project:
        keys = tokens(postgresql_url, {"ann": "annotator", "old": "annotator"})
        rows = dict(project.db.execute("SELECT name, digest FROM server_tokens").fetchall())
        assert all(value.startswith("sha256:") for value in rows.values())
        old_id, secret = keys["old"].split("_", 2)[1:]
        salt = bytes.fromhex(project.db.execute(
            "SELECT salt FROM server_tokens WHERE id = :id", {"id": int(old_id)}).fetchone()[0])
        scrypt = hashlib.scrypt(secret.encode(), salt=salt, n=2**14, r=8, p=1, dklen=32).hex()
        with project.writing():
            project.db.execute("UPDATE server_tokens SET digest = :d WHERE id = :id",
                               {"d": scrypt, "id": int(old_id)})
        assert verify(project, keys["old"]).name == "old"
        assert verify(project, keys["ann"]).name == "ann"
        for name in ("old", "ann"):
            forged = keys[name][:-1] + ("A" if keys[name][-1] != "A" else "B")
            assert verify(project, forged) is None


# -- reviews, attribute decisions and pictures ----------------------------------------

TEAM = {"rev": "reviewer", "rob": "reviewer", "earlier-0": "reviewer", "ann": "annotator",
        "bob": "annotator", "rae": "rater", "lead": "coordinator"}
SECRET = b"TOP-SECRET-OUTSIDE-THE-IMAGE-ROOT"


@pytest.fixture(scope="module")
def team(postgresql_server: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict]:
    """Submitted captions, attribute suggestions and rating items (rae, ray), and images
    whose stored paths lead out of the image root: by '..', absolutely, by a link to a
    file and by a link to a folder outside."""
    from studio.store.transfer import copy_project
    from studio.team.rehearsal import build_project

    url = cir_pg_engine.new_database(postgresql_server.get_uri())
    folder = tmp_path_factory.mktemp("team")
    build_project(folder / "lite", ("rae", "ray"), n_images=40, n_pairs=24).close()
    copy_project(folder / "lite", url)
    keys = tokens(url, TEAM)
    outside = folder / "outside"
    outside.mkdir()
    (outside / "secret.jpg").write_bytes(SECRET)
    with Project.open(url) as project:
        root = project.image_root
        (root / "link.jpg").symlink_to(outside / "secret.jpg")
        (root / "linked-folder").symlink_to(outside, target_is_directory=True)
        escape = "../" * len(root.parts) + str(outside / "secret.jpg").lstrip("/")
        bad = {"dots": escape, "absolute": str(outside / "secret.jpg"), "link": "link.jpg",
               "folder-link": "linked-folder/secret.jpg"}
        ids = [row[0] for row in project.db.execute("SELECT id FROM images ORDER BY id")]
        for (name, path), image_id in zip(bad.items(), ids[-4:], strict=True):
            project.db.execute("UPDATE images SET path = :path WHERE id = :image_id", {
                "path": path,
                "image_id": image_id,
            })
            bad[name] = image_id
    server = Server(url).start()
    yield {"url": url, "base": server.base, "tokens": keys, "server": server, "bad": bad}
    server.stop()


def _held(base: str, token: str, path: str) -> dict:
    status, answer = call(base, "POST", path, token, {})
    assert status == 200 and answer["item"] is not None, answer
    return answer["item"]


def test_hostile_review_attribute_and_picture_requests(team: dict) -> None:
    base, keys, bad = team["base"], team["tokens"], team["bad"]
    review = _held(base, keys["rev"], "/v1/reviews/next")
    labels = _held(base, keys["ann"], "/v1/attributes/next")
    caption, image = review["caption_id"], labels["image_id"]
    with Project.open(team["url"]) as project:
        own = project.db.execute(
            "SELECT c.id FROM captions c JOIN people a ON a.id = c.author_id "
            "WHERE a.name = 'earlier-0' AND c.status = 'submitted' ORDER BY c.id LIMIT 1"
        ).fetchone()[0]
        rae_image = project.db.execute(
            "SELECT ti.image_id FROM transaction_images ti JOIN rating_assignments r "
            "ON r.transaction_id = ti.transaction_id JOIN people p ON p.id = r.rater_id "
            "WHERE p.name = 'rae' AND r.status = 'pending' AND ti.position <= r.turn_index "
            "ORDER BY 1 LIMIT 1").fetchone()[0]
        foreign = project.db.execute(
            "SELECT id FROM images WHERE id NOT IN (SELECT ti.image_id FROM transaction_images"
            " ti JOIN rating_assignments r ON r.transaction_id = ti.transaction_id JOIN "
            "people p ON p.id = r.rater_id WHERE p.name = 'rae') ORDER BY id LIMIT 1"
        ).fetchone()[0]
        attribute = project.db.execute(
            "SELECT name FROM attribute_vocab ORDER BY id LIMIT 1").fetchone()[0]
    assert _raw(base, "GET", f"/v1/images/{rae_image}?size=32", keys["rae"], {})[0] == 200
    before = snapshot(team["url"])
    decision = f"/v1/reviews/{caption}/decision"
    decide = f"/v1/attributes/{image}/decisions"
    one = [{"attribute": attribute, "status": "accepted"}]
    cases: list[tuple[str, int, str, str, str, dict]] = [
        ("annotator asks for reviews", 403, "POST", "/v1/reviews/next", "ann", {}),
        ("rater asks for reviews", 403, "POST", "/v1/reviews/next", "rae", {}),
        ("reviewer asks for attributes", 403, "POST", "/v1/attributes/next", "rev", {}),
        ("annotator decides a review", 403, "POST", decision, "ann",
         {"edit_uid": "hostile-0001", "decision": "accept"}),
        ("another reviewer's caption", 409, "POST", decision, "rob",
         {"edit_uid": "hostile-0002", "decision": "accept"}),
        ("reviewing one's own caption", 403, "POST", f"/v1/reviews/{own}/decision",
         "earlier-0", {"edit_uid": "hostile-0003", "decision": "accept"}),
        ("no such caption", 404, "POST", "/v1/reviews/999999/decision", "rev",
         {"edit_uid": "hostile-0004", "decision": "accept"}),
        ("caption id not a number", 404, "POST", "/v1/reviews/abc/decision", "rev",
         {"edit_uid": "hostile-0005", "decision": "accept"}),
        ("unknown decision", 422, "POST", decision, "rev",
         {"edit_uid": "hostile-0006", "decision": "approve"}),
        ("decision a number", 422, "POST", decision, "rev",
         {"edit_uid": "hostile-0007", "decision": 1}),
        ("reason a list", 422, "POST", decision, "rev",
         {"edit_uid": "hostile-0008", "decision": "reject", "reason": ["bad"]}),
        ("edited text with NUL", 422, "POST", decision, "rev",
         {"edit_uid": "hostile-0009", "decision": "accept", "text": "is red\x00"}),
        ("edited text too long", 422, "POST", decision, "rev",
         {"edit_uid": "hostile-0010", "decision": "accept", "text": "a" * 2001}),
        ("another's image", 409, "POST", decide, "bob",
         {"edit_uid": "hostile-0011", "decisions": one}),
        ("decisions not a list", 422, "POST", decide, "ann",
         {"edit_uid": "hostile-0012", "decisions": {"floral": "accepted"}}),
        ("no decisions", 422, "POST", decide, "ann", {"edit_uid": "hostile-0013",
                                                      "decisions": []}),
        ("decision not an object", 422, "POST", decide, "ann",
         {"edit_uid": "hostile-0014", "decisions": ["floral"]}),
        ("attribute a number", 422, "POST", decide, "ann",
         {"edit_uid": "hostile-0015", "decisions": [{"attribute": 7, "status": "accepted"}]}),
        ("unknown status", 422, "POST", decide, "ann",
         {"edit_uid": "hostile-0016", "decisions": [{"attribute": attribute,
                                                    "status": "maybe"}]}),
        ("a value", 422, "POST", decide, "ann",
         {"edit_uid": "hostile-0017", "decisions": [{"attribute": attribute, "value": "red",
                                                    "status": "accepted"}]}),
        ("unknown attribute", 422, "POST", decide, "ann",
         {"edit_uid": "hostile-0018", "decisions": [{"attribute": "no-such-word",
                                                    "status": "accepted"}]}),
        ("too many decisions", 422, "POST", decide, "ann",
         {"edit_uid": "hostile-0019", "decisions": one * 501}),
        ("control character in attribute", 422, "POST", decide, "ann",
         {"edit_uid": "hostile-0020", "decisions": [{"attribute": "flo\x1bral",
                                                    "status": "accepted"}]}),
        ("image id with dots", 422, "POST", "/v1/attributes/%2E%2E/decisions", "ann",
         {"edit_uid": "hostile-0021", "decisions": one}),
        ("renew another's review lease", 403, "POST",
         f"/v1/leases/{review['lease_id']}/renew", "rob", {}),
        ("release another's image lease", 403, "DELETE", f"/v1/leases/{labels['lease_id']}",
         "bob", {}),
        ("rater asks a picture of another turn", 403, "GET", f"/v1/images/{foreign}",
         "rae", {}),
        ("annotator asks a picture not held", 403, "GET", f"/v1/images/{foreign}", "bob",
         {}),
        ("picture without a token", 401, "GET", f"/v1/images/{image}", "", {}),
        ("stored path with '..'", 403, "GET", f"/v1/images/{bad['dots']}", "lead", {}),
        ("absolute stored path", 403, "GET", f"/v1/images/{bad['absolute']}", "lead", {}),
        ("link out of the root", 403, "GET", f"/v1/images/{bad['link']}", "lead", {}),
        ("folder link out of the root", 403, "GET", f"/v1/images/{bad['folder-link']}",
         "lead", {}),
        ("image id '..'", 422, "GET", "/v1/images/%2E%2E", "lead", {}),
        ("image id with NUL", 422, "GET", "/v1/images/a%00b", "lead", {}),
        ("image id with backslash", 422, "GET", "/v1/images/..%5C..%5Cetc", "lead", {}),
        ("image id with escape", 422, "GET", "/v1/images/a%1B%5B31m", "lead", {}),
        ("image id is a path", 404, "GET", "/v1/images/%2Fetc%2Fpasswd", "lead", {}),
        ("no such image", 404, "GET", "/v1/images/no-such-image", "lead", {}),
        ("size not a number", 422, "GET", f"/v1/images/{image}?size=abc", "lead", {}),
        ("size too small", 422, "GET", f"/v1/images/{image}?size=0", "lead", {}),
        ("size too large", 422, "GET", f"/v1/images/{image}?size=99999999", "lead", {}),
        ("negative size", 422, "GET", f"/v1/images/{image}?size=-5", "lead", {}),
    ]
    for name, expected, method, path, person, body in cases:
        status, answer = _raw(base, method, path, keys.get(person), body)
        assert status == expected, f"{name}: {status} {answer!r}"
        assert SECRET not in answer, name
        assert json.loads(answer)["error"], name
    assert snapshot(team["url"]) == before
    assert team["server"].alive()
    assert call(base, "GET", "/v1/whoami", keys["rev"]) == (200, {"name": "rev",
                                                               "role": "reviewer"})
    messages = {
        "/v1/images/%2E%2E": "'..'",
        f"/v1/images/{bad['link']}": "leads outside the project's image folders",
        f"/v1/images/{foreign}": "not part of an item you hold",
    }
    for path, words in messages.items():
        person = "rae" if path.endswith(foreign) else "lead"
        assert words in json.loads(_raw(base, "GET", path, keys[person], {})[1])["error"]["message"]


def _raw(base: str, method: str, path: str, token: str | None, body: dict) -> tuple[int, bytes]:
    """One request; the status and the raw answer (to look for leaked bytes)."""
    data = None if method in ("GET", "DELETE") else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, method=method)
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()
