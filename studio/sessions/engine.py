"""A retrieval session: turns in, ranked results and the target's rank out.

Qt-free and synchronous: the Retrieval pane runs each turn as a job, the simulators run
hundreds of sessions in a loop, and both get the same behaviour.

The *item of a turn* is what the user carried forward from it: the result they chose as
the next reference (or, if they chose none, the reference they kept). Rollback ("I still
prefer the item from the second turn") makes that item the reference again; combination
("keep the colour of turn 1") adds the kept facet of that item as a constraint.

A rollback goes back to that turn's *state*, not only its item: the turn's history (the
texts and constraints of the turns that led to it) plus the new request, so "I still
prefer the item from the first turn, but in red" is turn 1's request with red, and what
turns 2 and 3 asked for no longer applies. Later turns build on that branch. (A shopper
going back to an earlier item is abandoning what came after it; to carry a later facet
along, say so: "keep the neckline of the second turn".)
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

import numpy as np

from studio.errors import StudioError
from studio.index_service import Hit
from studio.language.reader import Request
from studio.language.turns import FACET_WORDS, parse_turn_text, resolve_turn
from studio.sessions.constraints import MEASURED, Constraint, constraints_from_requests, describe
from studio.sessions.questioner import (
    Candidate,
    Question,
    Questioner,
    answer_distribution,
    make_question,
)
from studio.sessions.scoring import compared_column, read_text
from studio.sessions.strategies import (
    Query,
    Strategy,
    TurnInput,
    constraint_bonus,
)

if TYPE_CHECKING:
    from studio.image_measures import ImageMeasures
    from studio.index_service import ProjectIndex

Mode = Literal["composed", "chat"]
TextFacetReader = Callable[[str], dict[str, str]]
RequestReader = Callable[[str], list[Request]]



@dataclass
class SessionTurn:
    index: int
    kind: str
    reference_id: str | None
    text: str
    asked: dict[str, str] = field(default_factory=dict)  # the first value asked per facet
    kept: dict[str, str] = field(default_factory=dict)
    requests: list[Request] = field(default_factory=list)  # what the reader made of the text
    constraints: dict[str, Constraint] = field(default_factory=dict)  # this turn's own
    wants: str = ""  # every constraint the ranking used, carried turns included
    question: str | None = None
    answer: str | None = None
    results: list[Hit] = field(default_factory=list)
    target_rank: int | None = None
    timings: dict[str, float] = field(default_factory=dict)
    chosen_id: str | None = None
    note: str = ""  # what the ranking could not fully use (measures still being made)


@dataclass
class PlannedTurn:
    """A turn searched but not yet part of its session (``RetrievalSession.commit``)."""

    turn: SessionTurn
    turn_input: TurnInput
    asked_facet: str | None = None
    session: RetrievalSession | None = None  # the session it was planned for
    basis: list[int] = field(default_factory=list)  # the earlier inputs its query used


class RetrievalSession:
    def __init__(
        self,
        index: ProjectIndex,
        strategy: Strategy,
        *,
        facets: Mapping[str, Mapping[str, str]] | None = None,
        read_text_facets: TextFacetReader | None = None,
        read_requests: RequestReader | None = None,
        measures: ImageMeasures | None = None,
        encoder_text: Callable[[str], str] | None = None,
        mode: Mode = "composed",
        target_id: str | None = None,
        k: int = 50,
        category: str | None = None,
        split: str | None = None,
        shared_cache: dict | None = None,
    ) -> None:
        """``read_requests`` is the caption reader (``studio.language.reader``); a plain
        ``read_text_facets`` (text → {facet: value}) still works for callers that have
        only values. ``encoder_text`` rewrites a text before it is encoded (the reader's
        ``affirmative_text`` drops "not red", which encoders read much like "red").
        ``measures`` supplies lightness and colourfulness for "darker",
        "lighter", "more colourful"; without it those requests are shown but not used.
        ``shared_cache`` lets sessions over one index share per-gallery arrays."""
        self.index = index
        self.strategy = strategy
        self.facets = facets or {}
        if read_requests is None:
            values = read_text_facets or (lambda _text: {})
            read_requests = lambda text: [Request(f, "is", v) for f, v in values(text).items()]  # noqa: E731
        self.read_requests = read_requests
        self.measures = measures
        self.encoder_text = encoder_text
        self.mode = mode
        self.target_id = target_id
        self.k = k
        self.category = category
        self.split = split
        self.turns: list[SessionTurn] = []
        self._inputs: list[TurnInput] = []
        # Per turn, the turns (0-based) whose inputs make up its history, itself last: the
        # previous turn's history plus this turn, or after a rollback the named turn's.
        self._histories: list[list[int]] = []
        self.asked_facets: list[str] = []
        cache = shared_cache if shared_cache is not None else {}
        self._allowed: dict[tuple[str | None, str | None], np.ndarray | None] = cache.setdefault(
            "allowed", {})
        self._columns: dict[str, np.ndarray] = cache.setdefault("columns", {})

    # -- where the session stands ----------------------------------------------------

    @property
    def current_reference(self) -> str | None:
        if not self.turns:
            return None
        last = self.turns[-1]
        return last.chosen_id or last.reference_id

    def item_of_turn(self, number: int) -> str | None:
        if not 1 <= number <= len(self.turns):
            raise StudioError(
                f"There is no turn {number} to go back to (this session has "
                f"{len(self.turns)} turn{'s' if len(self.turns) != 1 else ''})."
            )
        turn = self.turns[number - 1]
        return turn.chosen_id or turn.reference_id

    def choose(self, image_id: str) -> None:
        """Carry ``image_id`` (usually a shown result) forward as the next reference."""
        if not self.turns:
            raise StudioError("Run a turn before choosing one of its results.")
        self.turns[-1].chosen_id = image_id

    # -- composed turns --------------------------------------------------------------

    def composed_turn(self, text: str, reference_id: str | None = None) -> SessionTurn:
        """One composed turn: (reference, modification text) → ranked results."""
        return self.commit(self.plan_composed_turn(text, reference_id))

    def commit(self, planned: PlannedTurn) -> SessionTurn:
        """Make a planned turn part of the session (the only step that changes it).

        The Retrieval pane plans on a worker and commits on the UI thread, so the session
        never changes under the view; a plan made before another commit is refused.
        """
        if planned.session is not self or planned.turn.index != len(self.turns) + 1:
            raise StudioError("The session moved on while this turn was searching; run it again.")
        if planned.asked_facet is not None:
            self.asked_facets.append(planned.asked_facet)
        self._add_input(planned.turn_input, planned.basis)
        self.turns.append(planned.turn)
        return planned.turn

    def plan_composed_turn(self, text: str, reference_id: str | None = None) -> PlannedTurn:
        """The turn's results, without changing the session (see ``commit``)."""
        started = time.perf_counter()
        number = len(self.turns) + 1
        parsed = parse_turn_text(text)
        reference = reference_id or self.current_reference
        kind = parsed.kind
        if parsed.rollback_to is not None:
            reference = self.item_of_turn(resolve_turn(parsed.rollback_to, number))
        kept = {}
        for keep in parsed.keeps:
            facet = FACET_WORDS.get(keep.attribute, keep.attribute)
            source = self.item_of_turn(resolve_turn(keep.turn, number))
            value = self.facets.get(source or "", {}).get(facet)
            if value is not None:
                kept[facet] = value
        if reference is None and not parsed.text and not kept:
            raise StudioError("Give a reference image, a text, or both.")
        read = read_text(
            parsed.text, self.read_requests, self.encoder_text,
            self.facets.get(reference or "", {}),
            lambda measure: self._measure(reference, measure),
            self._anchor_label(reference), kept=list(kept.values()),
        )
        requests, constraints, phrase = read.requests, read.constraints, read.phrase
        asked = _first_values(requests)
        encode_started = time.perf_counter()
        text_vector = self.index.text_vectors([phrase])[0] if phrase else None
        reference_vector = self.index.image_vector(reference) if reference else None
        encoded = time.perf_counter()
        turn_input = TurnInput(reference_vector, text_vector, constraints, kept)
        basis = (
            self._history_of(resolve_turn(parsed.rollback_to, number))
            if parsed.rollback_to is not None
            else self._history_of(number - 1)
        )
        query = self.strategy.compose([*(self._inputs[i] for i in basis), turn_input])
        turn = SessionTurn(number, kind, reference, text, asked=asked, kept=kept,
                           requests=requests, constraints=constraints)
        self._retrieve(turn, query, exclude=[reference] if reference else [])
        turn.timings.update(
            encode_ms=_ms(encode_started, encoded), total_ms=_ms(started, time.perf_counter())
        )
        return PlannedTurn(turn, turn_input, None, self, basis)

    # -- chat ------------------------------------------------------------------------

    def chat_turn(self, text: str, question: Question | None = None) -> SessionTurn:
        """Round 0 is the description; later rounds answer ``question``."""
        return self.commit(self.plan_chat_turn(text, question))

    def plan_chat_turn(self, text: str, question: Question | None = None) -> PlannedTurn:
        """A chat round's results, without changing the session (see ``commit``)."""
        started = time.perf_counter()
        number = len(self.turns) + 1
        answer_text = text.strip()
        if not answer_text:
            raise StudioError("Type a description or an answer.")
        requests = self.read_requests(answer_text)
        constraints = constraints_from_requests(requests, {}, lambda _m: None, "the reference")
        answer = answer_text.lower()
        if question is not None and question.facet not in constraints and answer in question.options:
            requests = [*requests, Request(question.facet, "is", answer)]
            constraints[question.facet] = Constraint(question.facet, (answer,))
        asked = _first_values(requests)
        affirmative = self._affirmative(answer_text) or answer_text
        phrase = affirmative if question is None else f"{affirmative} {question.facet}"
        vector = self.index.text_vectors([phrase])[0]
        turn_input = TurnInput(None, vector, constraints)
        basis = self._history_of(number - 1)
        query = self.strategy.compose([*(self._inputs[i] for i in basis), turn_input])
        turn = SessionTurn(
            number, "chat", None, answer_text, asked=asked, requests=requests,
            constraints=constraints,
            question=None if question is None else question.text,
            answer=None if question is None else answer_text,
        )
        self._retrieve(turn, query, exclude=[])
        turn.timings["total_ms"] = _ms(started, time.perf_counter())
        facet = None if question is None else question.facet
        return PlannedTurn(turn, turn_input, facet, self, basis)

    def plan_dialog_round(self, dialog: str, question: str | None, answer: str) -> PlannedTurn:
        """A chat round as ChatIR's protocol searches it: the dialog so far (``dialog``, its
        rounds joined with ", ") encoded as one text, neither read nor composed with the
        earlier rounds; ``question`` and ``answer`` are what the round shows."""
        started = time.perf_counter()
        number = len(self.turns) + 1
        if not dialog.strip():
            raise StudioError("Type a description or an answer.")
        vector = self.index.text_vectors([dialog])[0]
        turn = SessionTurn(number, "chat", None, answer, question=question,
                           answer=None if question is None else answer)
        self._retrieve(turn, Query(vector), exclude=[])
        turn.timings["total_ms"] = _ms(started, time.perf_counter())
        return PlannedTurn(turn, TurnInput(None, vector, {}), None, self,
                           self._history_of(number - 1))

    def _history_of(self, number: int) -> list[int]:
        """The turns (0-based) in turn ``number``'s history; none before the first turn."""
        return list(self._histories[number - 1]) if number >= 1 else []

    def _add_input(self, turn_input: TurnInput, basis: list[int]) -> None:
        self._histories.append([*basis, len(self._inputs)])
        self._inputs.append(turn_input)

    def next_question(self, questioner: Questioner, top: int = 20) -> Question | None:
        """What the system asks after the latest round, about its current top results."""
        if not self.turns:
            return None
        candidates = [
            Candidate(hit.id, hit.score, self.facets.get(hit.id, {}))
            for hit in self.turns[-1].results[:top]
        ]
        return questioner.ask(candidates, self.asked_facets)

    def question_about(self, facet: str, top: int = 20) -> Question:
        """The question about ``facet`` a questioner would ask now (its suggested answers
        from the current top results): a stored chat's round asked again."""
        candidates = [
            Candidate(hit.id, hit.score, self.facets.get(hit.id, {}))
            for hit in (self.turns[-1].results[:top] if self.turns else [])
        ]
        return make_question(facet, answer_distribution(candidates, facet))

    # -- retrieval -------------------------------------------------------------------

    def _retrieve(self, turn: SessionTurn, query: Query, exclude: list[str]) -> None:
        started = time.perf_counter()
        key = (self.category, self.split)
        if key not in self._allowed:
            self._allowed[key] = self.index.allowed_positions(self.category, self.split)
        skip = [p for p in (self.index.position(i) for i in exclude) if p is not None]
        positions, scores = self.index.rank_all(query.vector, self._allowed[key], skip)
        searched = time.perf_counter()
        columns = {f: self._column(f, c)[positions] for f, c in query.constraints.items()}
        turn.wants = describe(query.constraints)
        if self.measures is not None and any(
            isinstance(c, Constraint) and c.comparative and f in MEASURED
            for f, c in query.constraints.items()
        ):
            turn.note = self.measures.note()  # "darker" saw only the measured part
        adjusted = scores.astype(np.float64) + constraint_bonus(columns, query.constraints)
        order = np.argsort(-adjusted, kind="stable")
        positions, adjusted = positions[order], adjusted[order]
        names = self.index.image_ids
        turn.results = [Hit(names[int(p)] or "", float(s))
                        for p, s in zip(positions[: self.k], adjusted[: self.k], strict=True)]
        target = self.index.position(self.target_id) if self.target_id else None
        if target is not None:
            where = np.flatnonzero(positions == target)
            turn.target_rank = int(where[0]) + 1 if len(where) else None
        turn.timings.update(
            search_ms=_ms(started, searched), rank_ms=_ms(searched, time.perf_counter())
        )

    def _column(self, facet: str, constraint: str | Constraint) -> np.ndarray:
        """The gallery column a constraint is checked against, built once per kind."""
        comparative = isinstance(constraint, Constraint) and constraint.comparative
        if not comparative:
            return self._facet_column(facet)
        key = f"{facet}:compared"
        if key not in self._columns:
            self._columns[key] = compared_column(
                facet, constraint, self.index.image_ids, self.facets, self.measures
            )
        return self._columns[key]

    def _affirmative(self, text: str) -> str:
        """The text for the encoder: without negated phrases when a reader can tell."""
        return self.encoder_text(text) if text and self.encoder_text is not None else text

    def _measure(self, image_id: str | None, measure: str) -> float | None:
        if self.measures is None or image_id is None:
            return None
        return self.measures.value(image_id, measure)

    def _anchor_label(self, reference: str | None) -> str:
        """How the timeline names the item a comparative is relative to."""
        if reference is not None:
            for number in range(len(self.turns), 0, -1):
                if self.item_of_turn(number) == reference:
                    return f"turn {number}'s item"
        return "the reference"

    def _facet_column(self, facet: str) -> np.ndarray:
        """Each index position's value of ``facet`` (None where unknown), built once."""
        if facet not in self._columns:
            names = self.index.image_ids
            self._columns[facet] = np.array(
                [self.facets.get(name or "", {}).get(facet) for name in names], dtype=object
            )
        return self._columns[facet]


def _first_values(requests: list[Request]) -> dict[str, str]:
    """The first value asked for per facet: the simple {facet: value} view of a turn."""
    out: dict[str, str] = {}
    for request in requests:
        if request.op == "is" and request.value is not None:
            out.setdefault(request.facet, request.value)
    return out


def _ms(start: float, end: float) -> float:
    return round((end - start) * 1000.0, 2)
