"""Retrieval: composed multi-turn and chat sessions against the project's index.

A view over ``studio.sessions.controller.RetrievalController``, which holds every rule
(target and reference choice, the gallery, turns, phrases, recording, export). Loading
the model and index, building it, and every turn run as jobs on the window's runner, so
the window never freezes.
"""

from __future__ import annotations

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
    QStackedWidget,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)
from qasync import asyncSlot
from shiboken6 import isValid

from studio.errors import StudioError
from studio.jobs import JobCancelled
from studio.sessions.controller import (
    ALL_CATEGORIES,
    COMPOSED_PROMPT,
    REFERENCE_CATEGORY,
    RetrievalController,
    SessionOptions,
)
from studio.sessions.engine import RetrievalSession, SessionTurn
from studio.sessions.questioner import Question
from studio.sessions.strategies import DEFAULT_STRATEGY, STRATEGIES, strategy_names
from studio.store import Project
from widgets.experiments_view import ExperimentsView
from widgets.flow_layout import FlowLayout
from widgets.panes.pane import Pane, empty_state
from widgets.project_signals import follow
from widgets.result_grid import ResultGrid
from widgets.services import Services
from widgets.session_timeline import SessionTimeline

REFERENCE_SIZE = 180
TARGET_SIZE = 96
FIRST_TURN_HINT = ("No results yet. Type how the item you want differs from the reference "
                   "and press Enter; pick a result (Alt+1 … Alt+9) to carry it forward.")
FIRST_CHAT_HINT = ("No results yet. Describe what you look for and press Enter; the "
                   "system then asks about what would narrow the results down.")
