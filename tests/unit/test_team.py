"""Team work: global identity, assignments, blind work packages, lossless merges.

The module's fixture plays a whole round once: a coordinator's project with captions,
reviews, attribute batches and ratings assigned to three people, one package each, a
coordinator edit after packing, and the three people working on their packages at the
same time in three processes. Tests copy that round and merge it in different ways.
"""

from __future__ import annotations

import itertools
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from studio import project_events
from studio.captions.queue import next_to_write
from studio.captions.store import load_policy, review_caption
from studio.errors import ProjectError, StudioError
from studio.store import Project
from studio.store.database import connect, migrate
from studio.store.schema import UID_TABLES
from studio.team.assignments import assign_captions, team_progress
from studio.team.merge import merge_packages
from studio.team.pack import pack
from studio.team.records import KINDS, content_hash, dump, read

ROOT = Path(__file__).resolve().parents[2]
PEOPLE = ("ann", "bob", "cy")
WORK = (
    "from studio.team.rehearsal import work_on_package as w; import sys; "
    "print(w(sys.argv[1], sys.argv[2]))"
)


def run_people(packages: dict[str, Path]) -> None:
    """Each person works on their own package in their own process, all at once."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WORK, str(path), name],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for name, path in packages.items()
    ]
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err.decode()


@pytest.fixture(scope="module")
def team_round(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from studio.team.rehearsal import build_project

    folder = tmp_path_factory.mktemp("team")
    project = build_project(folder / "project", PEOPLE)
    (folder / "out").mkdir()
    packages = {name: pack(project, name, folder / "out", "lead").path for name in PEOPLE}
    # the coordinator changes a caption that is out for review, after packing
    caption = project.db.execute(
        "SELECT id FROM captions WHERE status = 'submitted' ORDER BY id LIMIT 1"
    ).fetchone()[0]
    review_caption(project, caption, "lead", "reject", "coordinator says no")
    project.close()
    run_people(packages)
    return folder


@pytest.fixture
def round_copy(team_round: Path, tmp_path: Path) -> Path:
    shutil.copytree(team_round, tmp_path / "round")
    return tmp_path / "round"


def packages(folder: Path) -> dict[str, Path]:
    return {name: folder / "out" / f"project-{name}.cirdb" for name in PEOPLE}


def merged(folder: Path, order: tuple[str, ...], name: str) -> dict:
    target = folder / name
    shutil.copytree(folder / "project", target)
    with Project.open(target) as project:
        merge_packages(project, [packages(folder)[n] for n in order], "lead")
        return dump(project.db.conn, with_audit=True)


def test_an_older_project_gets_global_ids_and_every_insert_fills_them(tmp_path: Path) -> None:
    path = tmp_path / "project.cirdb"
    db = connect(path)
    migrate(db, path, target=3)
    db.execute("INSERT INTO people (name, created_at) VALUES ('ann', 'x'), ('bob', 'x')")
    db.execute(
        "INSERT INTO audit_log (at, actor, action, entity, entity_id) "
        "VALUES ('x', 'ann', 'add', 'caption', '1')"
    )
    db.close()
    with Project.open(path) as project:
        rows = project.db.execute("SELECT uid, origin_copy FROM people").fetchall()
        origin = project.get_meta("origin_id")
        assert len({uid for uid, _ in rows}) == 2 and all(len(uid) == 32 for uid, _ in rows)
        assert {o for _, o in rows} == {origin} and project.get_meta("project_id")
        project.ensure_person("cy")
        uid = project.db.execute("SELECT uid FROM people WHERE name = 'cy'").fetchone()[0]
        assert uid and uid not in {u for u, _ in rows}


def test_every_record_of_a_worked_project_has_a_unique_global_id(round_copy: Path) -> None:
    def check(db: Any, name: str) -> None:
        for table in UID_TABLES:
            nulls, total, distinct = db.execute(
                "SELECT sum(CASE WHEN uid IS NULL OR origin_copy IS NULL THEN 1 ELSE 0 END), "
                f"count(*), count(DISTINCT uid) FROM {table}"
            ).fetchone()
            assert not nulls and total == distinct, (name, table)

    with Project.open(round_copy / "project") as project:  # on any engine
        check(project.db, "project")
    for path in packages(round_copy).values():  # a package is an SQLite file
        conn = sqlite3.connect(path)
        check(conn, path.name)
        conn.close()
    # audit rows about a caption know the caption's uid, so copies can be compared
    conn = sqlite3.connect(packages(round_copy)["ann"])
    rows = conn.execute(
        "SELECT a.entity_uid, c.uid FROM audit_log a JOIN captions c "
        "ON c.id = a.entity_id WHERE a.entity = 'caption'"
    ).fetchall()
    assert rows and all(a == b for a, b in rows)


def test_caption_queues_keep_n_per_pair_from_different_people(round_copy: Path) -> None:
    with Project.open(round_copy / "project") as project:
        per_pair = load_policy(project).per_pair
        holders = project.db.execute(
            "SELECT p.id, count(*), count(DISTINCT x.name) FROM team_assignments t "
            "JOIN pairs p ON p.uid = t.item JOIN people x ON x.id = t.person_id "
            "WHERE t.kind = 'caption' GROUP BY p.id"
        ).fetchall()
        live = dict(
            project.db.execute(
                "SELECT pair_id, count(*) FROM captions WHERE status IN ('submitted', 'accepted') "
                "GROUP BY 1"
            ).fetchall()
        )
        assert holders
        for pair_id, count, _ in holders:
            assert count + live.get(pair_id, 0) <= per_pair
        # the caption the coordinator rejected after packing left one pair a caption short
        again = assign_captions(project, PEOPLE, "lead")
        assert sum(again.values()) == 1
        assert assign_captions(project, PEOPLE, "lead") == {name: 0 for name in PEOPLE}


def test_a_package_holds_one_persons_work_and_stays_blind(round_copy: Path) -> None:
    path = packages(round_copy)["ann"]
    assert b"SecretSet" not in path.read_bytes()  # no dataset origin, not even in free pages
    with Project.open(path) as package:
        raters = package.db.execute(
            "SELECT DISTINCT p.name FROM rating_assignments a JOIN people p ON p.id = a.rater_id"
        ).fetchall()
        assert raters == [("ann",)]
        others = package.db.execute(
            "SELECT count(*) FROM team_assignments t JOIN people p ON p.id = t.person_id "
            "WHERE p.name != 'ann'"
        ).fetchone()[0]
        assert others == 0
        assert package.get_meta("team.person") == "ann"
        assert package.get_meta("origin_id") != Project.open(round_copy / "project").get_meta(
            "origin_id"
        )


def test_a_fresh_package_shows_the_person_their_queue(tmp_path: Path) -> None:
    from studio.team.rehearsal import build_project

    project = build_project(tmp_path / "p", ["ann", "bob"], n_pairs=8)
    path = pack(project, "ann", tmp_path / "ann.cirdb", "lead", with_images=True).path
    with Project.open(path) as package:
        mine = {
            row[0]
            for row in package.db.execute(
                "SELECT p.id FROM pairs p JOIN team_assignments t ON t.item = p.uid "
                "WHERE t.kind = 'caption'"
            )
        }
        first = next_to_write(package, "ann", load_policy(package))
        assert first in mine
        image = next(package.iter_images())
        assert package.image_path(image).is_file()
        assert package.image_root.parent == tmp_path  # the copied images, beside the file


def test_merging_in_any_order_gives_the_same_data_and_loses_nothing(round_copy: Path) -> None:
    results = [
        merged(round_copy, order, f"merged-{n}")
        for n, order in enumerate(itertools.permutations(PEOPLE))
        if n in (0, 3, 5)
    ]
    assert results[0] == results[1] == results[2]
    final = results[0]
    with Project.open(round_copy / "merged-0") as project:
        conflicts = project.db.execute(
            "SELECT entity_uid, before FROM audit_log WHERE action = 'team.conflict'"
        ).fetchall()
        assert conflicts  # two reviewers and the coordinator disagreed on some captions
        lost = {(uid, content_hash(json.loads(before))) for uid, before in conflicts}
        # the coordinator's rejection was made before the reviewers worked: the later
        # review wins, and the rejection is kept as the losing version
        losers = [json.loads(before) for _, before in conflicts]
        assert any(v.get("reject_reason") == "coordinator says no" for v in losers)
        for uid, _ in conflicts:
            status = project.db.execute(
                "SELECT status FROM captions WHERE uid = :uid", {"uid": uid}
            ).fetchone()[0]
            assert status == "submitted"  # back in the review queue
        # every version any person made is in the result or in the audit log as the loser
        for path in packages(round_copy).values():
            conn = sqlite3.connect(path)
            base = dict(conn.execute("SELECT uid, hash FROM team_base").fetchall())
            for kind in KINDS:
                for record in read(conn, kind):
                    if base.get(record.uid) == record.hash:
                        continue
                    if kind.name == "audit":
                        assert record.uid in final["audit"]
                        continue
                    kept = final[kind.name].get(record.uid)
                    if kept is not None and content_hash(kept) == record.hash:
                        continue
                    review = {
                        **record.content,
                        "status": "submitted",
                        "reviewer_id": None,
                        "reviewed_at": None,
                        "reject_reason": None,
                    }
                    assert (
                        (record.uid, record.hash) in lost
                        or (record.uid, content_hash(review)) in lost
                        or (kept is not None and kept == review)
                    ), (kind.name, record.content)
            conn.close()


def test_merging_twice_adds_nothing_and_progress_shows_what_came_back(round_copy: Path) -> None:
    with Project.open(round_copy / "project") as project:
        before = {p.name: p for p in team_progress(project)}
        assert all(p.came_back_at is None and p.total_outstanding for p in before.values())
        merge_packages(project, list(packages(round_copy).values()), "lead")
        once = dump(project.db.conn, with_audit=True)
        audit_rows = project.db.execute("SELECT count(*) FROM audit_log").fetchone()[0]
        reports = merge_packages(project, list(packages(round_copy).values()), "lead")
        assert all(r.changes == 0 for r in reports)
        assert dump(project.db.conn, with_audit=True) == once
        assert project.db.execute("SELECT count(*) FROM audit_log").fetchone()[0] == audit_rows
        after = {p.name: p for p in team_progress(project)}
        for name in PEOPLE:
            assert after[name].came_back_at is not None
            assert after[name].edits_back > 0  # audit rows whose origin is their package
            assert after[name].outstanding.get("caption") == 0
            assert after[name].outstanding.get("rating") == 0
        if getattr(project, "engine", "sqlite") == "sqlite":
            assert project.db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_a_merge_is_one_change_heard_after_its_commit(round_copy: Path) -> None:
    """Each package merges as one project.change: one team.merge audit row, every kind of
    event once, after the commit (a listener reading the project sees the merged data);
    merging it again writes no audit row and announces nothing."""
    with Project.open(round_copy / "project") as project:
        heard: list[tuple[str, bool, int]] = []

        def listener(kind: str) -> None:
            merges = project.db.execute(
                "SELECT count(*) FROM audit_log WHERE action = 'team.merge'"
            ).fetchone()[0]
            heard.append((kind, project.db.conn.in_transaction, merges))

        project.events.changed.connect(listener)
        [report] = merge_packages(project, [packages(round_copy)["ann"]], "lead")
        assert report.changes
        assert sorted(kind for kind, _, _ in heard) == sorted(project_events.KINDS)
        assert all(not in_transaction and merges == 1 for _, in_transaction, merges in heard)
        rows = project.db.execute(
            "SELECT actor, entity, entity_id, after FROM audit_log WHERE action = 'team.merge'"
        ).fetchall()
        assert [(actor, entity, entity_id) for actor, entity, entity_id, _ in rows] == [
            ("lead", "team_package", report.package_id)
        ]
        assert json.loads(rows[0][3])["changes"] == report.changes
        heard.clear()
        merge_packages(project, [packages(round_copy)["ann"]], "lead")
        assert heard == []
        assert (
            project.db.execute(
                "SELECT count(*) FROM audit_log WHERE action = 'team.merge'"
            ).fetchone()[0]
            == 1
        )


def test_packages_of_another_project_or_a_newer_schema_are_refused(
    round_copy: Path, tmp_path: Path
) -> None:
    from studio.team.rehearsal import build_project

    other = build_project(tmp_path / "other", ["ann", "bob"], n_pairs=6)
    foreign = pack(other, "ann", tmp_path / "foreign.cirdb", "lead").path
    other.close()
    newer = tmp_path / "newer.cirdb"
    shutil.copy(packages(round_copy)["bob"], newer)
    conn = sqlite3.connect(newer)
    conn.execute("PRAGMA user_version = 999")
    conn.close()
    with Project.open(round_copy / "project") as project:
        before = dump(project.db.conn, with_audit=True)
        with pytest.raises(ProjectError, match="another project"):
            merge_packages(project, [packages(round_copy)["ann"], foreign], "lead")
        with pytest.raises(ProjectError, match="newer CIR Studio"):
            merge_packages(project, [newer], "lead")
        with pytest.raises(ProjectError, match="not a (CIR Studio )?work package"):
            merge_packages(project, [round_copy / "project" / "project.cirdb"], "lead")
        assert dump(project.db.conn, with_audit=True) == before
    with Project.open(packages(round_copy)["ann"]) as package:
        with pytest.raises(ProjectError, match="itself a work package"):
            merge_packages(package, [packages(round_copy)["bob"]], "ann")
        with pytest.raises(StudioError, match="itself a work package"):
            pack(package, "ann", tmp_path / "again.cirdb", "ann")


def test_the_cli_assigns_packs_merges_and_reports(
    round_copy: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    from studio.cli.main import main

    project = str(round_copy / "project")
    assert main(["team", "status", "--project", project, "--json"]) == 0
    assert (
        main(["team", "merge", "--project", project, *map(str, packages(round_copy).values())]) == 0
    )
    assert main(["team", "assign", "captions", "--project", project, "--people", "dee"]) == 0
    assert main(["team", "pack", "--project", project, "--person", "nobody", str(tmp_path)]) == 2
    out = tmp_path / "cy-again.cirdb"
    assert (
        main(
            [
                "team",
                "pack",
                "--project",
                project,
                "--person",
                "cy",
                str(out),
                "--image-root",
                "D:/shared/images",
            ]
        )
        == 0
    )
    said = capsys.readouterr().out.splitlines()[-1]
    with Project.open(round_copy / "project") as opened:
        from studio.team.pack import handed_out, handed_out_text

        cy = handed_out(opened, opened.ensure_person("cy").id)
    assert said.endswith(
        f"for cy: {cy['caption']} pairs to caption, {cy['review']} captions to review, "
        f"{cy['attributes']} images to label, {cy['rating']} transactions to rate."
    )
    assert handed_out_text({"caption": 1, "rating": 1}) == "1 pair to caption, 1 transaction to rate"
    with Project.open(out) as package:
        assert package.get_meta("image_root") == "D:/shared/images"
    with Project.open(round_copy / "project") as opened:
        assert {p.name for p in team_progress(opened)} >= set(PEOPLE)


def test_a_package_cannot_be_written_over_an_existing_file(round_copy: Path) -> None:
    with (
        Project.open(round_copy / "project") as project,
        pytest.raises(StudioError, match="already exists"),
    ):
        pack(project, "ann", packages(round_copy)["ann"], "lead")


MERGE = (
    "import sys; from pathlib import Path; from studio.store import Project; "
    "from studio.team.merge import merge_packages; "
    "p = Project.open(Path(sys.argv[1])); "
    "merge_packages(p, [Path(sys.argv[2])], 'lead', "
    "progress=lambda done, total, message: (print(done, flush=True), sys.stdin.readline()))"
)


def _merge_process(project: Path, package: Path, stepped: bool) -> subprocess.Popen:
    """A merge in another process; ``stepped``: it waits for a line on stdin at each step."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    return subprocess.Popen(
        [sys.executable, "-c", MERGE, str(project), str(package)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.PIPE if stepped else subprocess.DEVNULL,
        text=True,
    )


