"""Retrieval: composed multi-turn and chat sessions against the project's index.

Loading the model and index, and every turn, run as jobs on the window's runner, so the
window never freezes. Each turn is recorded as it happens (studio.sessions.store).
"""

from __future__ import annotations

import random
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence, QPixmap, QShortcut
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QMenu,
    QMessageBox,
    QPushButton,
    QSpinBox,
    QSplitter,
    QStackedLayout,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)
from qasync import asyncSlot

from studio.errors import StudioError
from studio.jobs import JobCancelled
from studio.sessions.engine import FACET_WORDS, RetrievalSession, SessionTurn
from studio.sessions.questioner import InformationGainQuestioner, Question
from studio.sessions.store import SessionRecorder, session_transaction
from studio.sessions.strategies import DEFAULT_STRATEGY, STRATEGIES
from studio.sessions.turn_references import ORDINALS
from studio.store import Project
from studio.workspace import Workspace
from widgets.experiments_view import ExperimentsView
from widgets.job_runner import JobRunner
from widgets.panes.pane import Pane, empty_state
from widgets.result_grid import ResultGrid
from widgets.session_timeline import SessionTimeline
from widgets.thumbnail_cache import ThumbnailCache

ORDINAL_WORDS = {n: w for w, n in ORDINALS.items() if w.isalpha() and n > 0}
FACETS_TO_KEEP = sorted(set(FACET_WORDS.values()))
REFERENCE_SIZE = 220