BUILD_TOOLTIP = ("Embed the project's images with the active model and build its search "
                 "index (a cancellable job); a project without attribute labels first gets "
                 "them from its product text")


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
        self.experiments = ExperimentsView(workspace, runner)
        tabs.addTab(self.experiments, "Experiments")
        self.tabs = tabs
        self._stack = QStackedLayout(search)
        self._stack.addWidget(empty_state("No project open",
                                          "Open a project (or the demo) to search it."))
        self._stack.addWidget(self._build_loader())
        self._stack.addWidget(self._build_session_view())
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
        self.build_button.setToolTip(BUILD_TOOLTIP)
        self._building = False
        self.build_button.clicked.connect(self.build_index)
        self.folder_button = QPushButton("Set image folder…")
        self.folder_button.setToolTip("Point the project at the folder that holds its picture "
                                      "files and check every image again (File menu too)")
        self.folder_button.clicked.connect(self._set_image_folder)
        self.folder_button.hide()
        row.addWidget(self.load_button)
        row.addWidget(self.build_button)
        row.addWidget(self.folder_button)
        row.addStretch(1)
        layout.addLayout(row)
        layout.addStretch(2)
        return page

    def _build_session_view(self) -> QWidget:
        page = QWidget()
        layout = QVBoxLayout(page)
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
        self.gallery = QComboBox()
        self.gallery.setToolTip("Which images are searched. By default the reference's "
                                "category, as the simulations search")
        self.gallery.currentIndexChanged.connect(self._gallery_changed)
        self.secret_target = QCheckBox("Secret target")
        self.secret_target.setChecked(True)
        self.secret_target.setToolTip("Pick a hidden target from the gallery and show its rank "
                                      "after every turn")
        self.new_button = QPushButton("New session")
        self.new_button.setToolTip("Start over with a new random target (Ctrl+Shift+N)")
        self.new_button.clicked.connect(self.new_session)
        # The gallery combo shows its whole choice; the bar wraps to a second row in a
        # narrow window instead of cutting texts (each label stays with its control).
        self.gallery.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        bar = FlowLayout()
        for label, widget in (("Mode", self.mode), ("Strategy", self.strategy),
                              ("Show", self.top_k), ("Gallery", self.gallery)):
            group = QWidget()
            group_layout = QHBoxLayout(group)
            group_layout.setContentsMargins(0, 0, 0, 0)
            group_layout.addWidget(QLabel(label))
            group_layout.addWidget(widget)
            bar.addWidget(group)
        bar.addWidget(self.secret_target)
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
        self.random_reference.setToolTip("Start from a random image of the target's category")
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
        left_layout.addWidget(self._build_target_box())
        left_layout.addWidget(QLabel("Timeline"))
        self.timeline = SessionTimeline()
        left_layout.addWidget(self.timeline, 1)
        self.export_button = QPushButton("Save as transaction")
        self.export_button.setToolTip("Store this session as a FashionMT-style transaction "
                                      "(dataset 'sessions') for rating in the Quality pane; "
                                      "available once a composed turn has run")
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
        self.question_label.setWordWrap(True)
        right_layout.addWidget(self.question_label)
        self.chips_row = QHBoxLayout()
        right_layout.addLayout(self.chips_row)
        # The prompt sits above the field, so the field keeps its width at 1024 px.
        self.prompt = QLabel(COMPOSED_PROMPT)
        right_layout.addWidget(self.prompt)
        text_row = QHBoxLayout()
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
        self.status.setWordWrap(True)
        right_layout.addWidget(self.status)
        self.results = ResultGrid(self.thumbnails, self._path_of)
        self.results.chosen.connect(self.choose_result)
        self.first_turn_hint = QLabel(FIRST_TURN_HINT)
        self.first_turn_hint.setObjectName("emptyStateDetail")
        self.first_turn_hint.setWordWrap(True)
        self.first_turn_hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.result_stack = QStackedWidget()
        self.result_stack.addWidget(self.first_turn_hint)
        self.result_stack.addWidget(self.results)
        right_layout.addWidget(self.result_stack, 1)
        splitter.addWidget(right)
        splitter.setSizes([300, 900])
        layout.addWidget(splitter, 1)
        self.mode.currentIndexChanged.connect(lambda _i: self.new_session())
        self.setAcceptDrops(True)
        return page

    def _build_target_box(self) -> QWidget:
        """The secret target's rank, and (revealed) its thumbnail, wherever it ranks."""
        box = QWidget()
        layout = QVBoxLayout(box)
        layout.setContentsMargins(0, 4, 0, 4)
        row = QHBoxLayout()
        self.target_label = QLabel("")
        self.target_label.setObjectName("paneHeading")
        # One line: "Target rank: 278 (was 423)" never wraps; the column makes room for it.
        self.target_label.setWordWrap(False)
        row.addWidget(self.target_label, 1)
        layout.addLayout(row)
        self.reveal = QCheckBox("Reveal")
        self.reveal.setToolTip("Show the secret target, its rank and mark it in the results")
        self.reveal.toggled.connect(self._show_target)
        self.target_view = QLabel()
        self.target_view.setFixedSize(TARGET_SIZE, TARGET_SIZE)
        self.target_view.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.target_view.setStyleSheet("background: #f3f4f6; border: 2px solid #34a853;")
        self.target_text = QLabel("")
        self.target_text.setWordWrap(True)
        reveal_row = QHBoxLayout()  # Reveal under the rank, so the rank has the full width
        reveal_row.addWidget(self.reveal, 0, Qt.AlignmentFlag.AlignTop)
        reveal_row.addWidget(self.target_view)
        reveal_row.addWidget(self.target_text, 1)
        layout.addLayout(reveal_row)
        self.target_view.hide()
        self.target_text.hide()
        return box

    def _shortcuts(self) -> None:
        self._session_keys: list[QShortcut] = []
        for number in range(1, 10):
            shortcut = QShortcut(QKeySequence(f"Alt+{number}"), self)
            shortcut.activated.connect(lambda n=number: self._choose_row(n - 1))
            self._session_keys.append(shortcut)
        self._session_keys += [
            QShortcut(QKeySequence("Ctrl+R"), self, lambda: self._show_menu(self._rollback_menu())),
            QShortcut(QKeySequence("Ctrl+M"), self, lambda: self._show_menu(self._combine_menu())),
            QShortcut(QKeySequence("Ctrl+Shift+N"), self, self.new_session),
        ]

    def _set_turn_running(self, running: bool) -> None:
        """While a turn searches, nothing that would change the session can be used (a
        second Enter, Alt+1, New session, another reference or gallery)."""
        self._turn_running = running
        chat = self.is_chat
        for widget in (self.text, self.new_button, self.mode, self.strategy, self.gallery,
                       self.secret_target, self.results, self.export_button):
            widget.setEnabled(not running)
        for widget in (self.random_reference, self.gallery_reference, self.file_reference,
                       self.rollback_button, self.combine_button):
            widget.setEnabled(not running and not chat)
        for index in range(self.chips_row.count()):
            chip = self.chips_row.itemAt(index).widget()
            if chip is not None:
                chip.setEnabled(not running)
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
            self._describe_index(project)

    def _describe_index(self, project: Project) -> None:
        """The loader's empty state says whether an index exists for the active model."""
        from studio.picture_files import no_pictures_message
        from studio.sessions.preparation import index_summary
        from widgets.image_folder_action import missing_pictures_line

        model = self.workspace.settings.model
        summary = index_summary(project, model)
        refusal = self._offer_build(project)
        missing = missing_pictures_line(project)
        self.folder_button.setVisible(bool(missing) and not project.read_only)
        no_pictures = no_pictures_message(project)
        if no_pictures:  # nothing to embed or search: say why and how to fix it
            self.loader_text.setText(no_pictures)
            self.build_button.setEnabled(False)
            self.build_button.setToolTip(no_pictures)
        elif summary:
            self.loader_text.setText(f"{summary} Load it to start searching. {missing}".strip())
        elif refusal:
            self.loader_text.setText(f"This project has no index for '{model}'. {refusal}")
        else:
            self.loader_text.setText(
                f"This project has no index for '{model}' yet: Build index… embeds its images "
                "(and reads attributes from the product text if it has none). "
                + (f"{missing} They are skipped." if missing else "")
            )
        self.load_button.setEnabled(summary is not None)
        self.load_button.setDefault(summary is not None)

    def _offer_build(self, project: Project) -> str | None:
        """Build index… only where an index can be written; the tooltip says why not."""
        from studio.index_service import index_build_refusal

        refusal = index_build_refusal(project)
        self.build_button.setEnabled(refusal is None and not self._building)
        self.build_button.setToolTip(refusal or BUILD_TOOLTIP)
        return refusal

    def _project_data_changed(self) -> None:
        project = self.workspace.project
        if project is None or self._building:
            return  # the build in progress says what it does
        if self.controller is None and self._stack.currentIndex() == 1:
            self._describe_index(project)

    @asyncSlot()
    async def load_context(self, message: str = "") -> None:
        from studio.sessions.setup import load_session_context

        project = self.workspace.project
        if project is None:
            return
        settings = self.workspace.settings
        try:
            context = await self.runner.run(
                "Loading model and index", load_session_context, project, settings.model,
                self.services.device,
            )
        except JobCancelled:
            return
        except (StudioError, OSError) as error:  # said where the person looks, not dropped
            self.loader_text.setText(str(error))
            return
        if len(context.index) == 0:  # an index built before the pictures were there
            from studio.picture_files import no_pictures_message

            self.loader_text.setText(
                no_pictures_message(project) or
                f"The index for '{settings.model}' holds no images: build it again "
                "(Build index…) once the project's picture files are in place.")
            return
        self.controller = RetrievalController(context, self.workspace.user_name)
        self._fill_gallery_choices()
        for name in strategy_names(context.combiner_source())[len(STRATEGIES):]:
            if self.strategy.findData(name) < 0:  # combiners trained for this model
                self.strategy.addItem(name, name)
        self._stack.setCurrentIndex(2)
        self.new_session()
        if message:
            self.status.setText(message)

    @asyncSlot()
    async def build_index(self) -> None:
        from studio.sessions.preparation import prepare_retrieval

        project = self.workspace.project
        if project is None:
            return
        settings = self.workspace.settings
        self._building = True
        self.build_button.setEnabled(False)
        try:
            prepared = await self.runner.run(
                "Building the index", prepare_retrieval, project, settings.model,
                self.services.device,
                actor=self.workspace.user_name,
            )
        except JobCancelled:
            self.loader_text.setText("Index build cancelled; what was embedded is kept.")
            return
        except (StudioError, OSError) as error:  # one clear line where the button is
            self.loader_text.setText(str(error))
            return
        finally:
            self._building = False
            self._offer_build(project)
        summary = prepared.summary()
        self.loader_text.setText(f"{summary} Loading …")
        window = self.window()
        if hasattr(window, "statusBar"):
            window.statusBar().showMessage(summary, 15000)
        await self.load_context(summary)

    # -- sessions --------------------------------------------------------------------

    def _options(self) -> SessionOptions:
        return SessionOptions(
            mode="chat" if self.mode.currentIndex() == 1 else "composed",
            strategy=self.strategy.currentData(), k=self.top_k.value(),
            secret_target=self.secret_target.isChecked(),
            gallery=self.gallery.currentData() or REFERENCE_CATEGORY,
        )

    def _fill_gallery_choices(self) -> None:
        self.gallery.blockSignals(True)
        self.gallery.clear()
        self.gallery.addItem("Reference's category", REFERENCE_CATEGORY)
        self.gallery.addItem("All images", ALL_CATEGORIES)
        for category in self.controller.categories() if self.controller else []:
            self.gallery.addItem(category, category)
        self.gallery.blockSignals(False)

    def new_session(self) -> None:
        controller = self.controller
        if controller is None:
            return
        try:
            controller.start(self._options())
        except StudioError as error:
            self.status.setText(str(error))
            return
        self.text.clear()  # a composed text means nothing to a chat, and back
        self.prompt.setText(controller.prompt)
        self.results.clear()
        self.timeline.clear()
        self.first_turn_hint.setText(FIRST_CHAT_HINT if controller.is_chat else FIRST_TURN_HINT)
        self.result_stack.setCurrentWidget(self.first_turn_hint)
        self._show_question(None)
        # A new secret target starts hidden: Reveal applies to the session it was ticked in.
        self.reveal.blockSignals(True)
        self.reveal.setChecked(False)
        self.reveal.blockSignals(False)
        self.status.setText(controller.gallery_text() + ".")
        chat = controller.is_chat
        for widget in (self.random_reference, self.gallery_reference, self.file_reference,
                       self.rollback_button, self.combine_button):
            widget.setEnabled(not chat)
        self._show_reference()
        self._show_target()
        self.text.setFocus()

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

    def _set_image_folder(self) -> None:
        action = getattr(self.window(), "image_folder", None)
        if action is not None:
            action.choose()

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
        self.target_label.setText(
            controller.rank_text(revealed=self.reveal.isChecked()) if controller else "")
        self.reveal.setEnabled(controller is not None and controller.target_id is not None)
        view = controller.revealed_target() if controller else None
        shown = view is not None and self.reveal.isChecked()
        self.target_view.setVisible(shown)
        self.target_text.setVisible(shown)
        if not shown or view is None:
            return
        self.target_text.setText(view.text())
        path = self._path_of(view.image_id)
        if path is None:
            self.target_view.setText(view.image_id)
        else:  # decoded on the IO lane; a placeholder until then (see _picture_ready)
            self.target_view.setPixmap(self.thumbnails.get(path, TARGET_SIZE))
        if controller is not None and controller.last_turn is not None:
            turn = controller.last_turn
            self.results.show_hits(
                [(h.id, h.score) for h in turn.results[: self.top_k.value()]], view.image_id,
                controller.correct_ids())

    def _show_question(self, question: Question | None) -> None:
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
        self.text.setFocus()  # a click moved the focus to the chip; typing goes on here
        self.run_turn()

    # -- rollback and combination ----------------------------------------------------

    def _rollback_menu(self) -> QMenu:
        menu = QMenu(self)
        choices = self.controller.rollback_choices() if self.controller else []
        for label, phrase in choices:
            action = QAction(label, menu)
            action.triggered.connect(lambda _=False, p=phrase: self._prefix(p))
            menu.addAction(action)
        if not choices:
            menu.addAction("No earlier turns yet").setEnabled(False)
        return menu

    def _combine_menu(self) -> QMenu:
        menu = QMenu(self)
        choices = self.controller.keep_choices() if self.controller else []
        for index, facets in choices:
            sub = menu.addMenu(f"From turn {index}")
            for label, phrase in facets:
                action = QAction(label, sub)
                action.triggered.connect(lambda _=False, p=phrase: self._prefix(p))
                sub.addAction(action)
        if not choices:
            menu.addAction("No earlier turns yet").setEnabled(False)
        return menu

    def _show_menu(self, menu: QMenu) -> None:
        menu.popup(self.text.mapToGlobal(self.text.rect().bottomLeft()))

    def _prefix(self, phrase: str) -> None:
        self.text.setText(RetrievalController.with_phrase(phrase, self.text.text()))
        self.text.setFocus()

    # -- reference and export --------------------------------------------------------

    def _show_reference(self) -> None:
        controller = self.controller
        reference = controller.reference if controller else None
        self.export_button.setEnabled(controller is not None and
                                      controller.can_save_transaction())
        if reference is None:
            self.reference_view.setPixmap(QPixmap())
            self.reference_view.setText("No reference" if self.is_chat else "No reference yet")
            self.reference_caption.setText("")
            return
        path = self._path_of(reference) or Path(reference)
        # Decoded on the IO lane; a placeholder until then (see _picture_ready).
        self.reference_view.setPixmap(self.thumbnails.get(path, REFERENCE_SIZE))
        project = self.workspace.project
        record = project.image(reference) if project else None
        self.reference_caption.setText(record.title if record else str(path.name))

    def _picture_ready(self, path: str, size: int) -> None:
        """A reference or target picture asked for above was decoded: draw it now."""
        controller = self.controller
        if controller is None:
            return
        if size == REFERENCE_SIZE and controller.reference is not None:
            reference = self._path_of(controller.reference) or Path(controller.reference)
            if str(reference) == path:
                self._show_reference()
        target = controller.target_id
        visible = size == TARGET_SIZE and target is not None and self.target_view.isVisible()
        if visible and str(self._path_of(target)) == path:
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


def _turn_job(controller: RetrievalController, text: str):
    """The turn's search as a job: it reads the session and changes nothing."""

    def job(*, progress, cancel):
        return controller.plan_turn(text)

    return job
