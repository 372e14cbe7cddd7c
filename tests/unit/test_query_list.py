"""A run's query list (the columns behind Experiments → Queries…): sorting 100,000 queries
by any column without a stall, ties kept in the run's order, filters over the sorted
list."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from studio.experiments.query_list import QueryList
from studio.experiments.query_log import QueryTable


def big_run(queries: int = 100_000) -> QueryTable:
    rng = np.random.default_rng(0)
    rank = rng.integers(1, 200, queries).astype(float)
    rank[rng.random(queries) < 0.2] = np.nan
    table = pa.table({
        "query": [f"pair{n}" for n in range(queries)],
        "category": [("dress", "shirt", "toptee")[n % 3] for n in range(queries)],
        "texts": [[f"is darker {n % 977}", "has long sleeves"] for n in range(queries)],
        "rank": pa.array(rank, mask=np.isnan(rank)),
    })
    return QueryTable(table, "evaluate-fashioniq", 50, 1)


def test_prepared_orders_sort_100000_queries_by_rank_category_and_id() -> None:
    """The browser prepares every column's order on the IO lane once the list shows (their
    speed: bench/bench_query_browser.py); a sort then shows exactly those orders."""
    run = big_run()
    queries = QueryList(run)
    queries.prepare()
    names = [c.name for c in queries.columns]
    rank = run.table.column("rank").to_numpy(zero_copy_only=False)
    rank = np.where(np.isnan(rank), np.inf, rank)
    category = run.table.column("category").to_pylist()
    ids = run.table.column("query").to_pylist()
    for descending in (False, True):
        queries.sort(names.index("rank"), descending)
        shown = [rank[queries.table_row(r)] for r in range(len(queries))]
        assert shown == sorted(shown, reverse=descending)
        queries.sort(names.index("category"), descending)
        shown_categories = [category[queries.table_row(r)] for r in range(len(queries))]
        assert shown_categories == sorted(shown_categories, reverse=descending)
        queries.sort(names.index("query"), descending)
        assert [ids[queries.table_row(r)] for r in range(len(queries))] == sorted(
            ids, reverse=descending)


def test_sorts_keep_ties_in_the_runs_order_and_filters_keep_the_sort() -> None:
    queries = QueryList(big_run(3_000))
    names = [c.name for c in queries.columns]
    text = names.index("text")
    queries.sort(text, True)
    shown = [queries.text(r, text) for r in range(len(queries))]
    assert shown == sorted(shown, reverse=True)
    order = [queries.table_row(r) for r in range(len(queries))]
    for before, after in zip(order, order[1:], strict=False):
        if queries.text(order.index(before), text) == queries.text(order.index(after), text):
            assert before < after  # ties in the run's order
    queries.sort(names.index("category"), False)
    queries.set_filter(contains="darker 5")
    rows = [queries.table_row(r) for r in range(len(queries))]
    categories = [queries.text(r, names.index("category")) for r in range(len(queries))]
    assert categories == sorted(categories)
    assert all("darker 5" in queries.text(r, text) for r in range(len(queries)))
    expected = [n for n in range(3_000) if f"darker {n % 977}".startswith("darker 5")]
    assert sorted(rows) == expected
    same = [r for r, c in zip(rows, categories, strict=True) if c == "shirt"]
    assert same == sorted(same)


def test_the_automatic_flags_of_each_querys_captions_are_a_column(tmp_path) -> None:
    from studio.experiments.query_log import QueryLog, read_queries

    with QueryLog(tmp_path, "evaluate-fashioniq") as log:
        log.add("pair0", category="dress", texts=["red", "red"], ranks=[3])
        log.add("pair1", category="dress",
                texts=["is darker with longer sleeves", "has a floral print"], ranks=[70])
    queries = QueryList(read_queries(log.path))
    names = [c.name for c in queries.columns]
    assert "flags" in names
    flags = names.index("flags")
    shown = {queries.text(r, names.index("query")): queries.text(r, flags)
             for r in range(len(queries))}
    assert shown == {"pair0": "short, duplicate", "pair1": ""}
    queries.sort(flags, True)
    assert queries.text(0, names.index("query")) == "pair0"


def test_a_run_written_before_flags_were_kept_shows_none() -> None:
    queries = QueryList(big_run(10))
    flags = [c.name for c in queries.columns].index("flags")
    assert {queries.text(r, flags) for r in range(len(queries))} == {""}
