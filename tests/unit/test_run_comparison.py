"""Two runs query by query: shared queries, wins/losses/ties at K, the paired bootstrap
interval the benches compute, and the ``experiments queries|compare|export-queries``
commands."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest

from studio.cli.main import main
from studio.experiments.compare import compare_runs
from studio.experiments.query_log import QueryLog, read_queries


def synthetic(folder: Path, ids: list[str], ranks: list[int | None]):
    with QueryLog(folder, "evaluate-cirr") as log:
        for query, rank in zip(ids, ranks, strict=True):
            log.add(query, category="dress", texts=["is red"], ranks=[rank])
    return read_queries(log.path)


def test_the_interval_is_the_benches_own_on_the_shared_queries(tmp_path: Path) -> None:
    from bench.bench_combiner import paired_bootstrap as bench_bootstrap
    from bench.bench_combiner import recall as bench_recall

    rng = np.random.default_rng(5)
    ids_a = [f"q{i}" for i in range(300)]
    ids_b = [f"q{i}" for i in range(50, 330)]  # 250 shared, 50 only in A, 30 only in B
    ranks_a = [None if r > 60 else int(r) for r in rng.integers(1, 80, len(ids_a))]
    ranks_b = [None if r > 60 else int(r) for r in rng.integers(1, 70, len(ids_b))]
    a = synthetic(tmp_path / "a", ids_a, ranks_a)
    b = synthetic(tmp_path / "b", ids_b, ranks_b)
    comparison = compare_runs(a, b, k=10)
    assert (len(comparison), comparison.only_a, comparison.only_b) == (250, 50, 30)
    shared_a = ranks_a[50:]
    shared_b = ranks_b[:250]
    expected = bench_bootstrap(bench_recall(shared_b, 10), bench_recall(shared_a, 10))
    assert (comparison.difference, comparison.low, comparison.high) == expected
    wins = sum(1 for x, y in zip(shared_a, shared_b, strict=True)
               if (y is not None and y <= 10) and not (x is not None and x <= 10))
    losses = sum(1 for x, y in zip(shared_a, shared_b, strict=True)
                 if (x is not None and x <= 10) and not (y is not None and y <= 10))
    assert (comparison.wins, comparison.losses) == (wins, losses)
    assert comparison.wins + comparison.losses + comparison.ties == 250
    assert "250 shared queries (50 only in A, 30 only in B)" in comparison.header()
    first = comparison.order()[0]  # the largest loss first
    assert comparison.change[first] == comparison.change.min()


def test_the_paired_interval_of_100000_queries_is_the_one_resampling_them_gives() -> None:
    """The bootstrap counts how often each paired difference is drawn instead of drawing
    100,000 indices a resample (its speed: bench/bench_query_browser.py); the interval
    must stay the one that resampling the queries gives."""
    from studio.simulation.metrics import paired_bootstrap

    rng = np.random.default_rng(3)
    a = (rng.random(100_000) < 0.31).astype(float)
    b = (rng.random(100_000) < 0.30).astype(float)
    difference, low, high = paired_bootstrap(a, b)
    assert difference == pytest.approx(a.mean() - b.mean())
    # The plain resampling of query indices (300 resamples) gives the same interval.
    index = rng.integers(0, len(a), (300, len(a)))
    plain = (a - b)[index].mean(axis=1)
    spread = plain.std()
    assert low == pytest.approx(np.quantile(plain, 0.025), abs=0.5 * spread)
    assert high == pytest.approx(np.quantile(plain, 0.975), abs=0.5 * spread)
    assert low < difference < high


def test_runs_sharing_no_query_are_refused(tmp_path: Path) -> None:
    from studio.errors import StudioError

    a = synthetic(tmp_path / "a", ["x"], [1])
    b = synthetic(tmp_path / "b", ["y"], [1])
    with pytest.raises(StudioError, match="share no query"):
        compare_runs(a, b)


@pytest.fixture(scope="module")
def two_runs(indexed_demo_template: Path, tmp_path_factory) -> Path:
    import shutil

    project = tmp_path_factory.mktemp("runs") / "demo"
    shutil.copytree(indexed_demo_template, project)
    for strategy in ("sum", "text"):
        assert main(["simulate", "--project", str(project), "--strategy", strategy,
                     "--turns", "2", "--n", "12", "--split", "all"]) == 0
    return project


def test_compare_prints_wins_losses_and_the_interval(two_runs: Path, capsys) -> None:
    capsys.readouterr()
    assert main(["experiments", "compare", "--project", str(two_runs), "1", "2",
                 "--at", "5", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["shared"] == 12 and data["only_a"] == data["only_b"] == 0
    assert data["wins"] + data["losses"] + data["ties"] == 12
    low, high = data["interval"]
    assert low <= data["difference"] <= high
    assert data["difference"] == pytest.approx(data["recall_b"] - data["recall_a"])
    changes = [q["change"] for q in data["queries"] if not isinstance(q["change"], str)]
    assert changes == sorted(changes)
    assert main(["experiments", "compare", "--project", str(two_runs), "1", "2"]) == 0
    printed = capsys.readouterr().out
    assert "B vs A at R@10:" in printed and "95 % CI" in printed


def test_queries_lists_worst_first_and_exports(two_runs: Path, tmp_path: Path, capsys) -> None:
    capsys.readouterr()
    assert main(["experiments", "queries", "--project", str(two_runs), "1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["count"] == 12 and len(data["queries"]) == 12
    ranks = [q["rank"] if q["rank"] is not None else 10**9 for q in data["queries"]]
    assert ranks == sorted(ranks, reverse=True)
    assert main(["experiments", "queries", "--project", str(two_runs), "1", "--worst",
                 "3"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("run 1 (sum/attribute): 12 queries · R@1") and len(lines) == 5
    out = tmp_path / "q.csv"
    assert main(["experiments", "export-queries", "--project", str(two_runs), "1",
                 str(out)]) == 0
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    assert len(rows) == 12 and rows[0]["query"].count(">") == 1
    assert 10 < len(rows[0]["top_ids"].split(" | ")) <= 50  # the category, up to 50
    parquet = tmp_path / "q.parquet"
    assert main(["experiments", "export-queries", "--project", str(two_runs), "1",
                 str(parquet)]) == 0
    assert len(read_queries(parquet)) == 12
    assert main(["experiments", "export-queries", "--project", str(two_runs), "1",
                 str(tmp_path / "q.txt")]) == 2


def test_compare_refuses_runs_of_two_protocols(two_runs: Path, capsys) -> None:
    from studio.simulation.outputs import store_run
    from studio.store import Project

    with Project.open(two_runs) as opened, QueryLog.for_project(opened, "chatir") as log:
        log.add("Human:0", ranks=[3])
        run_id = store_run(opened, "chatir", {"label": "chat", "per_turn": []}, [], "t", log)
    assert main(["experiments", "compare", "--project", str(two_runs), "1",
                 str(run_id)]) == 2
    assert "same protocol" in capsys.readouterr().err
