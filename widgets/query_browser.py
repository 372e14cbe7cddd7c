"""Retrieval → Experiments → a run → Queries…: the run's queries worst first, filtered
and sorted, with one query shown beside the list; *Compare with…* another run of the same
protocol shows both ranks and the change, with wins, losses, ties and the paired interval
in the header. The per-query file is read on the IO lane."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QItemSelectionModel, Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from studio.errors import StudioError
from studio.experiments.compare import compare_runs
from studio.experiments.query_list import QueryList, chat_rounds
from studio.experiments.query_log import NO_QUERIES, QueryTable, run_queries
from studio.stopped_runs import stopped_text
from widgets.query_detail_view import QueryDetailView
from widgets.query_table_model import QueryTableModel

ALL = "all categories"
OPEN_TIP = ("A session in Retrieval → Search from this query: its reference, its target to "
            "find and its captions to run (a dialog's turns, a chat's rounds, run again one "
            "by one), then on by hand")
NO_CHAT_REPLAY = ("Open in Retrieval is not available for this chat: its run was stored "
                  "before chat questions and answers were kept (run it again to replay it).")


def query_table_view() -> QTableView:
    """The list's table: whole rows selected, no row header, one line per row."""
    view = QTableView()
    view.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
    view.setSelectionMode(QTableView.SelectionMode.SingleSelection)
    view.verticalHeader().setVisible(False)
    view.verticalHeader().setDefaultSectionSize(22)
    view.setWordWrap(False)
    return view


