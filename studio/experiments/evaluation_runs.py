"""Stored Fashion IQ, CIRR and CIRCO evaluations as the Experiments tab lists them.

These runs are single-turn, so they are listed beside the simulation runs with their own
figures (Recall@K, CIRCO's mAP@K) rather than plotted per turn; each opens its queries.
"""

from __future__ import annotations

from typing import Any

from studio.circo.runs import KIND as CIRCO
from studio.circo.runs import run_lines as circo_lines
from studio.stopped_runs import queries_line

FASHIONIQ = "evaluate-fashioniq"
CIRR = "evaluate-cirr"
KINDS = (FASHIONIQ, CIRR, CIRCO)


def evaluation_lines(run: dict[str, Any]) -> list[str]:
    """["#4 · 2026-11-25 00:40", "CIRR · sum", "4181 queries", "R@1 … · R@5 … · …"]."""
    if run["kind"] == CIRCO:
        return circo_lines(run)
    summary = run["summary"]
    when = str(run.get("created_at", ""))[:16].replace("T", " ")
    strategy = summary.get("strategy", "?")
    if run["kind"] == FASHIONIQ:
        categories = summary.get("categories", {})
        queries = sum(int(c.get("queries", 0)) for c in categories.values())
        average = summary.get("average", {})
        what = f"Fashion IQ {summary.get('split', '?')} · {strategy}"
        figures = (f"R@10 {_figure(average.get('R@10'))} · R@50 {_figure(average.get('R@50'))}"
                   f" · score {_figure(average.get('score'))}")
    else:
        queries = int(summary.get("queries", 0))
        what = f"CIRR · {strategy}"
        figures = " · ".join(
            f"R@{k} {_figure(summary.get(f'recall@{k}', {}).get('value'))}"
            for k in (1, 5, 10, 50))
    return [f"#{run['id']} · {when}", what, queries_line(summary, queries), figures]


def _figure(value: Any) -> str:
    return "–" if value is None else f"{float(value):.2f}"
