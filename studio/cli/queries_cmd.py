"""``cir-studio experiments queries | compare | export-queries``: a run's per-query results
(``studio.experiments.query_log``) and two runs compared query by query."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from studio.cli.project_arg import add_project_argument, open_project
from studio.errors import StudioError

WORST = 20
HITS = (1, 5, 10, 50)


def register_actions(actions: argparse._SubParsersAction) -> None:
    """Adds the actions to ``cir-studio experiments``."""
    queries = actions.add_parser(
        "queries", help="a run's queries, worst first",
        description="One line per query of a stored run: the target's rank (after the last "
        "turn for dialogs), category and text, worst first; Recall@1/5/10/50 above.")
    add_project_argument(queries)
    queries.add_argument("run", type=int, metavar="RUN", help="the run id (experiments list)")
    queries.add_argument("--worst", type=int, metavar="N",
                         help=f"only the N worst queries ({WORST} when printing; all in JSON)")
    queries.add_argument("--json", action="store_true", help="print JSON")
    queries.set_defaults(func=run_queries)

    compare = actions.add_parser(
        "compare", help="two runs query by query: wins, losses, paired interval",
        description="The queries two runs share, B against A: wins (B finds the target "
        "within K, A does not), losses, ties, and the paired bootstrap 95 % interval of the "
        "Recall@K difference; then the largest losses and gains.")
    add_project_argument(compare)
    compare.add_argument("run_a", type=int, metavar="RUN_A", help="the baseline run")
    compare.add_argument("run_b", type=int, metavar="RUN_B", help="the run compared to it")
    compare.add_argument("--at", type=int, default=10, metavar="K", help="K of Recall@K (10)")
    compare.add_argument("--worst", type=int, default=WORST, metavar="N",
                         help=f"print the N largest losses and gains ({WORST})")
    compare.add_argument("--json", action="store_true", help="print JSON")
    compare.set_defaults(func=run_compare)

    export = actions.add_parser(
        "export-queries", help="a run's queries as CSV or Parquet",
        description="Every query of a run with its texts, ranks and top results; CSV joins "
        "lists with ' | ', Parquet keeps them as lists.")
    add_project_argument(export)
    export.add_argument("run", type=int, metavar="RUN", help="the run id")
    export.add_argument("out", type=Path, metavar="OUT", help="OUT.csv or OUT.parquet")
    export.set_defaults(func=run_export)


def _run(project: Any, run_id: int) -> tuple[dict[str, Any], Any]:
    from studio.experiments.query_log import run_queries
    from studio.simulation.outputs import list_runs

    run = next((r for r in list_runs(project) if r["id"] == run_id), None)
    if run is None:
        raise StudioError(f"There is no run {run_id}; 'cir-studio experiments list' lists them.")
    return run, run_queries(project, run_id)


def _label(run: dict[str, Any]) -> str:
    return f"run {run['id']} ({run['summary'].get('label', run['kind'])})"


def run_queries(args: argparse.Namespace) -> int:
    import numpy as np

    from studio.experiments.query_log import NO_QUERIES

    with open_project(args) as project:
        run, table = _run(project, args.run)
    if table is None:
        if args.json:
            print(json.dumps({"run": run["id"], "queries": None, "note": NO_QUERIES}))
        else:
            print(f"{_label(run)}: {NO_QUERIES}")
        return 0
    rank = table.rank
    order = np.lexsort((np.arange(len(rank)), -rank))  # worst first, then in run order
    worst = args.worst if args.worst is not None else (None if args.json else WORST)
    shown = order[:worst]
    recalls = {k: float(np.mean(rank <= k)) if len(rank) else 0.0 for k in HITS}
    if args.json:
        rows = [_row(table.row(int(i))) for i in shown]
        print(json.dumps({"run": run["id"], "kind": table.kind, "count": len(table),
                          "stopped": run["summary"].get("stopped"),
                          "recall": {str(k): v for k, v in recalls.items()}, "queries": rows}))
        return 0
    print(f"{_label(run)}: {len(table)} queries · "
          + " · ".join(f"R@{k} {v:.3f}" for k, v in recalls.items()))
    stopped = run["summary"].get("stopped")
    if stopped:
        print(f"The run was stopped by hand: stopped after {stopped['finished']} of "
              f"{stopped['planned']} queries, its figures are over those.")
    print(f"{'rank':>6}  {'query':<24} {'category':<12} text")
    for i in shown:
        row = table.row(int(i))
        text = " / ".join(t for t in row["texts"] if t)
        print(f"{_show(row['rank']):>6}  {row['query'][:24]:<24} {row['category'][:12]:<12} "
              f"{text[:80]}")
    return 0


def _row(row: dict[str, Any]) -> dict[str, Any]:
    return {key: row[key] for key in ("query", "category", "reference", "target", "texts",
                                      "rank", "ranks", "ground_truths", "top_ids")}


def _show(rank: int | float | None) -> str:
    return "–" if rank is None or rank == float("inf") else str(int(rank))


def run_compare(args: argparse.Namespace) -> int:
    from studio.experiments.compare import compare_runs
    from studio.experiments.query_log import NO_QUERIES

    with open_project(args) as project:
        run_a, table_a = _run(project, args.run_a)
        run_b, table_b = _run(project, args.run_b)
    for run, table in ((run_a, table_a), (run_b, table_b)):
        if table is None:
            raise StudioError(f"{_label(run)}: {NO_QUERIES}; nothing to compare.")
    if run_a["kind"] != run_b["kind"]:
        raise StudioError(f"Run {run_a['id']} is {run_a['kind']} and run {run_b['id']} is "
                          f"{run_b['kind']}: compare two runs of the same protocol.")
    comparison = compare_runs(table_a, table_b, args.at)
    if args.json:
        data = comparison.to_json()
        print(json.dumps({"run_a": run_a["id"], "run_b": run_b["id"], **data}))
        return 0
    print(f"A = {_label(run_a)}\nB = {_label(run_b)}")
    print(comparison.header())
    order = comparison.order()
    picked = [*order[: args.worst], *order[::-1][: args.worst]]
    print(f"{'A':>6} {'B':>6} {'change':>8}  query")
    seen = set()
    for i in picked:
        change = comparison.change[i]
        if i in seen or change == 0:
            continue
        seen.add(i)
        print(f"{_show(comparison.rank_a[i]):>6} {_show(comparison.rank_b[i]):>6} "
              f"{_moved(change):>8}  {comparison.query[i]}")
    return 0


def _moved(change: float) -> str:
    if change == float("inf"):
        return "found"
    if change == float("-inf"):
        return "lost"
    return f"{change:+.0f}"


def run_export(args: argparse.Namespace) -> int:
    from studio.experiments.query_log import NO_QUERIES, export_queries

    with open_project(args) as project:
        run, table = _run(project, args.run)
    if table is None:
        raise StudioError(f"{_label(run)}: {NO_QUERIES}; nothing to export.")
    path = export_queries(table, args.out)
    print(f"Wrote {len(table)} queries of run {run['id']} to {path}.")
    return 0
