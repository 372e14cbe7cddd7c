"""A new user's walk, issue #27 (items D4, D6, D7/D8, D10, D11, D19): each test failed on
97b4282 and describes what the person sees now."""

from __future__ import annotations

from studio.pairs.mining import mine_pairs
from studio.store import Project


def pane_titled(window, title: str):
    return next(pane for pane in window.panes if pane.title == title)


def show(window, title: str):
    pane = pane_titled(window, title)
    window.show_pane(window.panes.index(pane))
    return pane


def as_read_only(project: Project) -> None:
    """What Project.open finds for a file the user may not write. The tests run as root,
    whom permissions do not stop, so the test says it; tests/reliability runs the same
    refusal as an unprivileged user on a chmod'ed folder."""
    project.read_only_reason = "the file is read-only"
    project.db.execute("PRAGMA query_only = ON")


# -- D4: a read-only project offers nothing that writes ----------------------------------


def test_read_only_project_offers_no_index_build_and_says_why(window, demo_project_dir) -> None:
    assert window.open_project(demo_project_dir)
    as_read_only(window.workspace.project)
    retrieval = show(window, "Retrieval")
    retrieval.show_project(window.workspace.project)
    assert not retrieval.build_button.isEnabled()
    assert "read-only" in retrieval.build_button.toolTip()
    assert "read-only" in retrieval.loader_text.text()


def test_read_only_project_captions_do_not_offer_a_build(
    window, demo_project_dir, qtbot
) -> None:
    with Project.open(demo_project_dir) as project:
        mine_pairs(project, "tfidf", 4)
    assert window.open_project(demo_project_dir)
    as_read_only(window.workspace.project)
    captions = show(window, "Captions")
    view = captions.rank_view
    captions.writer.editor.setFocus()
    qtbot.keyClicks(captions.writer.editor, "is red")
    qtbot.waitUntil(lambda: view.build_button.isVisible(), timeout=30000)
    assert not view.build_button.isEnabled()
    assert "read-only" in view.build_button.toolTip()
    assert "read-only" in view.line.text() and "Building" not in view.line.text()
