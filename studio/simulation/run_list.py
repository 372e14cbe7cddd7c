"""Stored simulation runs as people read them: one line per run, a table per turn.

The Experiments tab lists runs with these lines and shows the per-turn table under its
plots; both come from the summary ``studio.simulation.runner`` stores, so the CLI and
the pane say the same thing.
"""

from __future__ import annotations

from typing import Any

PER_TURN_HEADINGS = (
    "Run",
    "Turn",
    "R@1",
    "R@5",
    "R@10",
    "R@50",
    "Hits@10",
    "Percentile",
    "Mean rank",
)


def run_line(run: dict[str, Any]) -> str:
    """ "#3 · 2026-11-23 00:50 · history · user attribute · 12 dialogs × 5 turns · R@10 …"."""
    return " · ".join(run_lines(run))


def run_lines(run: dict[str, Any]) -> list[str]:
    """The parts of ``run_line``: when, what, how big, and the result."""
    summary = run["summary"]
    config = summary.get("config", {})
    when = str(run.get("created_at", ""))[:16].replace("T", " ")
    simulator = config.get("simulator", "?")
    method = (
        f"questioner {config.get('questioner', '?')}"
        if simulator == "chat"
        else config.get("strategy", "?")
    )
    turns = summary.get("per_turn", [])
    dialogs = summary.get("queries", summary.get("dialogs", 0))
    if config.get("protocol") == "chatir":  # a dataset's recorded dialogs, not a simulation
        method, simulator = f"ChatIR {config.get('dataset', '?')} protocol", "none"
    lines = [
        f"#{run['id']} · {when}",
        f"{method} · user {simulator}",
        f"{dialogs} dialogs × {len(turns)} turns",
    ]
    if not turns:
        return [*lines, "no results"]
    last = turns[-1]
    return [
        *lines,
        f"R@10 {last['recall_at']['10']:.2f} at turn {last['turn']}, "
        f"mean rank {_number(last['mean_rank']['value'])}",
    ]


def dialog_shortfall(summary: dict[str, Any]) -> str | None:
    """Why a run has fewer dialogs than were asked for, or None when it has them all."""
    stopped = summary.get("stopped")
    if stopped:
        return (f"Stopped after {stopped['finished']} of {stopped['planned']} dialogs; "
                "the run keeps the dialogs it finished.")
    if "n" not in summary.get("config", {}):
        return None  # a protocol run has the dataset's dialogs; none were asked for
    asked = int(summary["config"]["n"])
    ran = int(summary.get("queries", 0))
    if ran >= asked:
        return None
    split = summary.get("config", {}).get("split")
    where = f" of the '{split}' split" if split else ""
    return (
        f"Ran {ran} dialogs, not {asked}: only {ran} images{where} have attributes and "
        "another image of their category to start from, and each is the target of one "
        "dialog."
    )


def per_turn_rows(runs: list[dict[str, Any]]) -> list[list[str]]:
    """One row per run and turn, in ``PER_TURN_HEADINGS`` order."""
    rows = []
    for run in runs:
        summary = run["summary"]
        for row in summary.get("per_turn", []):
            recall = row["recall_at"]
            rows.append(
                [
                    f"#{run['id']} {summary.get('label', '')}",
                    str(row["turn"]),
                    f"{recall['1']:.3f}",
                    f"{recall['5']:.3f}",
                    f"{recall['10']:.3f}",
                    f"{recall['50']:.3f}",
                    f"{row['hits_at_10']['value']:.3f}",
                    f"{row['percentile']['value']:.3f}",
                    _number(row["mean_rank"]["value"]),
                ]
            )
    return rows


def _number(value: Any) -> str:
    return "–" if value is None else f"{float(value):.1f}"
