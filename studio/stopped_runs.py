"""A run stopped by hand keeps what it did: the rules every evaluation shares.

Cancel in the window or a first Ctrl+C in a terminal (``studio.cli.interrupt``) sets the
run's ``CancelToken``; an evaluation asked to ``keep_partial`` then ends after the query
(or batch of queries) under way and reports its figures over the queries it did, marked
``"stopped": {"finished": N, "planned": M}`` with " (stopped)" after its label, and is
stored like any run with those queries (simulations do the same with their dialogs,
``studio.simulation.runner``). Stopped before its first query, it raises ``JobCancelled``
as before: there is nothing to keep.
"""

from __future__ import annotations

from typing import Any

from studio.jobs import CancelToken


def should_stop(cancel: CancelToken | None, keep_partial: bool, done: int) -> bool:
    """True when the run is to end now and keep its ``done`` queries; raises
    ``JobCancelled`` when it was cancelled with nothing to keep (or not to keep any)."""
    if cancel is None or not cancel.cancelled:
        return False
    if keep_partial and done:
        return True
    cancel.raise_if_cancelled()
    return False  # not reached: a cancelled token raises


def mark_stopped(report: dict[str, Any], finished: int, planned: int,
                 name: str = "") -> dict[str, Any]:
    """``report`` marked as stopped after ``finished`` of ``planned`` queries."""
    report["stopped"] = {"finished": int(finished), "planned": int(planned)}
    report["label"] = f"{report.get('label') or name or 'run'} (stopped)"
    return report


def stopped_text(summary: dict[str, Any], unit: str = "queries") -> str | None:
    """ "Stopped after 6 of 19 queries; its figures are over the 6 done.", or None."""
    stopped = summary.get("stopped")
    if not stopped:
        return None
    return (f"Stopped after {stopped['finished']} of {stopped['planned']} {unit}; "
            f"its figures are over the {stopped['finished']} done.")


def queries_line(summary: dict[str, Any], queries: int) -> str:
    """ "4181 queries", or for a run stopped by hand "6 queries (stopped after 6 of 19)"."""
    stopped = summary.get("stopped")
    if not stopped:
        return f"{queries} queries"
    return f"{queries} queries (stopped after {stopped['finished']} of {stopped['planned']})"
