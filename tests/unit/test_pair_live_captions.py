"""A pair's live captions (submitted or accepted) are a column the database keeps:
``pairs.live_captions`` follows every change of the pair's captions, whoever makes it
(the studio's rules, a plain SQL update, a delete, a copy), on both engines. The queues
read it to pass a full pair without counting its captions."""

from __future__ import annotations

from pathlib import Path

from studio.captions.store import (
    get_caption,
    review_caption,
    save_draft,
    submit_caption,
    undo_review,
    undo_save,
)
from studio.pairs.mining import mine_pairs
from studio.store import Project
from studio.store.records import ImageRecord
from studio.store.transfer import copy_project


def _project(path: Path) -> Project:
    project = Project.create(path)
    project.add_images(
        ImageRecord(id=f"img{i}", path=f"img{i}.jpg", category="dress", split="train",
                    title=f"{('Red', 'Blue', 'Black')[i % 3]} dress {i}")
        for i in range(8)
    )
    mine_pairs(project, "tfidf", 4)
    return project


def _kept(project: Project) -> dict[int, int]:
    return {int(r[0]): int(r[1]) for r in project.db.execute(
        "SELECT id, live_captions FROM pairs ORDER BY id")}


def _counted(project: Project) -> dict[int, int]:
    return {int(r[0]): int(r[1]) for r in project.db.execute(
        "SELECT p.id, (SELECT count(*) FROM captions c WHERE c.pair_id = p.id "
        "AND c.status IN ('submitted', 'accepted')) FROM pairs p ORDER BY p.id")}


def test_the_count_follows_every_change_of_a_pairs_captions(tmp_path: Path) -> None:
    with _project(tmp_path / "p") as project:
        first, second, third, *_ = sorted(_kept(project))
        seen: list[dict[int, int]] = []

        def check() -> None:
            assert _kept(project) == _counted(project)
            seen.append({pair: n for pair, n in _kept(project).items() if n})

        save_draft(project, first, "ann", "is red")
        check()  # a draft is not live
        ann, _ = submit_caption(project, first, "ann", "is red")
        check()
        bob, _ = submit_caption(project, first, "bob", "is blue and longer")
        check()
        review_caption(project, ann.id, "lead", "accept")
        check()  # submitted to accepted: still live
        before = get_caption(project, bob.id)
        review_caption(project, bob.id, "lead", "reject", reason="say the colour")
        check()
        undo_review(project, bob.id, "lead", before)
        check()
        cid, _ = submit_caption(project, second, "cem", "has sleeves")
        undo_save(project, cid.id, "cem", {"text": "has sleeves", "status": "draft"})
        check()  # taken back to a draft
        project.db.execute("UPDATE captions SET pair_id = :to WHERE id = :c",
                           {"to": third, "c": bob.id})
        check()  # moved to another pair by hand
        project.db.execute("DELETE FROM captions WHERE id = :c", {"c": ann.id})
        check()
        project.db.execute("DELETE FROM pairs WHERE id = :p", {"p": third})  # its captions go
        check()
        assert seen[:5] == [{}, {first: 1}, {first: 2}, {first: 2}, {first: 1}]
        assert seen[5] == {first: 2} and seen[6] == {first: 2}
        assert seen[7] == {first: 1, third: 1} and seen[8] == {third: 1} and seen[9] == {}


def test_a_copy_counts_each_caption_once(tmp_path: Path) -> None:
    with _project(tmp_path / "p") as project:
        pairs = sorted(_kept(project))
        submit_caption(project, pairs[0], "ann", "is red")
        submit_caption(project, pairs[0], "bob", "is blue")
        submit_caption(project, pairs[1], "ann", "is green")
        expected = _kept(project)
    assert expected[pairs[0]] == 2 and expected[pairs[1]] == 1
    copy_project(tmp_path / "p", tmp_path / "copy.cirdb")
    with Project.open(tmp_path / "copy.cirdb") as copied:
        assert _kept(copied) == expected == _counted(copied)


def test_the_next_pair_passes_full_pairs_but_not_ones_own_draft(tmp_path: Path) -> None:
    """The desktop's next pair starts at the first pair short of its captions, or at an
    earlier pair holding this person's draft (a draft is finished even on a full pair)."""
    from studio.captions.queue import next_to_write
    from studio.captions.store import load_policy

    with _project(tmp_path / "p") as project:
        first, second, third, fourth = sorted(_kept(project))
        save_draft(project, second, "cem", "is red")  # before the pair had its captions
        for pair in (first, second):
            submit_caption(project, pair, "ann", "is blue")
            submit_caption(project, pair, "bob", "is green")
        policy = load_policy(project)
        assert next_to_write(project, "dan", policy) == third
        assert next_to_write(project, "cem", policy) == second
        assert next_to_write(project, "cem", policy, after=second) == third
        submit_caption(project, third, "ann", "is long")
        submit_caption(project, third, "bob", "is short")
        assert next_to_write(project, "dan", policy, after=first) == fourth


def test_a_review_waits_for_the_author_holding_the_pair_instead_of_deadlocking(
    postgresql_url: str, tmp_path: Path
) -> None:
    """A rejection updates the pair's row (its live count). The author editing the same
    caption holds the pair first, then changes the caption; the reviewer takes the pair
    before the caption too, so it waits, then decides on the author's newest text (taken
    the other way round, PostgreSQL would find a deadlock and undo one of them)."""
    import threading
    import time

    import psycopg
    from server_support import make_project

    make_project(postgresql_url, tmp_path, n_pairs=1, per_pair=2)
    with Project.open(postgresql_url) as project:
        pair = int(project.db.execute("SELECT id FROM pairs").fetchone()[0])
        written, _ = submit_caption(project, pair, "ann", "is red")
    outcome: dict[str, object] = {}

    def review() -> None:
        try:
            with Project.open(postgresql_url) as reviewer:
                outcome["caption"] = review_caption(reviewer, written.id, "lead", "reject",
                                                    reason="say the sleeves")
        except Exception as error:  # noqa: BLE001 - the test reports it
            outcome["error"] = error

    with psycopg.connect(postgresql_url) as author, psycopg.connect(
        postgresql_url, autocommit=True
    ) as watch:
        author.execute("SELECT 1 FROM pairs WHERE id = %s FOR NO KEY UPDATE", [pair])
        thread = threading.Thread(target=review)
        thread.start()
        deadline = time.monotonic() + 20
        while not watch.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND wait_event_type = 'Lock'"
        ).fetchone()[0]:
            assert time.monotonic() < deadline, "the review never waited for the pair"
            time.sleep(0.02)
        author.execute("UPDATE captions SET text = 'is red with long sleeves' WHERE id = %s",
                       [written.id])
        author.commit()
        thread.join(20)
    assert "error" not in outcome, outcome.get("error")
    decided = outcome["caption"]
    assert (decided.status, decided.text) == ("rejected", "is red with long sleeves")
    with Project.open(postgresql_url) as project:
        assert _kept(project) == _counted(project) == {pair: 0}
