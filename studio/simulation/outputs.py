"""Where runs go: the project's ``experiment_runs`` table, JSON, CSV and PNG plots."""

from __future__ import annotations

import csv
import json
import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from studio.store import Project
from studio.store.database import utc_now
from studio.store.repos import runs as runs_repo

if TYPE_CHECKING:
    from studio.experiments.query_log import QueryLog

CSV_COLUMNS = ("label", "turn", "R@1", "R@5", "R@10", "R@20", "R@50", "percentile",
               "percentile_low", "percentile_high", "hits@10", "mean_rank", "queries")


def store_run(project: Project, kind: str, summary: dict[str, Any], ranks: Any, actor: str,
              queries: QueryLog | None = None) -> int:
    """Keep config, per-query ranks and summary in the project; returns the run id.
    ``queries``, the run's per-query log, becomes the run's file in the cache folder."""
    with project.change(actor, f"record {kind} run", "experiment_run") as record:
        run_id = runs_repo.add_run(
            project,
            kind,
            json.dumps(finite(summary.get("config", {}))),
            json.dumps(finite(summary)),
            json.dumps(finite(ranks)),
            utc_now(),
        )
        record["entity_id"] = run_id
        record["after"] = {"kind": kind, "label": summary.get("label", kind)}
    if queries is not None:
        queries.keep_as(project, run_id)
    return run_id


def list_runs(project: Project, kind: str | None = None) -> list[dict[str, Any]]:
    rows = runs_repo.runs(project, kind)
    return [{"id": r["id"], "kind": r["kind"], "created_at": r["created_at"],
             "summary": json.loads(r["summary"])} for r in rows]


def finite(data: Any) -> Any:
    """``data`` with every NaN or infinity replaced by None: JSON has no NaN."""
    if isinstance(data, float):
        return data if math.isfinite(data) else None
    if isinstance(data, dict):
        return {key: finite(value) for key, value in data.items()}
    if isinstance(data, list | tuple):
        return [finite(value) for value in data]
    return data


def write_json(path: Path, data: Any) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    text = json.dumps(finite(data), indent=2, ensure_ascii=False, allow_nan=False)
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)


def write_jsonl(path: Path, rows: Sequence[dict[str, Any]]) -> None:
    """One JSON object per line, written to a temporary file and renamed into place."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    with temporary.open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    temporary.replace(path)


def write_csv(path: Path, summaries: Sequence[dict[str, Any]]) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(CSV_COLUMNS)
        for summary in summaries:
            for row in summary["per_turn"]:
                r = row["recall_at"]
                writer.writerow([
                    summary["label"], row["turn"], r["1"], r["5"], r["10"], r["20"], r["50"],
                    row["percentile"]["value"], row["percentile"]["low"],
                    row["percentile"]["high"], row["hits_at_10"]["value"],
                    row["mean_rank"]["value"], summary["queries"],
                ])


def plot_runs(
    summaries: Sequence[dict[str, Any]], figure=None, labels: Sequence[str] | None = None
):
    """Recall@10 per turn per method, and mean target rank per round, side by side.

    ``labels`` name the runs (the Experiments tab passes "#7 history/attribute"); runs
    that would share a label get a number, so two runs of one strategy stay apart. One
    legend for both plots sits below them, never over a curve.
    """
    if figure is None:
        from matplotlib.figure import Figure

        figure = Figure(figsize=(10, 4), layout="constrained")
    figure.clear()
    names = distinct_labels(labels or [summary["label"] for summary in summaries])
    recall_axes, rank_axes = figure.subplots(1, 2)
    for summary, name in zip(summaries, names, strict=True):
        turns = [row["turn"] for row in summary["per_turn"]]
        recall = [row["recall_at"]["10"] for row in summary["per_turn"]]
        low = [row["recall_ci"]["10"][0] for row in summary["per_turn"]]
        high = [row["recall_ci"]["10"][1] for row in summary["per_turn"]]
        line = recall_axes.plot(turns, recall, marker="o", label=name)[0]
        recall_axes.fill_between(turns, low, high, color=line.get_color(), alpha=0.15)
        rank_axes.plot(turns, [_number(row["mean_rank"]["value"]) for row in summary["per_turn"]],
                       marker="o", label=name, color=line.get_color())
    # Short titles: at 1024 x 700 each plot is about 300 px wide.
    recall_axes.set(xlabel="turn", ylabel="Recall@10", ylim=(0, 1.02))
    recall_axes.set_title("Recall@10 per turn (95% CI)", fontsize="medium")
    rank_axes.set(xlabel="turn / round", ylabel="mean rank", yscale="log")
    rank_axes.set_title("Mean target rank", fontsize="medium")
    from matplotlib.ticker import MaxNLocator

    for axes in (recall_axes, rank_axes):
        axes.xaxis.set_major_locator(MaxNLocator(integer=True))
        axes.grid(alpha=0.3)
    if names:
        figure.legend(recall_axes.get_lines(), names, loc="outside lower center",
                      ncols=min(len(names), 3), fontsize="small", frameon=False)
    return figure


def distinct_labels(labels: Sequence[str]) -> list[str]:
    """``labels`` with repeats numbered: "history/attribute", "history/attribute (2)"."""
    seen: dict[str, int] = {}
    named = []
    for label in labels:
        seen[label] = seen.get(label, 0) + 1
        named.append(label if seen[label] == 1 else f"{label} ({seen[label]})")
    return named


def _number(value: float | None) -> float:
    """A value to plot: None (no data, e.g. no target ranked) becomes a gap."""
    return math.nan if value is None else float(value)


def save_plot(path: Path, summaries: Sequence[dict[str, Any]]) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    plot_runs(summaries).savefig(path, dpi=110)
