"""Retrieval: composed multi-turn and chat sessions against the project's index.

A view over ``studio.sessions.controller.RetrievalController``, which holds every rule
(target and reference choice, the gallery, turns, phrases, recording, export). This file
is the glue of the session: it starts sessions, runs turns and carries a chosen result
forward. Its parts, one idea each:

- ``widgets/retrieval_loader.py``: the page before a session (Load, Build index…);
- ``widgets/retrieval_controls.py``: the settings strip (mode, strategy, gallery …);
- ``widgets/retrieval_reference.py``: the reference, the secret target, the timeline;
- ``widgets/retrieval_turn_panel.py``: the question, the turn's text, the results;
- ``widgets/experiments_view.py``: the Experiments tab (simulations, combiner training).

Loading the model and index, building it, and every turn run as jobs on the window's
runner, so the window never freezes; a turn's result is applied here, on the UI thread.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtGui import QShortcut
from PySide6.QtWidgets import (
    QFileDialog,
    QInputDialog,
    QMessageBox,
    QSplitter,
    QStackedLayout,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)
from qasync import asyncSlot
from shiboken6 import isValid

from studio.errors import StudioError
from studio.jobs import JobCancelled
from studio.sessions.controller import RetrievalController
from studio.sessions.engine import RetrievalSession, SessionTurn
from studio.sessions.questioner import Question
from studio.sessions.strategies import STRATEGIES, strategy_names
from studio.store import Project
from studio.wording import count
from widgets import actions
from widgets.experiments_view import ExperimentsView
from widgets.panes.pane import Pane, empty_state
from widgets.project_signals import follow
from widgets.retrieval_controls import SessionControls
from widgets.retrieval_loader import IndexLoader
from widgets.retrieval_reference import ReferenceColumn
from widgets.retrieval_turn_panel import TurnPanel
from widgets.services import Services

if TYPE_CHECKING:
    from studio.sessions.setup import SessionContext


class RetrievalPane(Pane):
    title = "Retrieval"
    tooltip = "Composed multi-turn and chat retrieval sessions against the local index"

    def __init__(self, services: Services, parent: QWidget | None = None):
        super().__init__(services, parent)
        workspace, runner = self.workspace, self.runner
        self.controller: RetrievalController | None = None
        self._turn_running = False
        tabs = QTabWidget()
        QVBoxLayout(self).addWidget(tabs)
        search = QWidget()
        tabs.addTab(search, "Search")
        self.experiments = ExperimentsView(workspace, runner, services=services)
        self.experiments.open_in_retrieval.connect(self.open_query)
        tabs.addTab(self.experiments, "Experiments")
        self.tabs = tabs
        self._stack = QStackedLayout(search)
        self._stack.addWidget(empty_state("No project open",
                                          "Open a project (or the demo) to search it."))
        self.loader = IndexLoader(services, self._context_loaded)
        self._stack.addWidget(self.loader)
        self._stack.addWidget(self._build_session_view())
        self._expose_parts()
        self._shortcuts()
        self.thumbnails.ready.connect(self._picture_ready)
        # The loader says whether an index exists; new images or another model change that.
        follow(self, workspace, ("images", "labels", "vocabulary", "settings"),
               self._project_data_changed)

    # -- what the controller holds (read by tests and dialogs) ------------------------

    @property
    def session(self) -> RetrievalSession | None:
        return self.controller.session if self.controller else None

    @property
    def question(self) -> Question | None:
        return self.controller.question if self.controller else None

    @property
    def pending_reference(self) -> str | None:
        return self.controller.reference if self.controller else None

    # -- layout ----------------------------------------------------------------------

    def _build_session_view(self) -> QWidget:
        page = QWidget()
        layout = QVBoxLayout(page)
        self.controls = SessionControls()
        layout.addLayout(self.controls.bar)
        splitter = QSplitter()
        self.column = ReferenceColumn(self.workspace, self.thumbnails, self._path_of)
        splitter.addWidget(self.column)
        self.turns = TurnPanel(self.thumbnails, self._path_of, lambda: self.controller)
        splitter.addWidget(self.turns)
        splitter.setSizes([300, 900])
        layout.addWidget(splitter, 1)
        controls, column, turns = self.controls, self.column, self.turns
        controls.gallery.currentIndexChanged.connect(self._gallery_changed)
        controls.new_button.clicked.connect(self.new_session)
        column.random_reference.clicked.connect(self.pick_random_reference)
        column.file_reference.clicked.connect(self.pick_reference_file)
        column.gallery_reference.clicked.connect(self.pick_gallery_reference)
        column.reveal.toggled.connect(self._show_target)
        column.export_button.clicked.connect(self.save_transaction)
        column.recorded_button.clicked.connect(self.show_recorded)
        turns.text.returnPressed.connect(self.run_turn)
        turns.results.chosen.connect(self.choose_result)
        controls.mode.currentIndexChanged.connect(lambda _i: self.new_session())
        self.setAcceptDrops(True)
        return page

    def _expose_parts(self) -> None:
        """The parts' widgets under the names the pane has always had (tests, the walk)."""
        loader, controls, column, turns = self.loader, self.controls, self.column, self.turns
        self.loader_text, self.load_button = loader.loader_text, loader.load_button
        self.build_button, self.folder_button = loader.build_button, loader.folder_button
        self.mode, self.strategy, self.top_k = controls.mode, controls.strategy, controls.top_k
        self.gallery, self.secret_target = controls.gallery, controls.secret_target
        self.new_button = controls.new_button
        self.reference_view, self.reference_caption = column.reference_view, column.reference_caption
        self.random_reference = column.random_reference
        self.file_reference, self.gallery_reference = column.file_reference, column.gallery_reference
        self.target_label, self.reveal = column.target_label, column.reveal
        self.target_view, self.target_text = column.target_view, column.target_text
        self.timeline = column.timeline
        self.export_button, self.recorded_button = column.export_button, column.recorded_button
        self.question_label, self.chips_row = turns.question_label, turns.chips_row
        self.prompt, self.text, self.status = turns.prompt, turns.text, turns.status
        self.rollback_button, self.combine_button = turns.rollback_button, turns.combine_button
        self.results, self.first_turn_hint = turns.results, turns.first_turn_hint
        self.result_stack = turns.result_stack

    def _shortcuts(self) -> None:
        """The pane's keys (``retrieval.*`` in widgets/actions.py), live while it is shown."""
        self._session_keys: list[QShortcut] = []
        for number in range(1, 10):
            self._session_keys += actions.bind(
                self, f"retrieval.pick.{number}", lambda n=number: self._choose_row(n - 1),
                while_shown=True)
        for action_id, slot in (("retrieval.rollback", self.turns.show_rollback_menu),
                                ("retrieval.combine", self.turns.show_combine_menu),
                                ("retrieval.new_session", self.new_session)):
            self._session_keys += actions.bind(self, action_id, slot, while_shown=True)

    def _set_turn_running(self, running: bool) -> None:
        """While a turn searches, nothing that would change the session can be used (a
        second Enter, Alt+1, New session, another reference or gallery)."""
        self._turn_running = running
        chat = self.is_chat
        for widget in (self.text, self.new_button, self.mode, self.strategy, self.gallery,
                       self.secret_target, self.results, self.export_button):
            widget.setEnabled(not running)
        for widget in (*self.column.pick_buttons, self.rollback_button, self.combine_button):
            widget.setEnabled(not running and not chat)
        self.turns.set_chips_enabled(not running)
        for shortcut in self._session_keys:
            shortcut.setEnabled(not running)
        if not running:
            self.export_button.setEnabled(
                self.controller is not None and self.controller.can_save_transaction())
            self.text.setFocus()

    # -- project and context ---------------------------------------------------------

    def focus_widget(self) -> QWidget | None:
        """The turn's text in a session; Load (Enter) while no index is loaded."""
        return self.text if self._stack.currentIndex() == 2 else self.load_button

    def show_project(self, project: Project | None) -> None:
        self.controller = None
        self._stack.setCurrentIndex(0 if project is None else 1)
        if project is not None:
            self.loader.describe_index(project)

    def _project_data_changed(self) -> None:
        project = self.workspace.project
        if project is None or self.loader.building:
            return  # the build in progress says what it does
        if self.controller is None and self._stack.currentIndex() == 1:
            self.loader.describe_index(project)

    def load_context(self, message: str = ""):
        """Load the model and index as a job (see ``IndexLoader``); returns its task."""
        return self.loader.load_context(message)

    def build_index(self):
        """Build the index as a job, then load it (see ``IndexLoader``); returns its task."""
        return self.loader.build_index()

    def _context_loaded(self, context: SessionContext, message: str) -> None:
        self.controller = RetrievalController(context, self.workspace.user_name)
        self.controls.fill_galleries(self.controller.categories())
        # Combiners trained for this model, after the built-in strategies.
        self.controls.add_strategies(strategy_names(context.combiner_source())[len(STRATEGIES):])
        self._stack.setCurrentIndex(2)
        self.new_session()
        if message:
            self.status.setText(message)

    # -- sessions --------------------------------------------------------------------

    def new_session(self) -> None:
        self._start()

    def open_query(self, query: dict) -> bool:
        """Experiments → Queries… → *Open in Retrieval*: a composed session from a stored
        query, its reference as the first reference and its target as the one to find
        (when indexed), with the run's strategy. A composed dialog (a simulation) runs
        again turn by turn from its stored references and texts (``replay_dialog``), so
        the timeline shows the rank after each turn; a single-turn query's caption(s) wait
        in the text box to run or edit. Either way the person goes on by hand (a result
        clicked is the next reference)."""
        controller = self.controller
        self.tabs.setCurrentIndex(0)
        if self._turn_running:
            self.status.setText("A turn is running: open the query when it is done.")
            return False
        if controller is None:
            self.status.setText("Load the index (Retrieval → Search) to open a query in it.")
            return False
        chat = chat_steps(query)
        if controller.is_chat != bool(chat):
            self.controls.mode.blockSignals(True)  # Composed: reference and text per turn;
            self.controls.mode.setCurrentIndex(1 if chat else 0)  # Chat: rounds answered
            self.controls.mode.blockSignals(False)
        strategy = self.controls.strategy.findData(query.get("strategy"))
        if strategy >= 0:  # the run's own, so the ranks are the run's
            self.controls.strategy.setCurrentIndex(strategy)
        indexed = set(controller.context.index.image_ids)
        target = query.get("target")
        if not self._start(target if target in indexed else None):
            return False
        reference = query.get("reference")
        if reference:
            try:
                controller.set_reference(reference)
            except StudioError as error:
                self.status.setText(str(error))
        self._show_reference()
        texts = [t for t in query.get("texts", []) if t]
        where = f"Query {query.get('query', '')} of run #{query.get('run', '?')}"
        if chat and query.get("kind") == "chatir":  # searched as ChatIR's protocol does
            from studio.chatir.protocol import search_space

            controller.search_split(search_space(controller.project))
            self.replay_dialog(chat, where, chat="chatir", rounds=list(query.get("texts") or []))
            return True
        if chat:
            self.replay_dialog(chat, where, chat="asked")
            return True
        steps = dialog_steps(query) if query.get("dialog") else []
        if steps:
            self.replay_dialog(steps, where)
            return True
        self.text.setText(" and ".join(texts))
        self.status.setText(f"{where}: Enter runs its text; a result clicked is the next "
                            "reference.")
        return True

    @asyncSlot()
    async def replay_dialog(self, steps: list[tuple[str | None, str]], where: str = "",
                            chat: str = "", rounds: list[str] | None = None) -> None:
        """Run a stored dialog's turns again, one job each on the model lane (the same
        turns a person types: planned off the UI thread, applied here), each from its
        stored reference (None: the previous turn's top result, as the simulated user
        chose). A chat's steps are (question, answer): each round answers its stored
        question (None: the description), asked again by the studio (``chat="asked"``, a
        simulation) or, for a ChatIR dialog (``chat="chatir"``), searched as ChatIR does
        with its ``rounds`` so far as one text. Cancel (the job's) stops after the turn under
        way; the turns done stay."""
        controller = self.controller
        if controller is None or self._turn_running:
            return
        self._set_turn_running(True)
        done, total = 0, len(steps)
        try:
            for number, (reference, text) in enumerate(steps, start=1):
                last = controller.last_turn
                if chat == "chatir":
                    job = _round_job(controller, (rounds or [])[:number], reference, text,
                                     (number - 1, total))
                elif chat:
                    controller.ask(reference)  # the round's stored question
                elif last is not None:  # the reference this turn was run from
                    chosen = reference or (last.results[0].id if last.results else None)
                    if chosen is not None:
                        controller.choose(chosen)
                elif reference is not None:
                    controller.set_reference(reference)
                if chat != "chatir":
                    job = _turn_job(controller, text, (number - 1, total))
                planned = await self.runner.run(f"Replaying turn {number} of {total}", job)
                if controller is not self.controller or not isValid(self):
                    return  # another project or model was loaded meanwhile
                self._show_turn(controller.apply_turn(planned))
                done = number
        except JobCancelled:
            pass
        except StudioError as error:
            if isValid(self):
                self.status.setText(f"{where}: turn {done + 1} could not run again: {error}")
            return
        finally:
            if isValid(self):
                self._set_turn_running(False)
        if not isValid(self) or controller is not self.controller:
            return
        rank = controller.rank_text(revealed=True)
        stopped = "" if done == total else f" (stopped after {done} of {total})"
        if chat:
            self._show_question(controller.question)
            self.status.setText(f"{where}: replayed {count(done, 'round')}{stopped} · {rank}. "
                                "Answer the next question to go on.")
            return
        self.status.setText(f"{where}: replayed {count(done, 'turn')}"
                            f"{stopped} · {rank}. A result clicked is the next reference.")

    def _start(self, target: str | None = None) -> bool:
        controller = self.controller
        if controller is None:
            return False
        try:
            controller.start(self.controls.options(), target=target)
        except StudioError as error:
            self.status.setText(str(error))
            return False
        self.text.clear()  # a composed text means nothing to a chat, and back
        self.prompt.setText(controller.prompt)
        self.timeline.clear()
        self.turns.start_over(controller.is_chat)
        self._show_question(None)
        self.column.hide_target()
        self.status.setText(controller.gallery_text() + ".")
        chat = controller.is_chat
        for widget in (*self.column.pick_buttons, self.rollback_button, self.combine_button):
            widget.setEnabled(not chat)
        self._show_reference()
        self._show_target()
        self.text.setFocus()
        return True

    @property
    def is_chat(self) -> bool:
        return self.controller is not None and self.controller.is_chat

    def _gallery_changed(self, _index: int) -> None:
        if self.controller is None or self.gallery.currentData() is None:
            return
        try:
            self.controller.set_gallery(self.gallery.currentData())
        except StudioError as error:
            self.status.setText(str(error))
            return
        self.status.setText(self.controller.gallery_text() + " from the next turn on.")

    def pick_random_reference(self) -> None:
        if self.controller is not None:
            if self.controller.random_reference() is None:
                self.status.setText("No image to start from in this gallery: "
                                    f"{self.controller.gallery_text().lower()}.")
            self._show_reference()

    def pick_gallery_reference(self) -> None:
        if self.controller is None:
            return
        ids = self.controller.image_ids()
        image_id, ok = QInputDialog.getItem(self, "Reference from the gallery", "Image id:",
                                            ids, 0, True)
        if ok:
            self._try_reference(image_id.strip())

    def _try_reference(self, reference: str | Path) -> None:
        if self.controller is None:
            return
        try:
            self.controller.set_reference(reference)
        except StudioError as error:
            QMessageBox.warning(self, "Unknown image", str(error))
            return
        self._show_reference()

    def show_recorded(self) -> None:
        from widgets.recorded_sessions_dialog import RecordedSessionsDialog

        if self.workspace.project is not None:
            RecordedSessionsDialog(self.workspace.project, self.workspace.user_name, self).exec()

    def pick_reference_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Reference image", "",
                                              "Images (*.jpg *.jpeg *.png *.webp *.bmp)")
        if path:
            self._try_reference(Path(path))

    def dragEnterEvent(self, event) -> None:  # noqa: N802 (Qt name)
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event) -> None:  # noqa: N802 (Qt name)
        if self._turn_running:
            return
        urls = event.mimeData().urls()
        if urls and urls[0].isLocalFile():
            self._try_reference(Path(urls[0].toLocalFile()))

    def choose_result(self, image_id: str) -> None:
        if self.controller is None or not self.controller.turns:
            return
        try:
            self.controller.choose(image_id)
        except StudioError as error:
            self.status.setText(str(error))
            return
        self._show_reference()
        self.status.setText(f"{image_id} is the reference of the next turn.")
        self.text.setFocus()

    def _choose_row(self, row: int) -> None:
        image_id = self.results.hit_id(row)
        if image_id is not None:
            self.choose_result(image_id)

    @asyncSlot()
    async def run_turn(self) -> None:
        controller = self.controller
        if controller is None:
            return
        text = self.text.text()
        if self._turn_running:
            return  # one turn at a time: the session changes only between turns
        self._set_turn_running(True)
        try:
            planned = await self.runner.run("Searching", _turn_job(controller, text))
        except JobCancelled:
            return
        except StudioError as error:
            QMessageBox.warning(self, "Cannot run this turn", str(error))
            return
        finally:
            if isValid(self):
                self._set_turn_running(False)
        if controller is not self.controller:
            return  # another project or model was loaded meanwhile
        try:  # the search ran on the model lane; the session changes here, on the UI thread
            turn = controller.apply_turn(planned)
        except StudioError as error:
            self.status.setText(str(error))
            return
        self.text.clear()
        self._show_turn(turn)
        if controller.is_chat:
            self._show_question(controller.question)
        # The answer chips are rebuilt (a clicked one is deleted): the next answer is typed.
        self.text.setFocus()

    # -- showing the session ---------------------------------------------------------

    def _show_turn(self, turn: SessionTurn) -> None:
        controller = self.controller
        if controller is None:
            return
        revealed = controller.target_id if self.reveal.isChecked() else None
        correct = controller.correct_ids() if revealed else frozenset()
        self.results.show_hits([(h.id, h.score) for h in turn.results[: self.top_k.value()]],
                               revealed, correct)
        self.result_stack.setCurrentWidget(self.results)
        self.timeline.show_turns(controller.turns)
        self.status.setText(
            f"Turn {turn.index} ({turn.kind}) in {turn.timings.get('total_ms', 0):.0f} ms · "
            f"{controller.gallery_text()}"
        )
        self._show_reference()
        self._show_target()

    def _show_target(self, *_args: object) -> None:
        controller = self.controller
        revealed = self.column.draw_target(controller)
        if revealed is not None and controller is not None and controller.last_turn is not None:
            turn = controller.last_turn
            self.results.show_hits(
                [(h.id, h.score) for h in turn.results[: self.top_k.value()]], revealed,
                controller.correct_ids())

    def _show_question(self, question: Question | None) -> None:
        self.turns.show_question(question, self._answer_with)

    def _answer_with(self, option: str) -> None:
        self.text.setText(option)
        self.text.setFocus()  # a click moved the focus to the chip; typing goes on here
        self.run_turn()

    def _show_reference(self) -> None:
        self.column.draw_reference(self.controller, self.is_chat)

    def _picture_ready(self, path: str, size: int) -> None:
        """A reference or target picture asked for was decoded: draw it now."""
        controller = self.controller
        if controller is None:
            return
        which = self.column.picture_ready(controller, path, size)
        if which == "reference":
            self._show_reference()
        elif which == "target":
            self._show_target()

    def _path_of(self, image_id: str) -> Path | None:
        project = self.workspace.project
        record = project.image(image_id) if project else None
        return project.image_file(record) if record else None

    def save_transaction(self) -> None:
        if self.controller is None:
            return
        try:
            outcome = self.controller.save_transaction()
        except StudioError as error:
            QMessageBox.warning(self, "Cannot save this session", str(error))
            return
        self.status.setText("Saved as a transaction (Quality → Transactions)."
                            if outcome == "saved" else "Already saved.")