def _state(path: Path) -> dict:
    with Project.open(path) as project:
        if getattr(project, "engine", "sqlite") == "sqlite":
            assert project.db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        return dump(project, with_audit=True)


@pytest.mark.slow
def test_merges_killed_midway_leave_nothing_half_merged(round_copy: Path) -> None:
    """kill -9 inside merges (in random orders, at a random step); re-running completes them."""
    import random
    import signal

    reference = merged(round_copy, PEOPLE, "reference")
    rng = random.Random(16)
    kills = 0
    for trial in range(2):
        order = list(PEOPLE)
        rng.shuffle(order)
        target = round_copy / f"killed-{trial}"
        shutil.copytree(round_copy / "project", target)
        for name in order:
            package = packages(round_copy)[name]
            before = _state(target)
            proc = _merge_process(target, package, stepped=True)
            assert proc.stdout is not None and proc.stdin is not None
            for _ in range(rng.randint(2, len(KINDS) - 1)):  # well inside the transaction
                proc.stdout.readline()
                proc.stdin.write("\n")
                proc.stdin.flush()
            proc.stdout.readline()  # it has written part of the package and waits here
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            kills += proc.returncode == -signal.SIGKILL
            assert _state(target) == before  # nothing half merged
            rerun = _merge_process(target, package, stepped=False)
            rerun.communicate(timeout=120)
            assert rerun.returncode == 0
        assert _state(target) == reference  # 0 lost, 0 duplicated
    assert kills == 2 * len(PEOPLE)


