"""Rating over the team server stays blind: a rater sees the turn and their own scores,
never the dataset, a file path or another rater's scores, and cannot touch another
rater's items; scores are applied once per edit uid."""

from __future__ import annotations

import json
from pathlib import Path

from server_support import Server, call, tokens

from studio.store import Project
from studio.store.transfer import copy_project
from studio.team.rehearsal import build_project

FULL = {"accuracy": 4, "historical_awareness": 3, "granularity": 5, "consistency": 4,
        "coverage": 2}


def test_rating_over_the_server_is_blind_and_applied_once(
    postgresql_url: str, tmp_path: Path
) -> None:
    build_project(tmp_path / "lite", ("rae", "ray"), n_images=40, n_pairs=4).close()
    copy_project(tmp_path / "lite", postgresql_url)
    keys = tokens(postgresql_url, {"rae": "rater", "ray": "rater", "ann": "annotator"})
    server = Server(postgresql_url).start()
    base = server.base
    try:
        assert call(base, "POST", "/v1/ratings/next", keys["ann"], {})[0] == 403
        ray_item = call(base, "POST", "/v1/ratings/next", keys["ray"], {})[1]["item"]
        ray_id = ray_item["assignment_id"]
        body = {"edit_uid": "ray-scores-1", "scores": FULL, "note": "fine"}
        first = call(base, "PUT", f"/v1/ratings/{ray_id}/scores", keys["ray"], body)
        assert first[0] == 200 and first[1]["scores"] == FULL
        assert call(base, "PUT", f"/v1/ratings/{ray_id}/scores", keys["ray"],
                    {**body, "scores": {"accuracy": 1}}) == first  # resent: applied once
        done = {"edit_uid": "ray-status-1", "status": "done"}
        assert call(base, "POST", f"/v1/ratings/{ray_id}/status", keys["ray"], done)[0] == 200

        # The rater's samples, with what is left in each (the studio opens on one with work).
        assert call(base, "GET", "/v1/ratings/samples", keys["ann"])[0] == 403
        total = item_count(postgresql_url, "rae")
        assert call(base, "GET", "/v1/ratings/samples", keys["rae"]) == (200, {"samples": [
            {"name": "main", "total": total, "pending": total, "done": 0, "skipped": 0,
             "flagged": 0}]})

        # Rae walks her whole queue (which holds the turn Ray scored): never his scores.
        seen = 0
        while True:
            status, answer = call(base, "POST", "/v1/ratings/next", keys["rae"], {})
            item = answer["item"]
            if item is None:
                break
            text = json.dumps(item)
            assert "SecretSet" not in text and "/" not in text and "fine" not in text
            assert set(item) == {"assignment_id", "position", "queue_size", "history", "turn",
                                 "scores", "note", "status"}
            assert item["scores"] == dict.fromkeys(FULL)
            # another rater's item: refused, nothing written
            assert call(base, "PUT", f"/v1/ratings/{ray_id}/scores", keys["rae"],
                        {"edit_uid": f"rae-steal-{seen:04d}", "scores": {"accuracy": 1}}
                        )[0] == 403
            for bad in ({"accuracy": 7}, {"accuracy": True}, {"origin": 3}, [1, 2]):
                status, refused = call(base, "PUT", f"/v1/ratings/{item['assignment_id']}"
                                       "/scores", keys["rae"],
                                       {"edit_uid": "rae-bad-0001", "scores": bad})
                assert status == 422 and refused["error"]
            status, _ = call(base, "POST", f"/v1/ratings/{item['assignment_id']}/status",
                             keys["rae"], {"edit_uid": f"rae-skip-{seen:04d}",
                                           "status": "skipped"})
            assert status == 200
            seen += 1
        assert seen == item_count(postgresql_url, "rae") > 0
        samples = call(base, "GET", "/v1/ratings/samples", keys["rae"])[1]["samples"]
        assert [(s["pending"], s["skipped"]) for s in samples] == [(0, seen)]
    finally:
        server.stop()
    with Project.open(postgresql_url) as project:
        rows = project.db.execute(
            "SELECT r.accuracy, r.note FROM ratings r JOIN rating_assignments a "
            "ON a.id = r.assignment_id WHERE a.id = :ray_id", {"ray_id": ray_id}
        ).fetchall()
        assert rows == [(4, "fine")]
        uids = [r[0] for r in project.db.execute("SELECT uid FROM server_edits")]
    assert "rae-bad-0001" not in uids and not any(u.startswith("rae-steal") for u in uids)


def item_count(url: str, rater: str) -> int:
    with Project.open(url) as project:
        return int(project.db.execute(
            "SELECT count(*) FROM rating_assignments a JOIN people p ON p.id = a.rater_id "
            "WHERE p.name = :rater", {"rater": rater}).fetchone()[0])
