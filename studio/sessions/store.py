"""Recording sessions: every turn is written as it happens, so a crash loses nothing.

A session row holds the mode, strategy, model and (secret) target; each turn row holds the
typed text, the reference, question and answer, the top-K ids with scores, the target's
rank and the timings. Recorded sessions reopen for the timeline and export as
FashionMT-style transactions for rating.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from studio.errors import StudioError
from studio.sessions.engine import RetrievalSession, SessionTurn
from studio.store import Project
from studio.store.database import utc_now
from studio.store.repos import sessions as sessions_repo
from studio.transactions.records import Transaction
from studio.transactions.sources import PlainTurn, from_session_turns

RECORDED_RESULTS = 50


@dataclass(frozen=True)
class RecordedSession:
    id: int
    mode: str
    strategy: str
    model: str
    target_id: str | None
    title: str
    created_at: str
    turns: list[dict[str, Any]]


class SessionRecorder:
    """Writes one session's turns to the project as they happen (one audited change each)."""

    def __init__(self, project: Project, actor: str) -> None:
        self.project = project
        self.actor = actor
        self.session_id: int | None = None

    def start(self, session: RetrievalSession, model: str, title: str = "") -> int:
        person = self.project.ensure_person(self.actor, "researcher") if self.actor else None
        with self.project.change(self.actor, "start session", "retrieval_session") as record:
            self.session_id = sessions_repo.start(
                self.project,
                mode=session.mode,
                strategy=session.strategy.name,
                model=model,
                target_id=session.target_id,
                person_id=person.id if person else None,
                title=title,
                now=utc_now(),
            )
            record["entity_id"] = self.session_id
            record["after"] = {"mode": session.mode, "strategy": session.strategy.name,
                               "model": model}
        return self.session_id

    def record(self, turn: SessionTurn) -> None:
        if self.session_id is None:
            raise StudioError("Start the session before recording turns.")
        row = turn_row(turn)
        with self.project.change(self.actor, "record turn", "retrieval_session",
                                 self.session_id) as record:
            sessions_repo.record_turn(
                self.project,
                self.session_id,
                {
                    "turn_index": turn.index,
                    "kind": turn.kind,
                    "reference_id": turn.reference_id,
                    "text": turn.text,
                    "question": turn.question,
                    "answer": turn.answer,
                    "results": row["results"],
                    "target_rank": turn.target_rank,
                    "timings": row["timings"],
                },
                utc_now(),
            )
            record["after"] = {"turn": turn.index, "text": turn.text,
                               "target_rank": turn.target_rank}


def turn_row(turn: SessionTurn) -> dict[str, str]:
    results = [[hit.id, round(hit.score, 5)] for hit in turn.results[:RECORDED_RESULTS]]
    timings = {**turn.timings, "asked": turn.asked, "kept": turn.kept,
               "requests": [r.to_json() for r in turn.requests], "wants": turn.wants,
               "chosen_id": turn.chosen_id}
    return {"results": json.dumps(results), "timings": json.dumps(timings)}


def list_sessions(project: Project) -> list[dict[str, Any]]:
    return sessions_repo.list_sessions(project)


def load_session(project: Project, session_id: int) -> RecordedSession:
    row = sessions_repo.session_row(project, session_id)
    if row is None:
        raise StudioError(f"There is no retrieval session {session_id} in this project.")
    turns = []
    for turn in sessions_repo.turn_rows(project, session_id):
        turn["results"] = json.loads(turn["results"])
        turn["timings"] = json.loads(turn["timings"])
        turns.append(turn)
    return RecordedSession(row["id"], row["mode"], row["strategy"], row["model"],
                           row["target_id"], row["title"], row["created_at"], turns)


def session_transaction(project: Project, session_id: int, dataset: str = "sessions") -> Transaction:
    """A composed session as a FashionMT-style transaction: ref, tar1 … with mod1 …"""
    recorded = load_session(project, session_id)
    if recorded.mode != "composed":
        raise StudioError("Only composed sessions become transactions; chat sessions have "
                          "no reference images.")
    plain: list[PlainTurn] = []
    for position, turn in enumerate(recorded.turns):
        reference = turn["reference_id"]
        if reference is None:
            continue
        chosen = turn["timings"].get("chosen_id")
        if chosen is None and position + 1 < len(recorded.turns):
            chosen = recorded.turns[position + 1]["reference_id"]
        if chosen is None and turn["results"]:
            chosen = turn["results"][0][0]
        if chosen is None:
            continue
        plain.append(PlainTurn(reference, turn["text"], chosen))
    if not plain:
        raise StudioError(f"Session {session_id} has no turn with a reference image to export.")
    return from_session_turns(dataset, f"session-{session_id}", plain)