def test_a_label_taken_back_is_removed_unless_the_project_changed_it(tmp_path: Path) -> None:
    from studio.attributes.labels import review
    from studio.team.rehearsal import ATTRIBUTES, build_project

    project = build_project(tmp_path / "p", ["ann", "bob"], n_pairs=6)
    image = project.db.execute(
        "SELECT t.item FROM team_assignments t JOIN people p ON p.id = t.person_id "
        "WHERE p.name = 'ann' AND t.kind = 'attributes' ORDER BY t.id LIMIT 1"
    ).fetchone()[0]
    suggested = {
        row[0]
        for row in project.db.execute(
            "SELECT v.name FROM image_attributes l JOIN attribute_vocab v ON v.id = l.attribute_id "
            "WHERE l.image_id = :image",
            {"image": image},
        )
    }
    attribute = next(name for name, _ in ATTRIBUTES if name not in suggested)

    def label() -> list[tuple[str, str]]:
        return project.db.execute(
            "SELECT l.source, l.status FROM image_attributes l JOIN attribute_vocab v "
            "ON v.id = l.attribute_id WHERE l.image_id = :image AND v.name = :attribute",
            {"image": image, "attribute": attribute},
        ).fetchall()

    first = pack(project, "ann", tmp_path / "first.cirdb", "lead").path
    with Project.open(first) as package:
        review(package, "ann", image, [attribute], "accepted")  # a label nobody suggested
    merge_packages(project, [first], "lead")
    assert label() == [("person", "accepted")]
    second = pack(project, "ann", tmp_path / "second.cirdb", "lead").path
    with Project.open(second) as package:
        review(package, "ann", image, [attribute], "suggested")  # she takes it back
    project.close()
    shutil.copytree(tmp_path / "p", tmp_path / "q")
    with Project.open(tmp_path / "q") as other:
        review(other, "lead", image, [attribute], "rejected")  # the coordinator decided since
        [report] = merge_packages(other, [second], "lead")
        assert report.removed == {}
        kept = other.db.execute(
            "SELECT l.status FROM image_attributes l JOIN attribute_vocab v "
            "ON v.id = l.attribute_id WHERE l.image_id = :image AND v.name = :attribute",
            {"image": image, "attribute": attribute},
        ).fetchall()
        assert kept == [("rejected",)]  # an edit beats a removal
    project = Project.open(tmp_path / "p")
    [report] = merge_packages(project, [second], "lead")
    assert report.removed == {"image_attributes": 1}
    assert label() == []
    project.close()


