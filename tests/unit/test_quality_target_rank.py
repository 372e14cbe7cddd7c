"""The quality report's target-rank indicator for transaction turns (reference + text)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from studio.captions.ranks import rank_summary
from studio.demo.catalog import TEXT_PHRASES, read_catalog
from studio.quality.criteria import CRITERION_KEYS
from studio.quality.embedding_source import ArrayEmbedder, project_embedder
from studio.quality.indicators import compute_indicators
from studio.quality.ratings import next_item, save_scores, set_status
from studio.quality.report import build_report
from studio.quality.sampling import SampleOptions, create_sample
from studio.store import Project
from studio.transactions.records import Transaction, Turn, sequential_turns
from studio.transactions.store import save_transactions


def test_target_rank_counts_gallery_images_closer_to_the_query(demo_project_dir: Path) -> None:
    with Project.open(demo_project_dir) as project:
        ids = [i.id for i in project.iter_images("dress")]
        split = project.image(ids[0]).split
        same = [i.id for i in project.iter_images("dress", split)][:4]
        ref, target, other, far = same
        transaction = Transaction(
            "d", "k", (ref, target, target), (Turn(1, "toward", 0), Turn(2, "away", 0))
        )
        (tid,), _ = save_transactions(project, [transaction], "t")
        vectors = {
            ref: np.array([1.0, 0.0, 0.0]),
            target: np.array([0.0, 1.0, 0.0]),
            other: np.array([0.0, 0.0, 1.0]),
            far: np.array([0.7, 0.0, 0.7]),
        }
        texts = {"toward": np.array([0.0, 3.0, 0.0]), "away": np.array([0.0, 0.0, 3.0])}
        embedder = ArrayEmbedder(vectors, lambda batch: [texts[t] for t in batch])
        result = compute_indicators(project, [(tid, 1), (tid, 2)], embedder)
    assert result.values[(tid, 1)].target_rank == 1
    # "away": query ∝ (1, 0, 3) scores other .95, far .89, the kept reference .32, target 0.
    assert result.values[(tid, 2)].target_rank == 4


def test_report_correlates_target_rank_with_accuracy_on_the_demo(indexed_demo_dir: Path) -> None:
    items = [i for i in read_catalog(indexed_demo_dir) if i.category == "dress"]
    by_split: dict[str, list] = {}
    for item in items:
        by_split.setdefault(item.split, []).append(item)
    pairs = [(a, b) for group in by_split.values() for a, b in zip(group, group[1:], strict=False)]
    pairs = [(a, b) for a, b in pairs if a.attributes["color"] != b.attributes["color"]][:12]

    def describe(item) -> str:
        a = item.attributes
        return (
            f"is {a['color']} {TEXT_PHRASES['pattern'][a['pattern']][0]} with "
            f"{TEXT_PHRASES['sleeve'][a['sleeve']][0]}"
        )

    good = [
        Transaction("good", f"g{n}", (a.id, b.id), sequential_turns([describe(b)]))
        for n, (a, b) in enumerate(pairs)
    ]
    poor = [
        Transaction("poor", f"p{n}", (a.id, b.id), sequential_turns([describe(a)]))
        for n, (a, b) in enumerate(pairs)
    ]
    with Project.open(indexed_demo_dir) as project:
        save_transactions(project, good + poor, "lead")
        create_sample(project, SampleOptions(raters=("Ana",), share=1.0, per_item=1), "lead")
        datasets = dict(project.db.execute("SELECT id, dataset FROM transactions").fetchall())
        while (item := next_item(project, "main", "Ana")) is not None:
            tid = project.db.execute(
                "SELECT transaction_id FROM rating_assignments WHERE id = :assignment_id", {
                    "assignment_id": item.assignment_id,
                }
            ).fetchone()[0]
            score = 5 if datasets[tid] == "good" else 2
            save_scores(project, item.assignment_id, "Ana", dict.fromkeys(CRITERION_KEYS, score))
            set_status(project, item.assignment_id, "Ana", "done")
        embedder, reason = project_embedder(project, "demo", "cpu")
        assert embedder is not None, reason
        report = build_report(project, embedder=embedder)
        result = compute_indicators(project, [(t, 1) for t in datasets], embedder)
    rho, count = report.correlations["target_rank"]["accuracy"]
    assert count == 2 * len(pairs)
    ranks = {
        name: [v.target_rank for (t, _), v in result.values.items() if datasets[t] == name]
        for name in ("good", "poor")
    }
    assert rank_summary(ranks["good"])["median_rank"] < rank_summary(ranks["poor"])["median_rank"]
    assert rho is not None and rho < 0  # better (lower) ranks go with higher Accuracy
    assert any("Target rank" in note for note in report.notes)
