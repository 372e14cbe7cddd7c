"""Blind rating samples: share per dataset, strata, raters per item, seeded order."""

from __future__ import annotations

import math
import shutil
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from studio.errors import StudioError
from studio.quality.sampling import SampleOptions, create_sample, eligible_items
from studio.store import Project
from studio.transactions.records import Transaction, sequential_turns
from studio.transactions.store import save_transactions

CATEGORIES = ("dress", "shirt", "toptee")


def chain(dataset: str, n: int, category: str, turns: int, status: str = "accepted"
          ) -> Transaction:
    images = tuple(f"{category}-{(n + k) % 20:05d}" for k in range(turns + 1))
    return Transaction(dataset=dataset, external_key=f"{category}-{n}", image_ids=images,
                       turns=sequential_turns([f"change {k}" for k in range(turns)], status),
                       category=category)


def fill(project: Project) -> None:
    """Dataset A: 30 transactions × 3 turns; B: 12 × 2 turns; C: drafts only."""
    save_transactions(project, [chain("A", n, CATEGORIES[n % 3], 3) for n in range(30)], "t")
    save_transactions(project, [chain("B", n, CATEGORIES[n % 2], 2) for n in range(12)], "t")
    save_transactions(project, [chain("C", n, "dress", 2, "draft") for n in range(5)], "t")


@pytest.fixture
def project(demo_project_dir: Path):
    with Project.open(demo_project_dir) as project:
        fill(project)
        yield project


def assignments(project: Project, sample: str = "main") -> list[tuple[int, int, str, int]]:
    rows = project.db.execute(
        "SELECT a.transaction_id, a.turn_index, p.name, a.order_key FROM rating_assignments a "
        "JOIN people p ON p.id = a.rater_id WHERE a.sample = :sample ORDER BY a.id", {"sample": sample}
    ).fetchall()
    return [tuple(r) for r in rows]


def dataset_of(project: Project) -> dict[int, tuple[str, str]]:
    rows = project.db.execute("SELECT id, dataset, category FROM transactions").fetchall()
    return {r[0]: (r[1], r[2]) for r in rows}


def test_each_dataset_contributes_its_share(project: Project) -> None:
    summary = create_sample(project, SampleOptions(raters=("Ana", "Ben", "Cy")), "lead")
    assert summary.items_per_dataset == {"A": (18, 90), "B": (5, 24)}  # 20 % of 90 and of 24
    items = {(t, k) for t, k, _, _ in assignments(project)}
    datasets = Counter(dataset_of(project)[t][0] for t, _ in items)
    assert datasets == {"A": 18, "B": 5}


def test_drafts_are_never_sampled(project: Project) -> None:
    create_sample(project, SampleOptions(raters=("Ana", "Ben"), share=1.0), "lead")
    assert "C" not in {dataset_of(project)[t][0] for t, _, _, _ in assignments(project)}


def test_strata_get_their_proportional_share(project: Project) -> None:
    create_sample(project, SampleOptions(raters=("Ana", "Ben"), share=0.3), "lead")
    sampled = Counter()
    info = dataset_of(project)
    for t, k in {(t, k) for t, k, _, _ in assignments(project)}:
        sampled[(*info[t], k)] += 1
    for stratum, items in eligible_items(project).items():
        assert abs(sampled[stratum] - 0.3 * len(items)) < 1.0 + 1e-9, stratum
    turn_indices = {k for (_, _, k) in sampled}
    assert turn_indices == {1, 2, 3}


def test_every_item_goes_to_two_different_raters(project: Project) -> None:
    create_sample(project, SampleOptions(raters=("Ana", "Ben", "Cy", "Dee")), "lead")
    raters = defaultdict(list)
    for t, k, name, _ in assignments(project):
        raters[(t, k)].append(name)
    assert all(len(names) == 2 and len(set(names)) == 2 for names in raters.values())
    load = Counter(name for names in raters.values() for name in names)
    assert max(load.values()) - min(load.values()) <= 1  # the least loaded rater goes first


def test_a_rater_never_gets_an_item_twice_across_samples(project: Project) -> None:
    create_sample(project, SampleOptions(raters=("Ana", "Ben"), share=0.5), "lead")
    create_sample(project, SampleOptions(raters=("Ana", "Ben", "Cy"), name="second", share=0.5,
                                         seed=3), "lead")
    seen = Counter()
    for sample in ("main", "second"):
        for t, k, name, _ in assignments(project, sample):
            seen[(t, k, name)] += 1
    assert set(seen.values()) == {1}


def test_sampling_again_tops_up_and_is_otherwise_a_no_op(project: Project) -> None:
    options = SampleOptions(raters=("Ana", "Ben"))
    create_sample(project, options, "lead")
    before = assignments(project)
    assert create_sample(project, options, "lead").added_items == 0
    assert assignments(project) == before
    more = create_sample(project, SampleOptions(raters=("Ana", "Ben"), share=0.4), "lead")
    assert more.items_per_dataset["A"] == (36, 90)
    assert assignments(project)[: len(before)] == before


def test_the_same_seed_draws_the_same_sample(project: Project, demo_project_dir: Path,
                                             tmp_path: Path) -> None:
    twin_dir = tmp_path / "twin"
    shutil.copytree(demo_project_dir, twin_dir)
    with Project.open(twin_dir) as twin:
        create_sample(twin, SampleOptions(raters=("Ana", "Ben"), seed=7), "lead")
        twin_rows = assignments(twin)
    create_sample(project, SampleOptions(raters=("Ana", "Ben"), seed=7), "lead")
    assert assignments(project) == twin_rows
    create_sample(project, SampleOptions(raters=("Ana", "Ben"), name="other", seed=8), "lead")
    other = {(t, k) for t, k, _, _ in assignments(project, "other")}
    assert other != {(t, k) for t, k, _, _ in twin_rows}


def test_each_rater_has_their_own_shuffled_order(project: Project) -> None:
    create_sample(project, SampleOptions(raters=("Ana", "Ben"), share=1.0, per_item=2), "lead")
    queues = defaultdict(list)
    for t, k, name, _order in sorted(assignments(project), key=lambda row: row[3]):
        queues[name].append((t, k))
    assert set(queues["Ana"]) == set(queues["Ben"])
    assert queues["Ana"] != queues["Ben"]
    assert queues["Ana"] != sorted(queues["Ana"])


@pytest.mark.parametrize(("options", "message"), [
    (dict(raters=("Ana",), per_item=2), "need at least 2 raters"),
    (dict(raters=("Ana", "Ana")), "listed twice"),
    (dict(raters=("Ana", "Ben"), share=0.0), "share must lie"),
])
def test_impossible_samples_are_refused(options: dict, message: str) -> None:
    with pytest.raises(StudioError, match=message):
        SampleOptions(**options)


def test_a_project_without_accepted_turns_cannot_be_sampled(demo_project_dir: Path) -> None:
    with Project.open(demo_project_dir) as empty, pytest.raises(StudioError, match="no accepted"):
        create_sample(empty, SampleOptions(raters=("Ana", "Ben")), "lead")


def test_tiny_datasets_still_get_one_item(project: Project) -> None:
    save_transactions(project, [chain("tiny", 0, "dress", 1)], "t")
    summary = create_sample(project, SampleOptions(raters=("Ana", "Ben"), share=0.1), "lead")
    assert summary.items_per_dataset["tiny"] == (1, 1)
    assert summary.items_per_dataset["A"] == (math.floor(0.1 * 90 + 0.5), 90)