class RetrievalPane(Pane):
    title = "Retrieval"
    tooltip = "Composed multi-turn and chat retrieval sessions against the local index"

    def __init__(self, workspace: Workspace, runner: JobRunner, parent: QWidget | None = None):
        super().__init__(workspace, parent)
        self.runner = runner
        self.context = None  # studio.sessions.setup.SessionContext, loaded on first use
        self.session: RetrievalSession | None = None
        self.recorder: SessionRecorder | None = None
        self.question: Question | None = None
        self.pending_reference: str | None = None  # the next turn's reference, if chosen
        self.questioner = InformationGainQuestioner(())
        self.thumbnails = ThumbnailCache(parent=self)
        tabs = QTabWidget()
        QVBoxLayout(self).addWidget(tabs)
        search = QWidget()
        tabs.addTab(search, "Search")
        self.experiments = ExperimentsView(workspace, runner)
        tabs.addTab(self.experiments, "Experiments")
        self.tabs = tabs
        self._stack = QStackedLayout(search)
        self._stack.addWidget(empty_state("No project open",
                                          "Open a project (or the demo) to search it."))
        self._stack.addWidget(self._build_loader())
        self._stack.addWidget(self._build_session_view())
        self._shortcuts()

    # -- layout ----------------------------------------------------------------------

    def _build_loader(self) -> QWidget:
        page = QWidget()
        layout = QVBoxLayout(page)
        layout.addStretch(1)
        self.loader_text = QLabel("Load the model and the project's index to start searching.")
        self.loader_text.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.loader_text.setWordWrap(True)
        layout.addWidget(self.loader_text)
        row = QHBoxLayout()
        row.addStretch(1)
        self.load_button = QPushButton("Load model and index")
        self.load_button.setToolTip("Runs in the background; the status bar shows progress")
        self.load_button.clicked.connect(self.load_context)
        self.build_button = QPushButton("Build index…")
        self.build_button.setToolTip("Embed the project's images with the active model and "
                                     "build its search index (a cancellable job); a project "
                                     "without attribute labels first gets them from its "
                                     "product text")
        self.build_button.clicked.connect(self.build_index)
        row.addWidget(self.load_button)
        row.addWidget(self.build_button)
        row.addStretch(1)
        layout.addLayout(row)
        layout.addStretch(2)
        return page

    def _build_session_view(self) -> QWidget:
        page = QWidget()
        layout = QVBoxLayout(page)
        bar = QHBoxLayout()
        self.mode = QComboBox()
        self.mode.addItems(["Composed", "Chat"])
        self.mode.setToolTip("Composed: reference image + text per turn. Chat: the system asks "
                             "a question after each round.")
        self.strategy = QComboBox()
        for name, cls in STRATEGIES.items():
            self.strategy.addItem(cls.label, name)
            self.strategy.setItemData(self.strategy.count() - 1, cls.description,
                                      Qt.ItemDataRole.ToolTipRole)
        self.strategy.setCurrentIndex(list(STRATEGIES).index(DEFAULT_STRATEGY))
        self.top_k = QSpinBox()
        self.top_k.setRange(1, 50)
        self.top_k.setValue(10)
        self.top_k.setToolTip("How many results to show (up to 50)")
        self.secret_target = QCheckBox("Secret target")
        self.secret_target.setChecked(True)
        self.secret_target.setToolTip("Pick a hidden target from the gallery and show its rank "
                                      "after every turn")
        self.new_button = QPushButton("New session")
        self.new_button.setToolTip("Start over with a new random target (Ctrl+Shift+N)")
        self.new_button.clicked.connect(self.new_session)
        for label, widget in (("Mode", self.mode), ("Strategy", self.strategy),
                              ("Show", self.top_k)):
            bar.addWidget(QLabel(label))
            bar.addWidget(widget)
        bar.addWidget(self.secret_target)
        bar.addStretch(1)
        self.target_label = QLabel("")
        self.target_label.setObjectName("paneHeading")
        bar.addWidget(self.target_label)
        self.reveal = QCheckBox("Reveal")
        self.reveal.setToolTip("Mark the secret target in the results")
        self.reveal.toggled.connect(self._reshow_last_turn)
        bar.addWidget(self.reveal)
        bar.addWidget(self.new_button)
        layout.addLayout(bar)

        splitter = QSplitter()
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.addWidget(QLabel("Reference"))
        self.reference_view = QLabel("No reference yet")
        self.reference_view.setFixedSize(REFERENCE_SIZE, REFERENCE_SIZE)
        self.reference_view.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.reference_view.setStyleSheet("background: #f3f4f6; border: 1px solid #d9dce1;")
        self.reference_view.setAcceptDrops(False)
        left_layout.addWidget(self.reference_view)
        self.reference_caption = QLabel("")
        self.reference_caption.setWordWrap(True)
        left_layout.addWidget(self.reference_caption)
        pick_row = QHBoxLayout()
        self.random_reference = QPushButton("Random")
        self.random_reference.setToolTip("Start from a random gallery image")
        self.random_reference.clicked.connect(self.pick_random_reference)
        self.file_reference = QPushButton("File…")
        self.file_reference.setToolTip("Start from an image file (or drop one on the pane)")
        self.file_reference.clicked.connect(self.pick_reference_file)
        self.gallery_reference = QPushButton("Id…")
        self.gallery_reference.setToolTip("Start from a gallery image by its id (type to search)")
        self.gallery_reference.clicked.connect(self.pick_gallery_reference)
        pick_row.addWidget(self.random_reference)
        pick_row.addWidget(self.gallery_reference)
        pick_row.addWidget(self.file_reference)
        left_layout.addLayout(pick_row)
        left_layout.addWidget(QLabel("Timeline"))
        self.timeline = SessionTimeline()
        left_layout.addWidget(self.timeline, 1)
        self.export_button = QPushButton("Save as transaction")
        self.export_button.setToolTip("Store this session as a FashionMT-style transaction "
                                      "(dataset 'sessions') for rating in the Quality pane")
        self.export_button.clicked.connect(self.save_transaction)
        left_layout.addWidget(self.export_button)
        self.recorded_button = QPushButton("Recorded sessions…")
        self.recorded_button.setToolTip("Reopen and replay earlier sessions of this project")
        self.recorded_button.clicked.connect(self.show_recorded)
        left_layout.addWidget(self.recorded_button)
        splitter.addWidget(left)

        right = QWidget()
        right_layout = QVBoxLayout(right)
        self.question_label = QLabel("")
        self.question_label.setObjectName("paneHeading")
        right_layout.addWidget(self.question_label)
        self.chips_row = QHBoxLayout()
        right_layout.addLayout(self.chips_row)
        text_row = QHBoxLayout()
        self.prompt = QLabel("Unlike the provided image, the one I want …")
        text_row.addWidget(self.prompt)
        self.text = QLineEdit()
        self.text.setPlaceholderText("is red with longer sleeves   (Enter to search)")
        self.text.returnPressed.connect(self.run_turn)
        text_row.addWidget(self.text, 1)
        self.rollback_button = QPushButton("Go back…")
        self.rollback_button.setToolTip("Make an earlier turn's item the reference again (Ctrl+R)")
        self.rollback_button.clicked.connect(lambda: self._show_menu(self._rollback_menu()))
        self.combine_button = QPushButton("Keep…")
        self.combine_button.setToolTip("Keep a facet (colour, sleeves …) of an earlier turn "
                                       "(Ctrl+M)")
        self.combine_button.clicked.connect(lambda: self._show_menu(self._combine_menu()))
        text_row.addWidget(self.rollback_button)
        text_row.addWidget(self.combine_button)
        right_layout.addLayout(text_row)
        self.status = QLabel("")
        right_layout.addWidget(self.status)
        self.results = ResultGrid(self.thumbnails, self._path_of)
        self.results.chosen.connect(self.choose_result)
        right_layout.addWidget(self.results, 1)
        splitter.addWidget(right)
        splitter.setSizes([300, 900])
        layout.addWidget(splitter, 1)
        self.mode.currentIndexChanged.connect(lambda _i: self.new_session())
        self.setAcceptDrops(True)
        return page

    def _shortcuts(self) -> None:
        for number in range(1, 10):
            shortcut = QShortcut(QKeySequence(f"Alt+{number}"), self)
            shortcut.activated.connect(lambda n=number: self._choose_row(n - 1))
        QShortcut(QKeySequence("Ctrl+R"), self, lambda: self._show_menu(self._rollback_menu()))
        QShortcut(QKeySequence("Ctrl+M"), self, lambda: self._show_menu(self._combine_menu()))
        QShortcut(QKeySequence("Ctrl+Shift+N"), self, self.new_session)

    # -- project and context ---------------------------------------------------------

    def show_project(self, project: Project | None) -> None:
        self.context = None
        self.session = None
        self._stack.setCurrentIndex(0 if project is None else 1)

    @asyncSlot()
    async def load_context(self) -> None:
        from studio.sessions.setup import load_session_context

        project = self.workspace.project
        if project is None:
            return
        settings = self.workspace.settings
        try:
            self.context = await self.runner.run(
                "Loading model and index", load_session_context, project, settings.model,
                None if settings.device == "auto" else settings.device,
            )
        except JobCancelled:
            return
        except StudioError as error:
            self.loader_text.setText(str(error))
            return
        self.questioner = InformationGainQuestioner(self.context.facet_map.names)
        self._stack.setCurrentIndex(2)
        self.new_session()

    @asyncSlot()
    async def build_index(self) -> None:
        from studio.index_service import build_index, load_project_model

        project = self.workspace.project
        if project is None:
            return
        settings = self.workspace.settings

        actor = self.workspace.user_name

        def job(*, progress, cancel):
            from studio.attributes.extract import extract_from_text

            if not project.db.execute("SELECT 1 FROM image_attributes LIMIT 1").fetchone():
                # Sessions read facets from attribute labels; product text gives them free.
                extract_from_text(project, actor, progress=progress, cancel=cancel)
            model = load_project_model(settings.model, None if settings.device == "auto"
                                       else settings.device)
            return build_index(project, model, progress=progress, cancel=cancel)

        try:
            report = await self.runner.run("Building the index", job)
        except JobCancelled:
            self.loader_text.setText("Index build cancelled; what was embedded is kept.")
            return
        except StudioError as error:
            self.loader_text.setText(str(error))
            return
        self.loader_text.setText(f"Index ready: {report.indexed:,} images. Loading …")
        self.load_context()

    # -- sessions --------------------------------------------------------------------

    def new_session(self) -> None:
        if self.context is None or self.workspace.project is None:
            return
        gallery = [image.id for image in self.workspace.project.iter_images()
                   if not image.missing]
        target = random.choice(gallery) if self.secret_target.isChecked() and gallery else None
        self.session = self.context.new_session(
            self.strategy.currentData(), mode="chat" if self.is_chat else "composed",
            target_id=target, k=self.top_k.value(),
        )
        self.recorder = SessionRecorder(self.workspace.project, self.workspace.user_name)
        self.recorder.start(self.session, self.context.model_name)
        self.question = None
        self.results.clear()
        self.timeline.clear()
        self._set_reference(None)
        self._show_question(None)
        self.target_label.setText("Target: hidden" if target else "")
        chat = self.is_chat
        self.prompt.setText("Describe what you look for:" if chat
                            else "Unlike the provided image, the one I want …")
        for widget in (self.random_reference, self.gallery_reference, self.file_reference,
                       self.rollback_button,
                       self.combine_button, self.export_button):
            widget.setEnabled(not chat)
        if not chat:
            self.pick_random_reference()
        self.text.setFocus()

    @property
    def is_chat(self) -> bool:
        return self.mode.currentIndex() == 1

    def pick_random_reference(self) -> None:
        project = self.workspace.project
        if project is None:
            return
        target = self.session.target_id if self.session else None
        record = project.image(target) if target else None
        # Start from the secret target's category, as a shopper would.
        images = [image.id for image in project.iter_images(record.category if record else None)
                  if not image.missing and image.id != target]
        if images:
            self._set_reference(random.choice(images))

    def pick_gallery_reference(self) -> None:
        project = self.workspace.project
        if project is None:
            return
        ids = [image.id for image in project.iter_images() if not image.missing]
        image_id, ok = QInputDialog.getItem(self, "Reference from the gallery", "Image id:",
                                            ids, 0, True)
        if ok and project.image(image_id.strip()) is not None:
            self._set_reference(image_id.strip())
        elif ok:
            QMessageBox.warning(self, "Unknown image", f"No image '{image_id}' in this project.")

    def show_recorded(self) -> None:
        from widgets.recorded_sessions_dialog import RecordedSessionsDialog

        if self.workspace.project is not None:
            RecordedSessionsDialog(self.workspace.project, self.workspace.user_name, self).exec()

    def pick_reference_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Reference image", "",
                                              "Images (*.jpg *.jpeg *.png *.webp *.bmp)")
        if path:
            self._set_reference(path)

    def dragEnterEvent(self, event) -> None:  # noqa: N802 (Qt name)
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event) -> None:  # noqa: N802 (Qt name)
        urls = event.mimeData().urls()
        if urls and urls[0].isLocalFile():
            self._set_reference(urls[0].toLocalFile())

    def choose_result(self, image_id: str) -> None:
        if self.session is None or not self.session.turns:
            return
        self.session.choose(image_id)
        if self.recorder is not None:
            self.recorder.record(self.session.turns[-1])
        self._set_reference(image_id)
        self.status.setText(f"{image_id} is the reference of the next turn.")
        self.text.setFocus()

    def _choose_row(self, row: int) -> None:
        image_id = self.results.hit_id(row)
        if image_id is not None:
            self.choose_result(image_id)

    @asyncSlot()
    async def run_turn(self) -> None:
        if self.session is None:
            return
        text = self.text.text().strip()
        session = self.session
        if self.is_chat:
            question = self.question

            def job(*, progress, cancel):
                return session.chat_turn(text, question)
        else:
            reference = self.pending_reference

            def job(*, progress, cancel):
                return session.composed_turn(text, reference_id=reference)

        try:
            turn = await self.runner.run("Searching", job)
        except JobCancelled:
            return
        except StudioError as error:
            QMessageBox.warning(self, "Cannot run this turn", str(error))
            return
        if self.recorder is not None:
            self.recorder.record(turn)
        self.text.clear()
        self._show_turn(turn)
        if self.is_chat:
            self._show_question(session.next_question(self.questioner))

    def _show_turn(self, turn: SessionTurn) -> None:
        session = self.session
        self.results.show_hits([(h.id, h.score) for h in turn.results[: self.top_k.value()]],
                               session.target_id if self.target_revealed else None)
        self.timeline.show_turns(session.turns)
        if turn.target_rank is not None:
            previous = [t.target_rank for t in session.turns[:-1] if t.target_rank]
            change = f" (was {previous[-1]})" if previous else ""
            self.target_label.setText(f"Target rank: {turn.target_rank}{change}")
        self.status.setText(
            f"Turn {turn.index} ({turn.kind}) in {turn.timings.get('total_ms', 0):.0f} ms"
        )
        if not self.is_chat:
            self._set_reference(turn.reference_id, keep_pending=False)

    @property
    def target_revealed(self) -> bool:
        return self.reveal.isChecked()

    def _reshow_last_turn(self) -> None:
        if self.session is not None and self.session.turns:
            self._show_turn(self.session.turns[-1])

    def _show_question(self, question: Question | None) -> None:
        self.question = question
        while self.chips_row.count():
            item = self.chips_row.takeAt(0)
            if item.widget() is not None:
                item.widget().deleteLater()
        self.question_label.setText(question.text if question else "")
        if question is None:
            return
        for option in question.options[:6]:
            chip = QPushButton(option)
            chip.setToolTip("Answer with this")
            chip.clicked.connect(lambda _=False, o=option: self._answer_with(o))
            self.chips_row.addWidget(chip)
        self.chips_row.addStretch(1)

    def _answer_with(self, option: str) -> None:
        self.text.setText(option)
        self.run_turn()

    # -- rollback and combination ----------------------------------------------------

    def _rollback_menu(self) -> QMenu:
        menu = QMenu(self)
        turns = self.session.turns if self.session else []
        for turn in turns:
            word = ORDINAL_WORDS.get(turn.index, str(turn.index))
            action = QAction(f"Turn {turn.index}: {turn.text[:40]}", menu)
            action.triggered.connect(
                lambda _=False, w=word: self._prefix(f"I still prefer the item from the {w} turn, and")
            )
            menu.addAction(action)
        if not turns:
            menu.addAction("No earlier turns yet").setEnabled(False)
        return menu

    def _combine_menu(self) -> QMenu:
        menu = QMenu(self)
        turns = self.session.turns if self.session else []
        for turn in turns:
            word = ORDINAL_WORDS.get(turn.index, str(turn.index))
            sub = menu.addMenu(f"From turn {turn.index}")
            for facet in FACETS_TO_KEEP:
                action = QAction(f"keep the {facet}", sub)
                action.triggered.connect(
                    lambda _=False, f=facet, w=word: self._prefix(f"keep the {f} of the {w} turn and")
                )
                sub.addAction(action)
        if not turns:
            menu.addAction("No earlier turns yet").setEnabled(False)
        return menu

    def _show_menu(self, menu: QMenu) -> None:
        menu.popup(self.text.mapToGlobal(self.text.rect().bottomLeft()))

    def _prefix(self, phrase: str) -> None:
        current = self.text.text().strip()
        self.text.setText(f"{phrase} {current}".strip() + " ")
        self.text.setFocus()

    # -- reference and export --------------------------------------------------------

    def _set_reference(self, reference: str | None, keep_pending: bool = True) -> None:
        self.pending_reference = reference if keep_pending else None
        if reference is None:
            self.reference_view.setText("No reference yet")
            self.reference_view.setPixmap(QPixmap())
            self.reference_caption.setText("")
            return
        path = self._path_of(reference) or Path(reference)
        pixmap = QPixmap(str(path))
        if not pixmap.isNull():
            self.reference_view.setPixmap(pixmap.scaled(
                REFERENCE_SIZE, REFERENCE_SIZE, Qt.AspectRatioMode.KeepAspectRatio,
                Qt.TransformationMode.SmoothTransformation))
        project = self.workspace.project
        record = project.image(reference) if project else None
        self.reference_caption.setText(record.title if record else str(path.name))

    def _path_of(self, image_id: str) -> Path | None:
        project = self.workspace.project
        record = project.image(image_id) if project else None
        return project.image_path(record) if record else None

    def save_transaction(self) -> None:
        from studio.transactions.store import save_transactions

        project = self.workspace.project
        if project is None or self.recorder is None or self.recorder.session_id is None:
            return
        try:
            transaction = session_transaction(project, self.recorder.session_id)
            new, present = save_transactions(project, [transaction], self.workspace.user_name,
                                             "save session as transaction")
        except (StudioError, ValueError) as error:
            QMessageBox.warning(self, "Cannot save this session", str(error))
            return
        self.status.setText("Saved as a transaction." if new else "Already saved.")
