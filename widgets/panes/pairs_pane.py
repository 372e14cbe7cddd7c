"""Pairs: browse every pair with filters and search, see it side by side, mine or import.

The table is virtual (``PairTableModel`` fetches rows a page at a time), so it stays
smooth with 100,000 pairs. Imports and mining run as jobs in the status bar.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QItemSelection, Qt, QTimer
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListWidget,
    QMenu,
    QMessageBox,
    QPushButton,
    QSplitter,
    QStackedLayout,
    QTableView,
    QVBoxLayout,
    QWidget,
)
from qasync import asyncSlot

from studio.captions.store import captions_for_pair, load_policy
from studio.errors import StudioError
from studio.importers.registry import ImportFormat, import_format, import_formats
from studio.importers.validation import ImportValidationError, for_the_window
from studio.jobs import JobCancelled
from studio.pairs.mining import embedding_available, mine_pairs
from studio.pairs.query import STATUS_FILTERS, PairFilter, filter_choices
from studio.store import Project
from studio.wording import count, plural
from widgets import actions
from widgets.elided_label import ElidedLabel, WrappedLabel
from widgets.format_dialog import FormatDialog, fill_format_menu
from widgets.mine_dialog import MineDialog
from widgets.pair_model import PairTableModel
from widgets.pair_view import PairView
from widgets.panes.pane import Pane, empty_state
from widgets.project_signals import follow
from widgets.services import Services

SEARCH_DELAY_MS = 250
ROW_HEIGHT = 50

IMPORT_VALID = "Import the valid entries"


class PairsPane(Pane):
    title = "Pairs"
    tooltip = "Browse pairs with filters and search, side by side; mine and import pairs"

    def __init__(self, services: Services, parent: QWidget | None = None):
        super().__init__(services, parent)
        self.model = PairTableModel(self.thumbnails, self)
        self._stack = QStackedLayout(self)
        self._stack.addWidget(
            empty_state(
                "No project open",
                "Open a project, or create one and import Fashion IQ, CIRR or a "
                "folder of images from here.",
            )
        )
        self._stack.addWidget(self._build())
        self._search_timer = QTimer(self, singleShot=True, interval=SEARCH_DELAY_MS)
        self._search_timer.timeout.connect(self.apply_filters)
        follow(self, self.workspace, ("images", "pairs", "captions", "people", "settings"), self.reload)

    # -- layout ------------------------------------------------------------------------

    def _build(self) -> QWidget:
        content = QWidget()
        self.category = QComboBox()
        self.split = QComboBox()
        self.status = QComboBox()
        self.annotator = QComboBox()
        self.status.addItem("Any status", None)
        for key, label in STATUS_FILTERS.items():
            self.status.addItem(label.capitalize(), key)
        for box in (self.category, self.split, self.status, self.annotator):
            box.currentIndexChanged.connect(self.apply_filters)
        self.search = QLineEdit()
        self.search.setPlaceholderText("Search…")
        self.search.setToolTip(
            actions.tooltip("pairs.search", "Search by pair number, image id or product title"))
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(lambda _: self._search_timer.start())
        self.count_label = ElidedLabel()
        self.mine_button = QPushButton("Mine pairs…")
        self.mine_button.setToolTip("Pair target images with references by TF-IDF or embeddings")
        self.mine_button.clicked.connect(lambda: self.mine_dialog())
        # A push button with a menu: its size includes the menu arrow, so the text stays whole.
        self.import_button = QPushButton("Import…")
        self.import_button.setToolTip("Import a dataset: every format File → Import and "
                                      "'cir-studio import' read")
        menu = QMenu(self.import_button)
        fill_format_menu(menu, import_formats(), self.open_import)
        self.import_button.setMenu(menu)
        bar = QHBoxLayout()
        for widget in (self.category, self.split, self.status, self.annotator):
            bar.addWidget(widget)
        bar.addWidget(self.search, 1)
        bar.addWidget(self.count_label)
        bar.addWidget(self.mine_button)
        bar.addWidget(self.import_button)

        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setWordWrap(False)
        self.table.setIconSize(self.thumbnails.placeholder(44).size())
        # The pair number is the row header, so it stays in view when the columns scroll;
        # the "Pair" column itself is hidden.
        self.table.verticalHeader().setDefaultAlignment(
            Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
        )
        self.table.verticalHeader().setToolTip("Pair number")
        # Fixed row heights: the view never measures rows, which is what keeps it fast.
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.table.verticalHeader().setDefaultSectionSize(ROW_HEIGHT)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        for column, width in enumerate((60, 220, 220, 80, 60, 70, 140, 110)):
            header.resizeSection(column, width)
        self.table.setColumnHidden(0, True)
        self.table.selectionModel().selectionChanged.connect(self._on_selection)

        self.view = PairView(self.thumbnails)
        self.view.install_zoom_keys(content)
        self.captions = QListWidget()
        self.captions.setMaximumHeight(130)
        self.message = WrappedLabel()
        self.message.setWordWrap(True)
        self.no_match = WrappedLabel()
        self.no_match.setObjectName("emptyStateDetail")
        self.no_match.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.no_match.setWordWrap(True)
        self.no_match.hide()
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addWidget(self.view, 1)
        right_layout.addWidget(QLabel("Captions"))
        right_layout.addWidget(self.captions)
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(self.table, 1)
        left_layout.addWidget(self.no_match)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(left)
        splitter.addWidget(right)
        splitter.setSizes([560, 640])
        layout = QVBoxLayout(content)
        layout.addLayout(bar)
        layout.addWidget(splitter, 1)
        layout.addWidget(self.message)
        actions.bind(content, "pairs.search", self.search.setFocus)
        return content

    # -- project and filters -----------------------------------------------------------

    def focus_widget(self) -> QWidget | None:
        return self.table

    def show_project(self, project: Project | None) -> None:
        self.message.clear()  # "Added 50 tfidf pairs." belongs to the project it was said in
        self.message.setToolTip("")
        if project is None:
            self.model.load(None)
            self.view.clear()
            self._stack.setCurrentIndex(0)
            return
        self._stack.setCurrentIndex(1)
        self.reload()

    def reload(self) -> None:
        """Refill the filter menus and the list (after an import, mining or captions)."""
        project = self.workspace.project
        if project is None:
            return
        choices = filter_choices(project)
        for box, key, any_label in (
            (self.category, "category", "All categories"),
            (self.split, "split", "All splits"),
            (self.annotator, "annotator", "Any annotator"),
        ):
            current = box.currentData()
            box.blockSignals(True)
            box.clear()
            box.addItem(any_label, None)
            for value in choices[key]:
                box.addItem(value or "(none)", value)
            box.setCurrentIndex(max(0, box.findData(current)) if current is not None else 0)
            box.blockSignals(False)
        self.apply_filters()

    def current_filter(self) -> PairFilter:
        return PairFilter(
            category=self.category.currentData(),
            split=self.split.currentData(),
            status=self.status.currentData(),
            annotator=self.annotator.currentData(),
            search=self.search.text(),
        )

    def apply_filters(self) -> None:
        project = self.workspace.project
        if project is None:
            return
        selected = self.selected_pair_id()
        self.model.load(project, self.current_filter(), load_policy(project))
        total = project.table_counts()["pairs"]
        shown = self.model.rowCount()
        self.count_label.setText(
            f"{shown:,} of {count(total, 'pair')}" if shown != total else count(total, "pair")
        )
        self._show_no_match(shown, total)
        row = self.model.row_of(selected) if selected is not None else -1
        self.select_row(row if row >= 0 else 0)

    def _show_no_match(self, shown: int, total: int) -> None:
        """The empty states of the list: no pairs at all, or none that match the filters."""
        if shown:
            self.no_match.hide()
            return
        if total:
            self.no_match.setText(
                "No pair matches these filters and search. Clear the search or choose "
                "“All” in the filters to see the other pairs."
            )
        else:
            self.no_match.setText(
                "No pairs yet: Mine pairs… pairs images of the same category, or Import… "
                "reads Fashion IQ, CIRR or a folder of images."
            )
        self.no_match.show()

    def select_row(self, row: int) -> None:
        if 0 <= row < self.model.rowCount():
            self.table.selectRow(row)
            self.table.scrollTo(self.model.index(row, 0))
        else:
            self.view.clear()
            self.captions.clear()

    def selected_pair_id(self) -> int | None:
        rows = self.table.selectionModel().selectedRows() if self.table.selectionModel() else []
        if not rows or rows[0].row() >= len(self.model.ids):
            return None
        return self.model.ids[rows[0].row()]

    def _on_selection(self, selected: QItemSelection, _deselected: QItemSelection) -> None:
        project = self.workspace.project
        pair = self.model.row_at(selected.indexes()[0].row()) if selected.indexes() else None
        if project is None or pair is None:
            return
        self.view.show_pair(project, pair.reference_id, pair.target_id)
        self.captions.clear()
        for caption in captions_for_pair(project, pair.id):
            if caption.status == "draft":
                continue
            reason = f" — {caption.reject_reason}" if caption.reject_reason else ""
            self.captions.addItem(
                f"{caption.text}    [{caption.status}, {caption.author or '?'}{reason}]"
            )
        if not self.captions.count():
            self.captions.addItem("No captions yet.")

    # -- jobs --------------------------------------------------------------------------

    def mine_dialog(self) -> None:
        project = self.workspace.project
        if project is None:
            return
        categories = sorted(c for c in project.categories() if c)
        dialog = MineDialog(categories, ["train", "val", "test"], embedding_available(), self)
        if dialog.exec() == MineDialog.DialogCode.Accepted:
            self._start_mining(**dialog.values())

    @asyncSlot()
    async def _start_mining(
        self, method: str, count: int, category: str | None, split: str | None, mirrored: bool
    ) -> None:
        await self.mine(method, count, category, split, mirrored)

    async def mine(
        self,
        method: str,
        count: int,
        category: str | None = None,
        split: str | None = None,
        mirrored: bool = False,
    ):
        project = self.workspace.project
        if project is None:
            return None
        try:
            settings = self.workspace.settings
            report = await self.runner.run(
                "Mining pairs",
                mine_pairs,
                project,
                method,
                count,
                category=category,
                split=split,
                actor=self.workspace.user_name,
                model=settings.model,
                device=settings.device,
                mirrored=mirrored,
            )
        except JobCancelled:
            self.message.setText("Mining cancelled; nothing was added.")
            return None
        except StudioError as error:
            self.show_error("Cannot mine pairs", str(error))
            return None
        self.message.setText(f"Added {report.added:,} {plural(f'{method} pair', report.added)}.")
        return report

    def open_import(self, name: str) -> FormatDialog | None:
        """File → Import → NAME: the format's options in one dialog; OK runs the import."""
        if self.workspace.project is None:
            return None
        dialog = FormatDialog(import_format(name), "Import", self.workspace.settings, self)
        dialog.accepted.connect(lambda: self._import_valid(name, dialog.values()))
        dialog.open()
        self.format_dialog = dialog
        return dialog

    async def run_import(
        self, kind: str, root: Path, extra: Path | None = None, skip_invalid: bool = False
    ):
        """``import_values`` with the input ``root`` and the format's first optional path
        (the pictures folder, or the metadata file of a folder of images) ``extra``."""
        fmt = import_format(kind)
        values: dict[str, object] = {fmt.input.name: root}
        if extra is not None:
            second = next(o for o in fmt.options if o.flag and o.kind in ("file", "folder"))
            values[second.name] = extra
        if fmt.skips_invalid:
            values["skip_invalid"] = skip_invalid
        return await self.import_values(kind, values)

    async def import_values(self, name: str, values: dict):
        """Import as a job; on validation problems offer to import the valid entries."""
        project = self.workspace.project
        if project is None:
            return None
        fmt = import_format(name)
        try:
            report = await self.runner.run(
                f"Importing {fmt.title}", fmt.run, project, values,
                actor=self.workspace.user_name,
            )
        except JobCancelled:
            self.message.setText("Import cancelled; nothing was written.")
            return None
        except ImportValidationError as error:
            if fmt.skips_invalid:
                self._offer_skip(fmt, values, error)
            else:
                self.show_error("Import refused", str(error))
            return None
        except StudioError as error:
            self.show_error("Cannot import", str(error))
            return None
        outcome = fmt.outcome(report)
        self.message.setToolTip("\n".join(outcome.details))
        self.message.setText(outcome.message)
        return report

    def _offer_skip(self, fmt: ImportFormat, values: dict, error: ImportValidationError) -> None:
        self.message.setText(for_the_window(str(error), f"“{IMPORT_VALID}” imports the rest"))
        box = QMessageBox(
            QMessageBox.Icon.Warning,
            "Import refused",
            f"{count(len(error.problems), 'problem')}; nothing was written. "
            f"“{IMPORT_VALID}” imports the rest and skips the bad ones (see the details).",
            parent=self,
        )
        box.setDetailedText("\n".join(str(p) for p in error.problems))
        skip = box.addButton(IMPORT_VALID, QMessageBox.ButtonRole.AcceptRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.buttonClicked.connect(
            lambda button: self._import_valid(fmt.name, {**values, "skip_invalid": True})
            if button is skip else None
        )
        box.open()
        self.problem_box = box

    @asyncSlot()
    async def _import_valid(self, name: str, values: dict) -> None:
        await self.import_values(name, values)

    def show_error(self, title: str, text: str) -> None:
        self.message.setText(text)
        box = QMessageBox(QMessageBox.Icon.Critical, title, text, parent=self)
        box.open()

