"""Retrieval sessions and their turns, and the imported ChatIR dialogs they hold.

A session row holds mode, strategy, model and target; a turn row the typed text,
reference, question and answer, results and timings (JSON text, as the caller gives
them). An imported dialog is a chat session plus its place in its file
(``dialog_sources``). Writes run in the caller's ``project.change``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from studio.store.project import Project


def start(
    project: Project,
    *,
    mode: str,
    strategy: str,
    model: str,
    target_id: str | None,
    person_id: int | None,
    title: str,
    now: str,
) -> int:
    """Insert a session; returns its id."""
    row = project.db.execute(
        "INSERT INTO retrieval_sessions (mode, strategy, model, target_id, person_id, "
        "title, created_at) VALUES (:mode, :strategy, :model, :target_id, :person_id, :title, :now) RETURNING id",
        {
            "mode": mode,
            "strategy": strategy,
            "model": model,
            "target_id": target_id,
            "person_id": person_id,
            "title": title,
            "now": now,
        },
    ).fetchone()
    return int(row[0])


def record_turn(project: Project, session_id: int, turn: dict[str, Any], now: str) -> None:
    """Insert a turn (keys: turn_index, kind, reference_id, text, question, answer,
    results, target_rank, timings); a turn recorded again updates its results and timings."""
    project.db.execute(
        "INSERT INTO session_turns (session_id, turn_index, kind, reference_id, text, "
        "question, answer, results, target_rank, timings, created_at) "
        "VALUES (:session_id, :turn_index, :kind, :reference_id, :text, :question, :answer, :results, :target_rank, :timings, :now) "
        "ON CONFLICT (session_id, turn_index) DO UPDATE SET results = excluded.results, "
        "timings = excluded.timings",
        {
            "session_id": session_id,
            "turn_index": turn["turn_index"],
            "kind": turn["kind"],
            "reference_id": turn["reference_id"],
            "text": turn["text"],
            "question": turn["question"],
            "answer": turn["answer"],
            "results": turn["results"],
            "target_rank": turn["target_rank"],
            "timings": turn["timings"],
            "now": now,
        },
    )


def list_sessions(project: Project) -> list[dict[str, Any]]:
    """Every session with its turn count, newest first."""
    return list(
        project.db.query(
            "SELECT s.id, s.mode, s.strategy, s.model, s.target_id, s.title, s.created_at, "
            "count(t.id) AS turns FROM retrieval_sessions AS s "
            "LEFT JOIN session_turns AS t ON t.session_id = s.id "
            "GROUP BY s.id, s.mode, s.strategy, s.model, s.target_id, s.title, s.created_at "
            "ORDER BY s.id DESC"
        )
    )


def session_row(project: Project, session_id: int) -> dict[str, Any] | None:
    rows = list(project.db.query("SELECT * FROM retrieval_sessions WHERE id = :session_id", {
        "session_id": session_id,
    }))
    return rows[0] if rows else None


def turn_rows(project: Project, session_id: int) -> list[dict[str, Any]]:
    """The session's turns in order, with results and timings as stored (JSON text)."""
    return list(
        project.db.query(
            "SELECT * FROM session_turns WHERE session_id = :session_id ORDER BY turn_index", {
                "session_id": session_id,
            }
        )
    )


# -- imported ChatIR dialogs -----------------------------------------------------------


def dialog_count(project: Project) -> int:
    return int(project.db.execute("SELECT count(*) FROM dialog_sources").fetchone()[0])


def add_dialog(
    project: Project,
    *,
    dataset: str,
    position: int,
    target_id: str,
    rounds: Sequence[tuple[str, str | None, str | None]],
    now: str,
) -> bool:
    """Store one dialog as a chat session: ``rounds`` are (text, question, answer).

    A dialog already imported (same dataset and position) is left as it is; returns
    whether it was new.
    """
    db = project.db
    exists = db.execute(
        "SELECT 1 FROM dialog_sources WHERE dataset = :dataset AND position = :position", {
            "dataset": dataset,
            "position": position,
        }
    ).fetchone()
    if exists:
        return False
    session_id = start(
        project,
        mode="chat",
        strategy=f"ChatIR {dataset}",
        model="",
        target_id=target_id,
        person_id=None,
        title=f"{dataset} #{position}",
        now=now,
    )
    db.execute(
        "INSERT INTO dialog_sources (session_id, dataset, position) VALUES (:session_id, :dataset, :position)",
        {"session_id": session_id, "dataset": dataset, "position": position},
    )
    db.conn.executemany(
        "INSERT INTO session_turns (session_id, turn_index, kind, text, question, answer, "
        "created_at) VALUES (:session_id, :turn_index, 'chat', :text, :question, :answer, :now)",
        [
            {"session_id": session_id, "turn_index": index, "text": text, "question": question,
             "answer": answer, "now": now}
            for index, (text, question, answer) in enumerate(rounds)
        ],
    )
    return True


def dialog_rounds(project: Project, dataset: str | None = None) -> list[tuple[str, int, str, str]]:
    """(dataset, position, target id, round text) of every imported dialog's rounds, in
    dataset, file and round order."""
    sql = (
        "SELECT d.dataset, d.position, s.target_id, t.text FROM dialog_sources d "
        "JOIN retrieval_sessions s ON s.id = d.session_id "
        "JOIN session_turns t ON t.session_id = s.id "
        + ("WHERE d.dataset = :dataset " if dataset else "")
        + "ORDER BY d.dataset, d.position, t.turn_index"
    )
    rows = project.db.execute(sql, {"dataset": dataset} if dataset else {})
    return [(row[0], int(row[1]), row[2], row[3]) for row in rows]


def missing_images(project: Project, source: str) -> list[str]:
    """Ids of the source's images whose file is missing."""
    rows = project.db.execute(
        "SELECT id FROM images WHERE missing = 1 AND source = :source ORDER BY id", {"source": source}
    )
    return [row[0] for row in rows]
