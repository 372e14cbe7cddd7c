"""Experiments → a run → Queries…: the run's queries worst first, sortable and filtered,
one query shown with its turns and top results, and Compare with… another run."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from studio.cli.main import main


@pytest.fixture(scope="module")
def two_runs(indexed_demo_template: Path, tmp_path_factory) -> Path:
    project = tmp_path_factory.mktemp("runs") / "demo"
    shutil.copytree(indexed_demo_template, project)
    for strategy in ("sum", "text"):
        assert main(["simulate", "--project", str(project), "--strategy", strategy,
                     "--turns", "2", "--n", "12", "--split", "all", "--keep-top", "20"]) == 0
    return project


def open_browser(qtbot, workspace, services, project: Path, row: int = 0):
    from widgets.experiments_view import ExperimentsView

    workspace.open_project(project)
    view = ExperimentsView(workspace, services.runner, services=services)
    qtbot.addWidget(view)
    view.refresh()
    view.runs.setCurrentRow(row)
    browser = view.open_queries()
    assert browser is not None
    qtbot.addWidget(browser)
    qtbot.waitUntil(lambda: browser.model is not None, timeout=10_000)
    return view, browser


def browser_in_retrieval(pane, qtbot):
    """The Retrieval pane's Experiments tab, its newest run's queries opened."""
    pane.tabs.setCurrentWidget(pane.experiments)
    pane.experiments.refresh()
    pane.experiments.runs.setCurrentRow(0)
    browser = pane.experiments.open_queries()
    assert browser is not None
    qtbot.addWidget(browser)
    qtbot.waitUntil(lambda: browser.model is not None, timeout=10_000)
    return browser


def column_texts(browser, name: str) -> list[str]:
    model = browser.model
    column = [c.name for c in model.queries.columns].index(name)
    return [model.data(model.index(r, column)) for r in range(model.rowCount())]


def test_the_list_opens_worst_first_and_sorts_and_filters(qtbot, workspace, services,
                                                          two_runs: Path) -> None:
    _, browser = open_browser(qtbot, workspace, services, two_runs)
    assert browser.model.rowCount() == 12
    headers = [c.name for c in browser.model.queries.columns]
    assert headers[:5] == ["rank", "@1", "@5", "@10", "@50"] and "top-10 at" in headers
    ranks = [float("inf") if t == "–" else int(t) for t in column_texts(browser, "rank")]
    assert ranks == sorted(ranks, reverse=True)  # worst first
    assert "12 queries · R@1" in browser.header.text()
    browser.view.sortByColumn(0, Qt.SortOrder.AscendingOrder)
    again = [float("inf") if t == "–" else int(t) for t in column_texts(browser, "rank")]
    assert again == sorted(ranks)
    browser.miss_at.setValue(1)
    misses = column_texts(browser, "@1")
    assert misses and all(hit == "" for hit in misses)
    assert browser.model.rowCount() == sum(1 for r in ranks if r > 1)
    browser.miss_at.setValue(0)
    texts = column_texts(browser, "text")
    word = texts[0].split()[0]
    browser.contains.setText(word.upper())
    assert 0 < browser.model.rowCount() == sum(word.lower() in t.lower() for t in texts)
    browser.contains.clear()
    category = browser.category.itemText(1)
    browser.category.setCurrentText(category)
    assert set(column_texts(browser, "category")) == {category}


def test_the_selected_query_stays_selected_when_the_list_is_sorted(
        qtbot, workspace, services, two_runs: Path) -> None:
    _, browser = open_browser(qtbot, workspace, services, two_runs)
    browser.view.selectRow(3)
    chosen = browser.model.queries.table_row(3)
    browser.view.sortByColumn([c.name for c in browser.model.queries.columns].index("query"),
                              Qt.SortOrder.AscendingOrder)
    current = browser.view.selectionModel().currentIndex()
    assert current.isValid() and browser.model.queries.table_row(current.row()) == chosen
    assert browser.view.selectionModel().isRowSelected(current.row())


def test_a_query_shows_its_turns_ranks_and_top_results(qtbot, workspace, services,
                                                       two_runs: Path) -> None:
    _, browser = open_browser(qtbot, workspace, services, two_runs)
    browser.view.selectRow(3)
    row = browser.table.row(browser.model.queries.table_row(3))
    lines = browser.detail.lines.text()
    assert row["query"] in lines and "turn 1:" in lines
    assert f"→ rank {row['ranks'][0]}" in lines or "not in what was ranked" in lines
    grid = browser.detail.grid
    assert grid.count() == len(row["top_ids"]) and grid.hit_id(0) == row["top_ids"][0]
    marked = [grid.item(n).text() for n in range(grid.count()) if "★ target" in
              grid.item(n).text()]
    assert len(marked) == (1 if row["target"] in row["top_ids"] else 0)
    assert browser.detail.target.isVisible() == (row["target"] not in row["top_ids"])


def test_compare_with_another_run_shows_both_ranks_and_the_interval(
        qtbot, workspace, services, two_runs: Path) -> None:
    _, browser = open_browser(qtbot, workspace, services, two_runs)
    assert browser.compare_with.count() == 2  # "Compare with…" and the other run
    browser.compare_with.setCurrentIndex(1)
    qtbot.waitUntil(lambda: browser.model.queries.comparison is not None, timeout=10_000)
    headers = [c.name for c in browser.model.queries.columns]
    assert headers[:3] == ["A", "B", "change"]
    header = browser.header.text()
    comparison = browser.model.queries.comparison
    assert f"{comparison.wins} wins, {comparison.losses} losses" in header
    assert "95 % CI" in header and "12 shared queries" in header
    browser.view.selectRow(0)
    assert browser.detail.other.text().startswith("Run B: rank")
    browser.single.click()
    assert [c.name for c in browser.model.queries.columns][0] == "rank"


def test_a_run_without_queries_says_so(qtbot, workspace, services, tmp_path: Path) -> None:
    from studio.simulation.outputs import store_run
    from studio.store import Project

    Project.create(tmp_path / "p").close()
    project = workspace.open_project(tmp_path / "p")
    store_run(project, "simulate", {"label": "old", "per_turn": []}, [], "tester")
    from widgets.experiments_view import ExperimentsView

    view = ExperimentsView(workspace, services.runner, services=services)
    qtbot.addWidget(view)
    view.refresh()
    browser = view.open_queries()
    qtbot.addWidget(browser)
    qtbot.waitUntil(lambda: "no per-query results" in browser.header.text(), timeout=10_000)
    assert "run before this version" in browser.header.text()


@pytest.fixture(scope="module")
def three_turn_run(indexed_demo_template: Path, tmp_path_factory) -> Path:
    project = tmp_path_factory.mktemp("dialogs") / "demo"
    shutil.copytree(indexed_demo_template, project)
    assert main(["simulate", "--project", str(project), "--strategy", "sum",
                 "--turns", "3", "--n", "12", "--split", "all", "--keep-top", "20"]) == 0
    return project


def test_open_in_retrieval_replays_the_whole_dialog(
        window, qtbot, event_loop_qt, three_turn_run: Path) -> None:
    """A simulated dialog opened in Retrieval runs again turn by turn, each from its stored
    reference with its stored text: three turns in the timeline, the stored rank after the
    last, and the person goes on by hand from there (a result clicked is the next reference)."""
    from tests.gui.async_helpers import run_until
    from tests.gui.test_retrieval_pane import open_retrieval

    pane = open_retrieval(window, qtbot, event_loop_qt, three_turn_run)
    pane.strategy.setCurrentIndex(pane.strategy.findData("history"))  # not the run's
    browser = browser_in_retrieval(pane, qtbot)
    model = browser.model
    for view_row in range(model.rowCount()):  # worst first: a dialog that ran three turns
        row = browser.table.row(model.queries.table_row(view_row))
        if len(row["texts"]) == 3 and all(row["texts"]) and row["rank"] and row["rank"] > 1:
            break
    else:
        pytest.fail("no simulated dialog of three turns")
    browser.view.selectRow(view_row)
    assert browser.open_retrieval.isEnabled()
    qtbot.mouseClick(browser.open_retrieval, Qt.MouseButton.LeftButton)
    assert pane.tabs.currentIndex() == 0  # Search
    run_until(event_loop_qt, lambda: pane.timeline.count() == 3 and not pane._turn_running)
    turns = pane.session.turns
    assert [t.text for t in turns] == row["texts"]
    assert turns[0].reference_id == row["reference"]
    assert [t.target_rank for t in turns] == row["ranks"]
    assert pane.session.target_id == row["target"]
    assert f"target rank {row['rank']}" in pane.timeline.item(2).text()
    chosen = pane.results.hit_id(0)
    pane.choose_result(chosen)  # on by hand from the last turn
    assert pane.pending_reference == chosen


@pytest.fixture(scope="module")
def chat_run(indexed_demo_template: Path, tmp_path_factory) -> Path:
    project = tmp_path_factory.mktemp("chats") / "demo"
    shutil.copytree(indexed_demo_template, project)
    assert main(["simulate", "--project", str(project), "--simulator", "chat",
                 "--questioner", "random", "--strategy", "sum", "--turns", "3", "--n", "8",
                 "--split", "all", "--keep-top", "20"]) == 0
    return project


def test_open_in_retrieval_replays_a_chat_round_by_round(
        window, qtbot, event_loop_qt, chat_run: Path) -> None:
    """A simulated chat shows each round's question and answer, and opened in Retrieval
    runs again round by round in a chat session, each answer to its stored question: the
    stored rank after every round, and the next question waits to be answered by hand."""
    from tests.gui.async_helpers import run_until
    from tests.gui.test_retrieval_pane import open_retrieval

    pane = open_retrieval(window, qtbot, event_loop_qt, chat_run)
    browser = browser_in_retrieval(pane, qtbot)
    model = browser.model
    for view_row in range(model.rowCount()):  # a chat whose every round was asked
        row = browser.table.row(model.queries.table_row(view_row))
        if len(row["texts"]) == 4 and all(row["texts"]):
            break
    else:
        pytest.fail("no simulated chat of three rounds")
    browser.view.selectRow(view_row)
    lines = browser.detail.lines.text()
    question, answer = row["texts"][1].rsplit("?", 1)
    assert f"turn 1: Q: {question}? A: {answer.strip()}" in lines
    assert browser.open_retrieval.isEnabled()
    qtbot.mouseClick(browser.open_retrieval, Qt.MouseButton.LeftButton)
    assert pane.tabs.currentIndex() == 0  # Search
    run_until(event_loop_qt, lambda: pane.timeline.count() == 4 and not pane._turn_running)
    assert pane.is_chat
    turns = pane.session.turns
    assert [t.question for t in turns[1:]] == [f"{t.split('?')[0]}?" for t in row["texts"][1:]]
    assert [t.target_rank for t in turns] == row["ranks"]
    assert pane.session.target_id == row["target"]
    assert "replayed 4 rounds" in pane.status.text()
    assert pane.controller.question is not None  # on by hand: the next question is asked


def test_a_chat_stored_before_its_rounds_were_kept_says_it_cannot_replay(
        qtbot, workspace, services, chat_run: Path, tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    from studio.experiments.query_log import run_path
    from studio.simulation.outputs import list_runs
    from studio.store import Project

    project = tmp_path / "old"
    shutil.copytree(chat_run, project)
    with Project.open(project) as opened:
        path = run_path(opened, list_runs(opened)[-1]["id"])
    table = pq.read_table(path)
    pq.write_table(table.drop_columns(["questions", "answers"]), path)  # as written before
    _, browser = open_browser(qtbot, workspace, services, project)
    browser.view.selectRow(0)
    assert not browser.open_retrieval.isEnabled()
    assert "Open in Retrieval is not available" in browser.detail.lines.text()


@pytest.fixture(scope="module")
def chatir_run(tmp_path_factory) -> Path:
    from studio.demo.placeholders import draw_placeholders
    from tests.unit.test_chatir import import_and_index, write_chatir

    folder = tmp_path_factory.mktemp("chatir")
    space = [f"unlabeled2017/{i:012d}.jpg" for i in range(30)]
    draw_placeholders(folder / "img", space)
    write_chatir(folder / "chatir", space, [space[0], space[5], space[9]])
    project = import_and_index(folder)
    assert main(["evaluate", "chatir", "--project", str(project)]) == 0
    return project


def test_open_in_retrieval_replays_a_chatir_dialog_as_its_protocol_searched_it(
        window, qtbot, event_loop_qt, chatir_run: Path) -> None:
    """A ChatIR dialog shows its rounds' questions and answers and replays round by round,
    each round searched as ChatIR does (the dialog so far as one text, in the search
    space): the stored rank after every round."""
    from tests.gui.async_helpers import run_until
    from tests.gui.test_retrieval_pane import open_retrieval

    pane = open_retrieval(window, qtbot, event_loop_qt, chatir_run)
    browser = browser_in_retrieval(pane, qtbot)
    browser.view.selectRow(0)
    row = browser.current
    assert row is not None and len(row["texts"]) == 11
    assert "turn 1: Q: is it item" in browser.detail.lines.text()
    assert browser.open_retrieval.isEnabled()
    qtbot.mouseClick(browser.open_retrieval, Qt.MouseButton.LeftButton)
    run_until(event_loop_qt, lambda: pane.timeline.count() == 11 and not pane._turn_running)
    assert pane.is_chat
    turns = pane.session.turns
    assert [t.question for t in turns] == [None, *(t.split("?")[0] + "?" for t in row["texts"][1:])]
    assert [t.target_rank for t in turns] == row["ranks"]
    assert "replayed 11 rounds" in pane.status.text()
