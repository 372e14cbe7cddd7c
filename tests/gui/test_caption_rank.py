"""The live target rank under the caption editor, ranks kept with captions, reviewers' view."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt

from studio.captions import store
from studio.captions.ranks import rank_captions, stored_rank
from studio.pairs.mining import mine_pairs
from studio.store import Project
from tests.gui.async_helpers import run_until
from tests.gui.read_only_projects import as_read_only
from tests.gui.test_captions_pane import wait_for
from tests.gui.window_panes import show_pane_titled
from widgets.panes.captions_pane import CaptionsPane

CTRL = Qt.KeyboardModifier.ControlModifier


def open_as(window, path: Path, user: str) -> CaptionsPane:
    """On the Captions pane as ``user``, once the writer shows its pair (the queue answers
    on the IO lane)."""
    window.workspace.settings.user_name = user
    window.open_project(path)
    pane = next(p for p in window.panes if isinstance(p, CaptionsPane))
    window.show_pane(window.panes.index(pane))
    wait_for(lambda: pane.writer.settled())
    return pane


def type_caption(qtbot, editor, text: str) -> None:
    editor.setFocus()
    editor.selectAll()
    qtbot.keyClicks(editor, text)


def rank_shown_for(view, text: str) -> bool:
    return (
        view.result is not None
        and view.result.text == text
        and view.line.text().startswith("Target rank with this caption:")
    )


def test_typing_shows_the_rank_and_it_follows_the_text(window, ranked_demo, qtbot) -> None:
    pane = open_as(window, ranked_demo, "ana")
    view = pane.rank_view
    assert view.isVisible()
    type_caption(qtbot, pane.writer.editor, "is red")
    qtbot.waitUntil(lambda: rank_shown_for(view, "is red"), timeout=30000)
    first = view.result
    assert f"of {first.gallery_size:,}" in view.line.text()
    assert f"{first.rank:,} of" in view.line.text()
    assert first.model == "demo" and first.strategy == "history"
    type_caption(qtbot, pane.writer.editor, "is plaid with long sleeves and a v-neck")
    qtbot.waitUntil(
        lambda: rank_shown_for(view, "is plaid with long sleeves and a v-neck"), timeout=30000
    )
    second = view.result
    assert second.pair_id == first.pair_id
    # The keystrokes had the text encoded ahead, on the model lane, before the pause.
    assert view.worker._ranker is not None and view.worker._ranker.ahead_cpu_seconds > 0
    assert second.top != first.top  # another caption finds other images first
    colour = {"top10": "#15803d", "top50": "#b45309", "beyond": "#b91c1c"}[second.band]
    assert colour in view.line.styleSheet()
    # The top 5 as thumbnails, on demand; the target is marked when it is among them.
    # Their files came with the rank (looked up on the model lane): showing them reads
    # nothing from the project on the UI thread.
    project = window.workspace.project
    assert second.top_paths == tuple(
        str(project.image_path(project.image(image_id))) for image_id, _ in second.top
    )
    statements: list[str] = []
    project.db.conn.set_trace_callback(statements.append)
    view.toggle.setChecked(True)
    project.db.conn.set_trace_callback(None)
    assert not [s for s in statements if "images" in s]
    assert view.grid.isVisible() and view.grid.count() == min(5, second.gallery_size)
    assert [view.grid.item(i).data(Qt.ItemDataRole.UserRole) for i in range(view.grid.count())] == [
        image_id for image_id, _ in second.top
    ]


def test_submitted_caption_keeps_its_rank_after_reopening(window, ranked_demo, qtbot) -> None:
    pane = open_as(window, ranked_demo, "ana")
    pair_id = pane.writer.pair_id
    type_caption(qtbot, pane.writer.editor, "is blue and striped")
    qtbot.keyClick(pane.writer.editor, Qt.Key.Key_Return, CTRL)

    def kept() -> object:
        with Project.open(ranked_demo) as project:
            captions = store.captions_for_pair(project, pair_id)  # once the IO lane saved it
            return stored_rank(project, captions[0].id) if captions else None

    qtbot.waitUntil(lambda: kept() is not None, timeout=30000)
    window.workspace.close_project()
    rank = kept()
    assert rank.text == "is blue and striped" and rank.model == "demo"
    assert rank.gallery_size > 0 and rank.rank is not None
    assert 1 <= rank.rank <= rank.gallery_size  # the target is in the indexed demo gallery
    # A reviewer sees it beside the caption after reopening the project.
    pane = open_as(window, ranked_demo, "ben")
    pane.set_mode(1)
    assert pane.reviewer.caption_id is not None
    assert pane.rank_line.line.text() == rank.describe()
    assert "stale" not in pane.rank_line.note.text()


def test_without_an_index_one_quiet_line_offers_to_build_it(
    window, demo_project_dir, qtbot, event_loop_qt
) -> None:
    with Project.open(demo_project_dir) as project:
        mine_pairs(project, "tfidf", 4)
    pane = open_as(window, demo_project_dir, "ana")
    view = pane.rank_view
    type_caption(qtbot, pane.writer.editor, "is red")
    qtbot.waitUntil(lambda: view.build_button.isVisible(), timeout=30000)
    assert "No index for model 'demo'" in view.line.text()
    assert pane.writer.editor.isEnabled() and pane.writer.editor.text() == "is red"
    view.build_button.click()  # a job on the window's runner, then the rank
    run_until(event_loop_qt, lambda: rank_shown_for(view, "is red"))


def test_build_index_hands_the_keyboard_back_to_the_caption(
    window, demo_project_dir, qtbot, event_loop_qt
) -> None:
    """Build index… clicked with the mouse: once the index is built the next keys go on
    the caption, not into the list of panes."""
    with Project.open(demo_project_dir) as project:
        mine_pairs(project, "tfidf", 4)
    pane = open_as(window, demo_project_dir, "ana")
    window.activateWindow()
    view, editor = pane.rank_view, pane.writer.editor
    type_caption(qtbot, editor, "is red")
    qtbot.waitUntil(lambda: view.build_button.isVisible(), timeout=30000)
    qtbot.mouseClick(view.build_button, Qt.MouseButton.LeftButton)  # takes the focus
    run_until(event_loop_qt, lambda: rank_shown_for(view, "is red"))
    assert window.focusWidget() is editor
    qtbot.keyClicks(window.focusWidget(), " and long")
    assert editor.text() == "is red and long"


def test_dashboard_shows_each_annotators_ranks(window, ranked_demo, qtbot) -> None:
    from studio.captions.ranks import rank_captions
    from widgets.panes.dashboard_pane import DashboardPane

    with Project.open(ranked_demo) as project:
        pairs = [r[0] for r in project.db.execute("SELECT id FROM pairs ORDER BY id")]
        for pair_id in pairs[:3]:
            store.submit_caption(project, pair_id, "ana", "is red with long sleeves")
        store.submit_caption(project, pairs[3], "ben", "is blue")
        report = rank_captions(project, device="cpu")
    window.open_project(ranked_demo)
    pane = next(p for p in window.panes if isinstance(p, DashboardPane))
    window.show_pane(window.panes.index(pane))
    chart = pane.rank_distribution
    qtbot.waitUntil(lambda: chart.canvas is not None)  # drawn once the window painted
    ana = report["annotators"]["ana"]
    assert f"ana: median rank {ana['median_rank']}, top 10 {ana['top10']:.0%}" in chart.note.text()
    assert "ben: median rank" in chart.note.text()
    assert chart.canvas is not None and len(chart.canvas.figure.axes[0].patches) == 2


def test_reviewer_orders_the_queue_by_rank_and_sees_the_flag(window, ranked_demo, qtbot) -> None:
    from studio.captions.ranking import rank_settings
    from studio.captions.ranks import rank_captions

    texts = ["is red with long sleeves", "is blue and plaid", "has a v-neck", "is green"]
    with Project.open(ranked_demo) as project:
        pairs = [r[0] for r in project.db.execute("SELECT id FROM pairs ORDER BY id")]
        for pair_id, text in zip(pairs, texts, strict=False):
            store.submit_caption(project, pair_id, "ana", text)
        report = rank_captions(project, device="cpu")
    ranks = {row["caption_id"]: row["rank"] for row in report["captions"]}
    worst = max(ranks, key=lambda c: (ranks[c], -c))
    pane = open_as(window, ranked_demo, "ben")
    pane.set_mode(1)
    reviewer, line = pane.reviewer, pane.rank_line
    assert reviewer.caption_id == min(ranks)  # pair order first
    line.order.setCurrentIndex(line.order.findData("rank_worst"))
    qtbot.waitUntil(lambda: reviewer.caption_id == worst)
    size = next(r["gallery_size"] for r in report["captions"] if r["caption_id"] == worst)
    assert line.line.text() == f"Target rank with this caption: {ranks[worst]:,} of {size:,}"
    assert "Does not find the target" not in reviewer.flags.text()  # threshold 50
    assert line.threshold.value() == 50
    line.threshold.setValue(1)  # a project setting, shared by every reviewer
    line.threshold.editingFinished.emit()
    with Project.open(ranked_demo) as project:
        assert rank_settings(project).threshold == 1
    qtbot.waitUntil(
        lambda: f"Does not find the target: it ranks {ranks[worst]:,} of" in reviewer.flags.text())
    qtbot.keyClick(reviewer.editor, Qt.Key.Key_Right, Qt.KeyboardModifier.AltModifier)
    qtbot.waitUntil(lambda: reviewer.caption_id != worst)
    following = reviewer.caption_id
    assert ranks[following] <= ranks[worst]
    # Editing the caption makes its stored rank stale; Recompute ranks it again.
    with Project.open(ranked_demo) as project:
        store.edit_caption(project, following, "lead", "is a completely different thing")
    pane.reviewer.reread()
    qtbot.waitUntil(lambda: "the caption was edited since" in line.note.text())
    line.recompute.click()
    qtbot.waitUntil(lambda: "stale" not in line.note.text(), timeout=30000)
    assert line.line.text().startswith("Target rank with this caption:")


def test_rank_all_captions_runs_as_a_job_and_fills_the_reviewers_line(
    window, ranked_demo, qtbot, event_loop_qt
) -> None:
    with Project.open(ranked_demo) as project:
        pairs = [r[0] for r in project.db.execute("SELECT id FROM pairs ORDER BY id")]
        for pair_id in pairs[:3]:
            store.submit_caption(project, pair_id, "ana", "is red with long sleeves")
    pane = open_as(window, ranked_demo, "ben")
    pane.set_mode(1)
    line = pane.rank_line
    assert line.line.text() == "Not ranked yet"
    line.rank_all.click()
    run_until(event_loop_qt, lambda: line.line.text().startswith("Target rank with this caption"))
    with Project.open(ranked_demo) as project:
        ranked = [
            stored_rank(project, c.id)
            for p in pairs[:3]
            for c in store.captions_for_pair(project, p)
        ]
    assert all(r is not None and r.model == "demo" for r in ranked)
    assert line.line.text() == ranked[0].describe()


def test_a_rank_is_shown_while_no_colour_was_measured(window, ranked_demo, qtbot) -> None:
    """Opening the ranker used to measure every picture first (gallery-wide work inside a
    live rank); now it ranks with what exists and measures nothing."""
    import shutil

    from studio.image_measures import cache_folder

    with Project.open(ranked_demo) as project:
        folder = cache_folder(project)
    shutil.rmtree(folder)  # as for a project indexed before measures were kept
    pane = open_as(window, ranked_demo, "ana")
    pane.rank_worker.wait_idle()  # the model and index load when the project opens
    type_caption(qtbot, pane.writer.editor, "is darker and red")
    qtbot.waitUntil(lambda: rank_shown_for(pane.rank_view, "is darker and red"), timeout=10_000)
    assert not folder.exists()  # nothing was measured inside the rank


def test_an_edit_in_review_marks_the_stored_rank_stale(window, ranked_demo, qtbot) -> None:
    with Project.open(ranked_demo) as project:
        pair = project.db.execute("SELECT min(id) FROM pairs").fetchone()[0]
        caption_id = store.submit_caption(project, pair, "ana", "is red with long sleeves")[0].id
        rank_captions(project, device="cpu")
    pane = open_as(window, ranked_demo, "ben")
    pane.set_mode(1)
    line = pane.rank_line
    assert pane.reviewer.caption_id == caption_id
    assert "stale" not in line.note.text()
    type_caption(qtbot, pane.reviewer.editor, "is blue and sleeveless")
    assert "stale: the caption was edited since" in line.note.text()
    type_caption(qtbot, pane.reviewer.editor, "is red with long sleeves")  # back as stored
    assert "stale" not in line.note.text()


def test_while_writing_the_rank_on_screen_says_it_is_the_previous_texts(
    window, ranked_demo, qtbot
) -> None:
    pane = open_as(window, ranked_demo, "ana")
    view = pane.rank_view
    type_caption(qtbot, pane.writer.editor, "is red")
    qtbot.waitUntil(lambda: rank_shown_for(view, "is red"), timeout=30000)
    qtbot.keyClicks(pane.writer.editor, " with long sleeves")
    assert view.line.text().startswith("Target rank with the previous text:")
    assert "updating" in view.line.text()
    qtbot.waitUntil(lambda: rank_shown_for(view, "is red with long sleeves"), timeout=30000)
    assert "previous" not in view.line.text()


def test_read_only_project_captions_do_not_offer_a_build(
    window, demo_project_dir, qtbot
) -> None:
    with Project.open(demo_project_dir) as project:
        mine_pairs(project, "tfidf", 4)
    assert window.open_project(demo_project_dir)
    as_read_only(window.workspace.project)
    captions = show_pane_titled(window, "Captions")
    view = captions.rank_view
    captions.writer.editor.setFocus()
    qtbot.keyClicks(captions.writer.editor, "is red")
    qtbot.waitUntil(lambda: view.build_button.isVisible(), timeout=30000)
    assert not view.build_button.isEnabled()
    assert "read-only" in view.build_button.toolTip()
    assert "read-only" in view.line.text() and "Building" not in view.line.text()