class QueryBrowser(QDialog):
    #: the query under the cursor, for Retrieval → Search: {"run", "query", "reference",
    #: "target", "texts", "references", "questions", "answers", "ranks", "category",
    #: "strategy", "dialog", "kind"}
    open_in_retrieval = Signal(object)
    def __init__(self, services: Any, run: dict[str, Any], others: list[dict[str, Any]],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.services = services
        self.workspace = services.workspace
        self.run = run
        self.others = [o for o in others if o["kind"] == run["kind"] and o["id"] != run["id"]]
        self.scope = services.scope(self)
        self.table: QueryTable | None = None
        self.other_table: QueryTable | None = None
        self.model: QueryTableModel | None = None
        self.single_list: QueryList | None = None
        self.current: dict[str, Any] | None = None
        self.setWindowTitle(f"Queries of run #{run['id']} "
                            f"{run['summary'].get('label', run['kind'])}")
        self.resize(1100, 700)
        layout = QVBoxLayout(self)
        self.header = QLabel("Reading the run's queries…")
        self.header.setWordWrap(True)
        layout.addWidget(self.header)
        bar = QHBoxLayout()
        self.miss_at = QSpinBox()
        self.miss_at.setRange(0, 1000)
        self.miss_at.setSpecialValueText("all")
        self.miss_at.setPrefix("misses at ")
        self.miss_at.setToolTip("Only the queries whose target is not within the top K "
                                "(run B's with a comparison); 'all' shows every query")
        self.category = QComboBox()
        self.category.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.contains = QLineEdit()
        self.contains.setPlaceholderText("text contains…")
        self.contains.setClearButtonEnabled(True)
        self.compare_with = QComboBox()
        self.compare_with.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.compare_with.addItem("Compare with…", None)
        for other in self.others:
            self.compare_with.addItem(
                f"#{other['id']} {other['summary'].get('label', other['kind'])}", other["id"])
        self.compare_with.setEnabled(bool(self.others))
        self.compare_with.setToolTip("Another run of the same protocol: both ranks and the "
                                     "change per query, wins, losses and the paired interval")
        self.at = QSpinBox()
        self.at.setRange(1, 1000)
        self.at.setValue(10)
        self.at.setPrefix("at K = ")
        self.at.setToolTip("K of the comparison's wins, losses and Recall@K interval")
        for widget in (self.miss_at, self.category, self.contains):
            bar.addWidget(widget)
        bar.addStretch(1)
        bar.addWidget(self.compare_with)
        bar.addWidget(self.at)
        self.single = QPushButton("This run only")
        self.single.setEnabled(False)
        bar.addWidget(self.single)
        self.open_retrieval = QPushButton("Open in Retrieval")
        self.open_retrieval.setEnabled(False)
        self.open_retrieval.setToolTip(OPEN_TIP)
        bar.addWidget(self.open_retrieval)
        layout.addLayout(bar)
        splitter = QSplitter()
        self.view = query_table_view()
        splitter.addWidget(self.view)
        self.detail = QueryDetailView(services.thumbnails, self._path_of)
        splitter.addWidget(self.detail)
        splitter.setSizes([560, 540])
        layout.addWidget(splitter, 1)
        self.miss_at.valueChanged.connect(lambda _v: self._filter())
        self.category.currentIndexChanged.connect(lambda _i: self._filter())
        self.contains.textChanged.connect(lambda _t: self._filter())
        self.compare_with.currentIndexChanged.connect(lambda _i: self._compare())
        self.at.valueChanged.connect(lambda _v: self._compare())
        self.single.clicked.connect(lambda: self.compare_with.setCurrentIndex(0))
        self.open_retrieval.clicked.connect(self._open_in_retrieval)
        self._read(run["id"], self._loaded)

    def _path_of(self, image_id: str):
        project = self.workspace.project
        record = project.image(image_id) if project else None
        return project.image_file(record) if record else None

    def _read(self, run_id: int, done) -> None:
        project = self.workspace.project

        def read() -> tuple[QueryTable, QueryList] | None:
            # The list (its cells as Python lists) is built here too, off the UI thread.
            table = run_queries(project, run_id)
            return None if table is None else (table, QueryList(table))

        self.scope.submit(self.services.io, read, done=done,
                          failed=lambda error: self.header.setText(
                              f"The run's queries could not be read: {error}"))

    def _loaded(self, result: tuple[QueryTable, QueryList] | None) -> None:
        if result is None:
            self.header.setText(f"Run #{self.run['id']}: {NO_QUERIES}.")
            self.compare_with.setEnabled(False)
            return
        self.table, self.single_list = result
        self._show(self.single_list)

    def _show(self, queries: QueryList) -> None:
        self.model = QueryTableModel(queries, self)
        self.scope.submit(self.services.io, queries.prepare)
        self.view.setSortingEnabled(False)
        self.view.setModel(self.model)
        column, descending = queries.default_sort()
        self.view.horizontalHeader().setSortIndicator(
            column, Qt.SortOrder.DescendingOrder if descending else Qt.SortOrder.AscendingOrder)
        self.view.setSortingEnabled(True)
        self.view.selectionModel().currentRowChanged.connect(lambda now, _old: self._pick(now))
        current = self.category.currentText()
        self.category.blockSignals(True)
        self.category.clear()
        self.category.addItems([ALL, *queries.categories])
        self.category.setCurrentText(current if current in queries.categories else ALL)
        self.category.blockSignals(False)
        self.view.horizontalHeader().setStretchLastSection(True)
        for number, column_info in enumerate(queries.columns):
            if column_info.name != "text":
                self.view.resizeColumnToContents(number)
        self._filter()

    def _filter(self) -> None:
        if self.model is None:
            return
        category = self.category.currentText()
        self.model.set_filter(self.miss_at.value() or None,
                              None if category in ("", ALL) else category,
                              self.contains.text())
        stopped = stopped_text(self.run["summary"])
        self.header.setText(self.model.queries.header() + (f"\n{stopped}" if stopped else ""))
        if self.model.rowCount():
            self.view.selectionModel().setCurrentIndex(
                self.model.index(0, 0), QItemSelectionModel.SelectionFlag.ClearAndSelect
                | QItemSelectionModel.SelectionFlag.Rows)
            self.view.scrollToTop()

    def _pick(self, index) -> None:
        if self.model is None or self.table is None or not index.isValid():
            self.open_retrieval.setEnabled(False)
            return
        queries = self.model.queries
        row = self.table.row(queries.table_row(index.row()))
        self.current = row
        chat = self.table.is_dialog() and not row.get("reference")
        replayable = bool(chat_rounds(row)) if chat else bool(row.get("reference"))
        self.open_retrieval.setEnabled(replayable)
        self.open_retrieval.setToolTip(OPEN_TIP if replayable or not chat else NO_CHAT_REPLAY)
        other_row = queries.other_row(index.row())
        other = None if other_row is None or self.other_table is None else \
            self.other_table.row(other_row)
        self.detail.show_query(row, self.table.kind, self.table.first_turn, other)
        if chat and not replayable:
            self.detail.lines.setText(f"{self.detail.lines.text()}\n{NO_CHAT_REPLAY}")

    def _open_in_retrieval(self) -> None:
        row = self.current
        if row is None or self.table is None:
            return
        config = self.run["summary"].get("config") or {}
        self.open_in_retrieval.emit({
            "run": self.run["id"], "query": row["query"], "reference": row.get("reference"),
            "target": row.get("target"), "texts": list(row.get("texts") or []),
            "references": list(row.get("references") or []),
            "questions": list(row.get("questions") or []),
            "answers": list(row.get("answers") or []), "kind": self.table.kind,
            "ranks": list(row.get("ranks") or []), "category": row.get("category") or None,
            "strategy": config.get("strategy") or self.run["summary"].get("strategy"),
            "dialog": self.table.is_dialog()})

    def _compare(self) -> None:
        other_id = self.compare_with.currentData()
        self.single.setEnabled(other_id is not None)
        if self.table is None:
            return
        if other_id is None:
            self.other_table = None
            if self.single_list is not None:
                self._show(self.single_list)
            return
        self.header.setText(f"Comparing with run #{other_id}…")
        project, table, k = self.workspace.project, self.table, self.at.value()

        def read_and_compare() -> tuple[QueryTable, QueryList] | str:
            other = run_queries(project, other_id)
            if other is None:
                return f"Run #{other_id}: {NO_QUERIES}."
            try:
                return other, QueryList(table, compare_runs(table, other, k))
            except StudioError as error:  # no shared query
                return str(error)

        self.scope.submit(self.services.io, read_and_compare, done=self._compared,
                          failed=lambda error: self.header.setText(
                              f"The runs could not be compared: {error}"))

    def _compared(self, result: tuple[QueryTable, QueryList] | str) -> None:
        if self.table is None:
            return
        if isinstance(result, str):
            self.header.setText(result)
            return
        self.other_table, compared = result
        self._show(compared)
