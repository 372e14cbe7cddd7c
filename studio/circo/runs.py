"""Stored CIRCO evaluations as the Experiments tab lists them (one line per run).

CIRCO runs are single-turn and scored by mAP@K, so they are listed beside the
simulation runs with their own figures rather than plotted per turn.
"""

from __future__ import annotations

from typing import Any

from studio.stopped_runs import queries_line

KIND = "evaluate-circo"


def run_lines(run: dict[str, Any]) -> list[str]:
    """["#4 · 2026-11-25 00:40", "CIRCO val · sum", "220 queries", "mAP@10 … · R@10 …"]."""
    summary = run["summary"]
    when = str(run.get("created_at", ""))[:16].replace("T", " ")
    how = summary.get("strategy") or f"submission {summary.get('predictions', '?')}"
    figures = summary.get("mAP", {}), summary.get("recall", {})
    return [
        f"#{run['id']} · {when}",
        f"CIRCO {summary.get('split', '?')} · {how}",
        queries_line(summary, int(summary.get("queries", 0))),
        f"mAP@10 {_figure(figures[0].get('10'))} · mAP@50 {_figure(figures[0].get('50'))} · "
        f"R@10 {_figure(figures[1].get('10'))}",
    ]


def _figure(value: Any) -> str:
    return "–" if value is None else f"{float(value):.2f}"