def dialog_steps(query: dict) -> list[tuple[str | None, str]]:
    """A stored composed dialog's turns to run again: (reference, text) each, up to the
    first turn not run (the target was found before it). A log written before references
    were kept gives None after the first: the previous turn's top result."""
    if not query.get("reference"):
        return []  # a chat: its rounds answered questions the log does not keep
    references = list(query.get("references") or [])
    steps: list[tuple[str | None, str]] = []
    for number, text in enumerate(query.get("texts") or []):
        if not text:
            break
        reference = references[number] if number < len(references) else None
        steps.append((reference or (query["reference"] if number == 0 else None), text))
    return steps


def chat_steps(query: dict) -> list[tuple[str | None, str]]:
    """A stored chat dialog's rounds to run again: (question, answer) each, the first
    with no question (the description), up to the first round with nothing asked. [] for
    a composed dialog or a chat stored before its rounds were kept."""
    if query.get("reference"):
        return []
    questions, answers = query.get("questions") or [], query.get("answers") or []
    if not answers or len(questions) != len(answers):
        return []
    steps: list[tuple[str | None, str]] = []
    for number, (question, answer) in enumerate(zip(questions, answers, strict=True)):
        if not answer or (number and not question):
            break
        steps.append((question or None, answer))
    return steps


def _round_job(controller: RetrievalController, rounds: list[str], question: str | None,
               answer: str, step: tuple[int, int]):
    """A ChatIR round's search as a job (see ``_turn_job``)."""

    from studio.chatir.protocol import round_texts

    def job(*, progress, cancel):
        progress(*step, f"round {step[0]} of {step[1]}")
        dialog = round_texts(rounds, len(rounds))[-1]  # the rounds so far, as ChatIR joins them
        planned = controller.plan_dialog_round(dialog, question, answer)
        cancel.raise_if_cancelled()
        return planned

    return job


def _turn_job(controller: RetrievalController, text: str,
              step: tuple[int, int] | None = None):
    """The turn's search as a job: it reads the session and changes nothing. ``step``
    (done, total) is a replay's progress; a cancel during the search drops its result."""

    def job(*, progress, cancel):
        if step is not None:
            progress(*step, f"turn {step[0] + 1} of {step[1]}")
        planned = controller.plan_turn(text)
        cancel.raise_if_cancelled()
        return planned

    return job
