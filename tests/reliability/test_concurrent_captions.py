"""Failure 3: the caption rules hold when annotators write at the same moment.

Before: the number of live captions and their authors were counted outside the
transaction that submitted, so 4 annotators writing at once left pairs with 3 captions
against a rule of 2, and one person in two windows got two drafts on one pair.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from reliability_helpers import has_traceback, make_pair_project, run_fleet

from studio.store import Project


def run_annotators(path: Path, names: list[str]) -> list[str]:
    go = path.with_name("go")
    ended = run_fleet(path.with_name("fleet"), {  # one person may write in two windows
        f"{name}-{window}": ("annotate", [path, name, go, 0, len(names)])
        for window, name in enumerate(names)
    })
    outputs = []
    for code, out, err in ended.values():
        assert code == 0, err
        assert not has_traceback(err), err
        outputs.append(out)
    return outputs


def test_four_annotators_never_exceed_two_captions_per_pair(tmp_path: Path) -> None:
    path = make_pair_project(tmp_path / "p", pairs=24)
    outputs = run_annotators(path, ["ann", "bob", "cyd", "dee"])
    with Project.open(path) as project:
        live = project.db.execute(
            "SELECT c.pair_id, p.name FROM captions c JOIN people p ON p.id = c.author_id "
            "WHERE c.status IN ('submitted', 'accepted')"
        ).fetchall()
        pairs = [row[0] for row in project.db.execute("SELECT id FROM pairs")]
    per_pair = Counter(pair for pair, _ in live)
    assert all(per_pair[pair] == 2 for pair in pairs)  # full, never over
    assert len(set(live)) == len(live)  # each live caption from a different person
    submitted = sum(out.count("submitted ") for out in outputs)
    assert submitted == 2 * len(pairs)  # every acknowledged submit is stored


def test_one_person_in_two_windows_gets_one_draft_per_pair(tmp_path: Path) -> None:
    path = make_pair_project(tmp_path / "p", pairs=12)
    run_annotators(path, ["ann", "ann", "bob", "bob"])
    with Project.open(path) as project:
        rows = project.db.execute(
            "SELECT c.pair_id, p.name, c.status FROM captions c JOIN people p ON p.id = c.author_id"
        ).fetchall()
    mine = Counter((pair, name) for pair, name, status in rows if status != "rejected")
    # Each person has exactly one caption per pair (their draft became their submission):
    # no second draft left behind by the other window.
    assert all(count == 1 for count in mine.values()), mine.most_common(3)
    live = Counter((pair, name) for pair, name, status in rows if status == "submitted")
    assert len(live) == 2 * 12


def test_eight_writers_keep_both_rules(tmp_path: Path) -> None:
    """Eight processes at once (four people, each in two windows): two captions per pair
    from different people, one draft per person and pair, every acknowledged submit kept
    (on PostgreSQL too: ``CIR_STUDIO_TEST_ENGINE=postgresql``)."""
    path = make_pair_project(tmp_path / "p", pairs=16)
    names = ["ann", "bob", "cyd", "dee"] * 2
    outputs = run_annotators(path, names)
    with Project.open(path) as project:
        rows = project.db.execute(
            "SELECT c.pair_id, p.name, c.status FROM captions c JOIN people p ON p.id = c.author_id"
        ).fetchall()
        pairs = [row[0] for row in project.db.execute("SELECT id FROM pairs")]
    live = [(pair, name) for pair, name, status in rows if status in ("submitted", "accepted")]
    per_pair = Counter(pair for pair, _ in live)
    assert all(per_pair[pair] == 2 for pair in pairs)
    assert len(set(live)) == len(live)
    drafts = Counter((pair, name) for pair, name, status in rows if status == "draft")
    assert all(count == 1 for count in drafts.values()), drafts.most_common(3)
    acknowledged = {
        (int(line.split()[1]), name)
        for name, out in zip(names, outputs, strict=True)
        for line in out.splitlines()
        if line.startswith("submitted ")
    }
    assert acknowledged == set(live)  # every acknowledged submit is stored, nothing else


def test_thirty_two_writers_on_postgresql_keep_every_rule(
    postgresql_url: str, tmp_path: Path
) -> None:
    """32 processes on one PostgreSQL project, which takes no project-wide lock: 16 people
    all on the same 8 pairs (each pair's rule is raced 16 ways) and 16 people each on two
    pairs of their own. No pair gets more than its two captions, none two from one person,
    no identity twice, every acknowledged submit kept, nothing else."""
    make_pair_project(postgresql_url, pairs=40, local_path=tmp_path / "project.pg")
    with Project.open(postgresql_url) as project:
        pairs = [row[0] for row in project.db.execute("SELECT id FROM pairs ORDER BY id")]
    assert len(pairs) == 40
    shared, own = pairs[:8], pairs[8:]
    plan = {f"s{n:02d}": shared[n % 8 :] + shared[: n % 8] for n in range(16)}
    plan.update({f"o{n:02d}": own[2 * n : 2 * n + 2] for n in range(16)})
    ended = run_fleet(tmp_path / "fleet", {
        name: ("annotate-pairs", [postgresql_url, name, tmp_path / "go", ",".join(map(str, mine))])
        for name, mine in plan.items()
    })
    acknowledged = set()
    for name, (code, out, err) in ended.items():
        assert code == 0, err
        assert not has_traceback(err), err
        acknowledged |= {
            (int(line.split()[1]), name) for line in out.splitlines() if line.startswith("submitted ")
        }
    with Project.open(postgresql_url) as project:
        rows = project.db.execute(
            "SELECT c.pair_id, p.name, c.status FROM captions c JOIN people p ON p.id = c.author_id"
        ).fetchall()
        identities = {
            table: project.db.execute(f"SELECT count(*), count(DISTINCT uid) FROM {table}").fetchone()
            for table in ("captions", "people")
        }
        names = [row[0] for row in project.db.execute("SELECT name FROM people")]
    live = [(pair, name) for pair, name, status in rows if status in ("submitted", "accepted")]
    per_pair = Counter(pair for pair, _ in live)
    assert all(per_pair[pair] == 2 for pair in shared)  # full, never over
    assert all(per_pair[pair] == 1 for pair in own)  # its one writer's caption
    assert len(set(live)) == len(live)  # never two live captions of one person on a pair
    drafts = Counter((pair, name) for pair, name, status in rows if status == "draft")
    assert all(count == 1 for count in drafts.values()), drafts.most_common(3)
    assert all(total == distinct for total, distinct in identities.values()), identities
    assert sorted(names) == sorted(set(names)) and len(names) == 32
    assert acknowledged == set(live)  # no lost write, nothing unacknowledged