def test_vocabulary_edits_new_transactions_and_edited_turns_come_back(round_copy: Path) -> None:
    from studio.attributes.labels import review
    from studio.attributes.vocabulary import add_attribute, rename_attribute
    from studio.transactions.records import Transaction, sequential_turns
    from studio.transactions.store import edit_turn, save_transactions

    path = packages(round_copy)["bob"]
    with Project.open(path) as package:
        images = [row[0] for row in package.db.execute("SELECT id FROM images ORDER BY id")]
        add_attribute(package, "bob", "pleated", "shape")
        rename_attribute(package, "bob", "striped", "stripes")
        review(package, "bob", images[0], ["pleated"], "accepted")
        built = Transaction(
            "built", "bob-1", tuple(images[:3]), sequential_turns(["is red", "is longer"])
        )
        save_transactions(package, [built], "bob")
        rated, turn = package.db.execute(
            "SELECT transaction_id, turn_index FROM transaction_turns "
            "WHERE transaction_id IN (SELECT id FROM transactions WHERE dataset = 'blind') "
            "ORDER BY 1, 2 LIMIT 1"
        ).fetchone()
        edit_turn(package, rated, turn, "is a deeper red", "bob")
    with Project.open(round_copy / "project") as project:
        merge_packages(project, [path], "lead")
        names = {row[0] for row in project.db.execute("SELECT name FROM attribute_vocab")}
        assert {"pleated", "stripes"} <= names and "striped" not in names
        label = project.db.execute(
            "SELECT l.source, l.status FROM image_attributes l JOIN attribute_vocab v "
            "ON v.id = l.attribute_id WHERE v.name = 'pleated' AND l.image_id = :image_id",
            {"image_id": images[0]},
        ).fetchone()
        assert label == ("person", "accepted")
        images_back = project.db.execute(
            "SELECT i.image_id FROM transaction_images i JOIN transactions t "
            "ON t.id = i.transaction_id WHERE t.dataset = 'built' ORDER BY position"
        ).fetchall()
        assert [row[0] for row in images_back] == images[:3]
        turns = project.db.execute(
            "SELECT count(*) FROM transaction_turns u JOIN transactions t "
            "ON t.id = u.transaction_id WHERE t.dataset = 'built'"
        ).fetchone()[0]
        assert turns == 2
        edited = project.db.execute(
            "SELECT t.dataset, u.text FROM transaction_turns u JOIN transactions t "
            "ON t.id = u.transaction_id WHERE u.text = 'is a deeper red'"
        ).fetchall()
        assert edited == [("SecretSet", "is a deeper red")]  # the original, not the blind copy


