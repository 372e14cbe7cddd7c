"""Experiment runs: a simulation's or evaluation's config, per-query ranks and summary.

The three documents are stored as JSON text, as the caller serialises them. A run is
written in the caller's ``project.change``.
"""

from __future__ import annotations

from typing import Any

from studio.store.project import Project


def add_run(project: Project, kind: str, config: str, summary: str, ranks: str, now: str) -> int:
    """Insert a run (config, summary and ranks as JSON text); returns its id."""
    row = project.db.execute(
        "INSERT INTO experiment_runs (kind, config, summary, ranks, created_at) "
        "VALUES (:kind, :config, :summary, :ranks, :now) RETURNING id",
        {"kind": kind, "config": config, "summary": summary, "ranks": ranks, "now": now},
    ).fetchone()
    return int(row[0])


def runs(project: Project, kind: str | None = None) -> list[dict[str, Any]]:
    """id, kind, summary (JSON text) and created_at of every run (of ``kind``), oldest first."""
    where, params = ("WHERE kind = :kind", {"kind": kind}) if kind else ("", {})
    return list(
        project.db.query(
            f"SELECT id, kind, summary, created_at FROM experiment_runs {where} ORDER BY id",
            params,
        )
    )
