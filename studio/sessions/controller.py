"""The rules of an interactive retrieval session, without Qt: the Retrieval pane's model.

A controller owns one session at a time on a loaded :class:`SessionContext`: it picks the
secret target and the first reference (an image of the target's category, as a shopper
starts and as the simulations do), restricts the gallery (by default to the reference's
category), runs composed or chat turns, records every turn, asks the chat questions,
writes the rollback and keep phrases with the one grammar the engine reads
(``studio.language.turns``), and exports a session as a transaction.

The pane shows what the controller holds and calls its methods. A turn's search is the
one slow call: ``plan_turn`` runs as a job and changes nothing, ``apply_turn`` makes it
part of the session on the UI thread (the pane keeps session inputs disabled meanwhile);
``run_turn`` does both, for the command line and tests. Everything a person sees as
a rule (which images may be a target, what the gallery is, when a session can be saved)
is decided here, so it is tested without a window.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from studio.errors import StudioError
from studio.language.turns import FACETS, Keep, ParsedTurn, facet_noun, phrase_turn
from studio.sessions.engine import Mode, PlannedTurn, RetrievalSession, SessionTurn
from studio.sessions.questioner import InformationGainQuestioner, Question, facet_asked
from studio.sessions.setup import SessionContext
from studio.sessions.store import SessionRecorder, session_transaction
from studio.sessions.strategies import DEFAULT_STRATEGY
from studio.wording import count

#: The gallery filter's default: the category of the current reference (else the target's).
REFERENCE_CATEGORY = "reference"
ALL_CATEGORIES = "all"
GalleryChoice = str  # REFERENCE_CATEGORY, ALL_CATEGORIES or a category name

COMPOSED_PROMPT = "Unlike the provided image, the one I want …"
CHAT_PROMPT = "Describe what you look for:"


@dataclass(frozen=True)
class SessionOptions:
    mode: Mode = "composed"
    strategy: str = DEFAULT_STRATEGY
    k: int = 10
    secret_target: bool = True
    gallery: GalleryChoice = REFERENCE_CATEGORY

    def __post_init__(self) -> None:
        # The strategy is checked by ``make_strategy`` when a session starts: the names it
        # knows depend on the project (trained combiners), not only on STRATEGIES.
        if self.mode not in ("composed", "chat"):
            raise StudioError(f"Unknown session mode {self.mode!r}; use composed or chat.")
        if not 1 <= self.k <= 50:
            raise StudioError(f"Show between 1 and 50 results, not {self.k}.")


@dataclass(frozen=True)
class TargetView:
    """What *Reveal* shows: the secret target and where the last turn ranked it."""

    image_id: str
    rank: int | None
    gallery_size: int
    shown: bool  # among the results on screen
    searched: bool = True  # a turn has run: before the first, there is no rank to give

    def text(self) -> str:
        if not self.searched:
            return (f"Target {self.image_id}: no rank before the first turn "
                    f"({self.gallery_size:,} images to search)")
        if self.rank is None:
            return f"Target {self.image_id}: not in this gallery"
        where = "" if self.shown else " (below the shown results)"
        return f"Target {self.image_id}: rank {self.rank:,} of {self.gallery_size:,}{where}"


class RetrievalController:
    """One person's interactive sessions on one loaded context."""

    def __init__(self, context: SessionContext, actor: str, seed: int | None = None) -> None:
        self.context = context
        self.project = context.project
        self.actor = actor
        self.random = random.Random(seed)
        self.questioner = InformationGainQuestioner(context.facet_map.names)
        self.options = SessionOptions()
        self.session: RetrievalSession | None = None
        self.recorder: SessionRecorder | None = None
        self.question: Question | None = None
        self.reference: str | None = None  # the next turn's reference: an image id or a file
        self._categories = {
            image.id: image.category for image in self.project.iter_images() if not image.missing
        }
        self._gallery_sizes: dict[str | None, int] = {}

    # -- what the views show ---------------------------------------------------------

    @property
    def is_chat(self) -> bool:
        return self.options.mode == "chat"

    @property
    def prompt(self) -> str:
        return CHAT_PROMPT if self.is_chat else COMPOSED_PROMPT

    @property
    def turns(self) -> list[SessionTurn]:
        return self.session.turns if self.session is not None else []

    @property
    def last_turn(self) -> SessionTurn | None:
        return self.turns[-1] if self.turns else None

    @property
    def target_id(self) -> str | None:
        return self.session.target_id if self.session is not None else None

    def correct_ids(self) -> frozenset[str]:
        """Every ground truth of the query this session started from: when its first
        reference and its target are a pair with several (CIRCO), all of them count."""
        if not self.turns:
            return frozenset()
        from studio.pairs.ground_truths import correct_for_query

        return correct_for_query(self.project, self.turns[0].reference_id, self.target_id)

    def image_ids(self) -> list[str]:
        """Every image that can be a reference (its file exists)."""
        return sorted(self._categories)

    def categories(self) -> list[str]:
        return sorted({c for c in self._categories.values() if c})

    @property
    def gallery_category(self) -> str | None:
        """The category the next turn searches (None: every image)."""
        choice = self.options.gallery
        if choice == ALL_CATEGORIES:
            return None
        if choice != REFERENCE_CATEGORY:
            return choice
        for image in (self.reference, self.target_id):
            if image is not None and image in self._categories:
                return self._categories[image] or None
        return None

    def gallery_text(self) -> str:
        category = self.gallery_category
        size = self.gallery_size()
        if size == 0:  # never "Searching 0 all images"
            return f"No {category + ' ' if category else ''}images to search"
        if category:
            return f"Searching {count(size, f'{category} image')}"
        return "Searching the only image" if size == 1 else f"Searching all {size:,} images"

    def gallery_size(self) -> int:
        """How many images the next turn searches: counted by the same membership test
        as the search (an image may belong to several galleries in Fashion IQ)."""
        category = self.gallery_category
        if category not in self._gallery_sizes:
            allowed = self.context.index.allowed_positions(category)
            size = len(self.context.index) if allowed is None else len(allowed)
            self._gallery_sizes[category] = size
        return self._gallery_sizes[category]

    def can_save_transaction(self) -> bool:
        """A composed session with at least one turn that had a reference image."""
        return not self.is_chat and any(t.reference_id for t in self.turns)

    def rank_text(self, revealed: bool = False) -> str:
        """ "Target rank: 3 (was 7)" after a turn; before the first, "Target: hidden" (or,
        with the target shown, that it has no rank yet)."""
        if self.target_id is None:
            return ""
        turn = self.last_turn
        if turn is None:
            return "Target: no rank before the first turn" if revealed else "Target: hidden"
        if turn.target_rank is None:
            return "Target: not in this gallery"
        earlier = [t.target_rank for t in self.turns[:-1] if t.target_rank]
        change = f" (was {earlier[-1]})" if earlier else ""
        return f"Target rank: {turn.target_rank}{change}"

    def revealed_target(self) -> TargetView | None:
        target = self.target_id
        if target is None:
            return None
        turn = self.last_turn
        rank = turn.target_rank if turn is not None else None
        shown = rank is not None and rank <= self.options.k
        # Before the first turn the target has no rank: it is not "not in this gallery"
        # (what Reveal said beside "Searching 666 toptee images", issue #27 D8).
        return TargetView(target, rank, self.gallery_size(), shown, searched=turn is not None)

    # -- sessions --------------------------------------------------------------------

    def start(self, options: SessionOptions | None = None,
              target: str | None = None) -> RetrievalSession:
        """A new session: a new secret target (if asked; ``target`` when given, e.g. a
        stored query's) and, composed, a first reference.

        A refused start (an unknown strategy …) leaves the current session as it was.
        """
        previous = self.options
        self.options = options or self.options
        try:
            if target is None and self.options.secret_target:
                target = self.choose_target()
            session = self.context.new_session(
                self.options.strategy,
                mode=self.options.mode,
                target_id=target,
                k=self.options.k,
            )
        except StudioError:
            self.options = previous
            raise
        self.session = session
        self.reference = None
        self.question = None
        self.recorder = SessionRecorder(self.project, self.actor)
        self.recorder.start(session, self.context.model_name)
        if not self.is_chat:
            self.random_reference()
        self._apply_gallery()
        return session

    def choose_target(self) -> str | None:
        """A random indexed image with known facets, from the chosen category if one is."""
        choice = self.options.gallery
        fixed = None if choice in (REFERENCE_CATEGORY, ALL_CATEGORIES) else choice
        indexed = set(self.context.index.image_ids)
        pool = [
            i for i, c in self._categories.items() if i in indexed and (fixed is None or c == fixed)
        ]
        if not pool:
            return None
        # A target needs a second image of its category to start from.
        per_category: dict[str, int] = {}
        for image_id in pool:
            per_category[self._categories[image_id]] = (
                per_category.get(self._categories[image_id], 0) + 1
            )
        usable = [i for i in sorted(pool) if per_category[self._categories[i]] > 1]
        return self.random.choice(usable or sorted(pool))

    def random_reference(self) -> str | None:
        """A start image from the target's category (else the gallery's), never the target."""
        target = self.target_id
        category = self._categories.get(target) if target else self.gallery_category
        pool = sorted(
            i
            for i, c in self._categories.items()
            if i != target and (category is None or c == category)
        )
        if pool:
            self.set_reference(self.random.choice(pool))
        return self.reference

    def set_reference(self, reference: str | Path | None) -> None:
        """The next turn's reference: a project image id or an image file."""
        if isinstance(reference, Path) or (
            reference is not None and reference not in self._categories
        ):
            path = Path(reference)
            if not path.is_file():
                raise StudioError(f"No image '{reference}' in this project, and no such file.")
            self.reference = str(path)
        else:
            self.reference = reference
        self._apply_gallery()

    def set_gallery(self, choice: GalleryChoice) -> None:
        if choice not in (REFERENCE_CATEGORY, ALL_CATEGORIES, *self.categories()):
            raise StudioError(
                f"Unknown category {choice!r}; the project has "
                f"{', '.join(self.categories()) or 'none'}."
            )
        self.options = SessionOptions(
            self.options.mode,
            self.options.strategy,
            self.options.k,
            self.options.secret_target,
            choice,
        )
        self._apply_gallery()

    def _apply_gallery(self) -> None:
        if self.session is not None:
            self.session.category = self.gallery_category

    def choose(self, image_id: str) -> None:
        """Carry a shown result forward as the next reference (and record the choice)."""
        if self.session is None or not self.session.turns:
            raise StudioError("Run a turn before choosing one of its results.")
        self.session.choose(image_id)
        if self.recorder is not None:
            self.recorder.record(self.session.turns[-1])
        self.set_reference(image_id)

    def run_turn(self, text: str) -> SessionTurn:
        """Run one turn and record it (``plan_turn`` then ``apply_turn``, in one go)."""
        return self.apply_turn(self.plan_turn(text))

    def plan_turn(self, text: str) -> PlannedTurn:
        """Search for one turn without changing anything: safe on a job's thread while the
        view still shows the session as it was."""
        session = self.session
        if session is None:
            raise StudioError("Start a session first.")
        text = text.strip()
        if self.is_chat:
            return session.plan_chat_turn(text, self.question)
        if not text and self.reference is None:
            raise StudioError("Give a reference image, a text, or both.")
        return session.plan_composed_turn(text, reference_id=self.reference)

    def ask(self, question: str | None) -> None:
        """Make ``question`` (a stored chat round's, as the studio's questioner words it)
        the one the next round answers; None: the next round is a description."""
        if self.session is None or not self.is_chat:
            raise StudioError("Start a chat session first.")
        if question is None:
            self.question = None
            return
        facet = facet_asked(question)
        if facet is None:
            raise StudioError(f"The studio does not ask \u201c{question}\u201d.")
        self.question = self.session.question_about(facet)

    def plan_dialog_round(self, dialog: str, question: str | None,
                          answer: str) -> PlannedTurn:
        """A ChatIR dialog's round searched as its protocol does (``dialog``: its rounds so
        far joined as ``studio.chatir.protocol.round_texts`` joins them; see
        ``RetrievalSession.plan_dialog_round``)."""
        if self.session is None or not self.is_chat:
            raise StudioError("Start a chat session first.")
        return self.session.plan_dialog_round(dialog, question, answer)

    def search_split(self, split: str | None) -> None:
        """Search only the images of ``split`` (a ChatIR search space) in this session."""
        if self.session is not None:
            self.session.split = split

    def apply_turn(self, planned: PlannedTurn) -> SessionTurn:
        """Make the planned turn the session's next one, record it, and move on (the next
        question, or the reference a rollback chose); the UI thread calls this."""
        session = self.session
        if session is None:
            raise StudioError("Start a session first.")
        turn = session.commit(planned)
        if self.recorder is not None:
            self.recorder.record(turn)
        if self.is_chat:
            self.question = session.next_question(self.questioner)
        else:
            self.reference = turn.reference_id  # a rollback moves it; results can be chosen
        return turn

    # -- phrases ---------------------------------------------------------------------

    def rollback_choices(self) -> list[tuple[str, str]]:
        """(menu label, phrase) for every earlier turn."""
        return [
            (f"Turn {t.index}: {t.text[:40]}", phrase_turn(ParsedTurn("", rollback_to=t.index)))
            for t in self.turns
        ]

    def keep_choices(self) -> list[tuple[int, list[tuple[str, str]]]]:
        """Per earlier turn, (label, phrase) for every facet that can be kept."""
        return [
            (
                t.index,
                [
                    (
                        f"keep the {facet_noun(facet)}",
                        phrase_turn(ParsedTurn("", keeps=(Keep(facet, t.index),))),
                    )
                    for facet in FACETS
                ],
            )
            for t in self.turns
        ]

    @staticmethod
    def with_phrase(phrase: str, typed: str) -> str:
        """Put a rollback or keep phrase in front of what is typed, the grammar's way."""
        typed = typed.strip()
        return f"{phrase}, and {typed}" if typed else f"{phrase}, and "

    # -- export ----------------------------------------------------------------------

    def save_transaction(self) -> Literal["saved", "already saved"]:
        from studio.transactions.store import save_transactions

        if not self.can_save_transaction() or self.recorder is None:
            raise StudioError("Run a composed turn before saving the session as a transaction.")
        session_id = self.recorder.session_id
        if session_id is None:
            raise StudioError("This session was not recorded.")
        transaction = session_transaction(self.project, session_id)
        new, _present = save_transactions(
            self.project, [transaction], self.actor, "save session as transaction"
        )
        return "saved" if new else "already saved"