def test_merging_again_after_the_coordinator_reviewed_keeps_the_review(round_copy: Path) -> None:
    ann = packages(round_copy)["ann"]
    with Project.open(round_copy / "project") as project:
        merge_packages(project, [ann], "lead")
        caption = project.db.execute(
            "SELECT c.id FROM captions c JOIN people a ON a.id = c.author_id "
            "WHERE a.name = 'ann' AND c.status = 'submitted' ORDER BY c.id LIMIT 1"
        ).fetchone()[0]
        review_caption(project, caption, "lead", "accept")
        once = dump(project.db.conn, with_audit=True)
        [report] = merge_packages(project, [ann], "lead")  # sent again by mistake
        assert report.changes == 0
        assert dump(project.db.conn, with_audit=True) == once
        status = project.db.execute("SELECT status FROM captions WHERE id = :caption", {
            "caption": caption,
        })
        assert status.fetchone()[0] == "accepted"


CRASH = (
    "import os, sys; from studio.store import Project; "
    "from studio.captions.store import submit_caption; "
    "p = Project.open(sys.argv[1]); "
    'pair = p.db.execute("SELECT p.id FROM pairs p JOIN team_assignments t ON t.item = p.uid '
    "WHERE t.kind = 'caption' ORDER BY p.id LIMIT 1\").fetchone()[0]; "
    "submit_caption(p, pair, 'ann', 'typed just before the crash'); os._exit(0)"
)


def test_edits_left_in_a_packages_wal_by_a_crash_come_back(tmp_path: Path) -> None:
    from studio.team.rehearsal import build_project

    project = build_project(tmp_path / "p", ["ann", "bob"], n_pairs=6)
    path = pack(project, "ann", tmp_path / "ann.cirdb", "lead").path
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    subprocess.run([sys.executable, "-c", CRASH, str(path)], env=env, check=True)
    wal = path.with_name(path.name + "-wal")
    assert wal.is_file() and wal.stat().st_size > 0  # the studio died before checkpointing
    [report] = merge_packages(project, [path], "lead")
    assert report.added.get("captions") == 1
    text = project.db.execute(
        "SELECT text FROM captions WHERE text = 'typed just before the crash'"
    ).fetchone()
    assert text is not None
    project.close()
