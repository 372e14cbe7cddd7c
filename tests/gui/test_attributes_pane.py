"""The Attributes pane: keyboard review of one image, bulk review of one attribute, jobs."""

from __future__ import annotations

import asyncio

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from studio.attributes.extract import extract_from_text
from studio.attributes.query import attribute_states, images_with_attribute, label_counts
from studio.store import Project
from tests.gui.window_panes import show_pane_titled
from widgets.bulk_review import THUMB

ATTRIBUTES = 2  # position of the pane in the navigation (Ctrl+3)


def states(project, image_id: str) -> dict[str, str]:
    return {s.attribute: s.status for s in attribute_states(project, image_id)}


def audit(project) -> list[dict]:
    return list(project.db.query("SELECT * FROM audit_log WHERE action LIKE 'attributes.%' "
                                 "ORDER BY id"))


@pytest.fixture
def pane(window, demo_project_dir, qtbot):
    assert window.open_project(demo_project_dir)
    window.workspace.settings.user_name = "Ana"
    extract_from_text(window.workspace.project, "importer")
    window.show_pane(ATTRIBUTES)
    pane = window.stack.currentWidget()
    assert pane.title == "Attributes"
    pane.refresh()
    return pane


def test_single_image_review_by_keyboard(pane, qtbot) -> None:
    project = pane.workspace.project
    single = pane.single
    first = single.current_image()
    assert first == "dress-00000"
    chips = [chip.state.attribute for chip in single.chips.chips]
    assert set(chips) == set(states(project, first))
    assert "text" in single.chips.chips[0].toolTip() and "1.00" in single.chips.chips[0].toolTip()

    single.setFocus()
    qtbot.keyClick(single, Qt.Key.Key_A)
    qtbot.keyClick(single, Qt.Key.Key_R)
    after = states(project, first)
    assert after[chips[0]] == "accepted"
    assert after[chips[1]] == "rejected"  # the cursor moved on by itself
    assert single.chips.current_name() == chips[2]

    qtbot.keyClick(single, Qt.Key.Key_N)
    assert single.add_box.hasFocus() or single.add_box.isVisible()
    qtbot.keyClicks(single.add_box, "mesh")
    qtbot.keyClick(single.add_box, Qt.Key.Key_Return)
    assert states(project, first)["mesh"] == "accepted"
    assert single.add_box.text() == ""

    qtbot.keyClick(single, Qt.Key.Key_J)
    assert single.current_image() != first
    qtbot.keyClick(single, Qt.Key.Key_K)
    assert single.current_image() == first
    assert [c.state.status for c in single.chips.chips if c.state.attribute == "mesh"] == [
        "accepted"
    ]

    rows = audit(project)
    assert [r["action"] for r in rows] == [
        "attributes.extract", "attributes.accept", "attributes.reject", "attributes.accept"
    ]
    assert {r["actor"] for r in rows[1:]} == {"Ana"}
    assert rows[-1]["entity_id"] == first


def test_accept_all_undecided_with_shift(pane, qtbot) -> None:
    project = pane.workspace.project
    single = pane.single
    single.setFocus()
    qtbot.keyClick(single, Qt.Key.Key_A, Qt.KeyboardModifier.ShiftModifier)
    assert set(states(project, single.current_image()).values()) == {"accepted"}


def test_unknown_attribute_is_explained_not_added(pane, qtbot) -> None:
    single = pane.single
    assert not single.add_attribute("glow-in-the-dark unicorn")
    assert "no attribute" in single.message.text()


def test_bulk_accepts_many_at_once(pane, qtbot) -> None:
    project = pane.workspace.project
    pane.tabs.setCurrentWidget(pane.bulk)
    bulk = pane.bulk
    bulk.show_attribute("floral")
    floral = [image_id for image_id, _, _ in images_with_attribute(project, "floral")]
    assert bulk.grid.count() == len(floral) >= 3
    first = str(project.image_path(project.image(floral[0])))

    def first_picture_shown() -> bool:  # decoded off the UI thread, then put in the grid
        picture = bulk.thumbnails.cached(first, THUMB)
        icon = bulk.grid.item(0).icon()
        return picture is not None and icon.pixmap(THUMB).cacheKey() == picture.cacheKey()

    qtbot.waitUntil(first_picture_shown)
    assert not bulk.grid.item(0).icon().isNull()

    bulk.grid.setFocus()
    qtbot.keyClick(bulk.grid, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(bulk.grid, Qt.Key.Key_A)
    assert {status for _, _, status in images_with_attribute(project, "floral")} == {"accepted"}

    bulk.grid.clearSelection()
    bulk.grid.item(0).setSelected(True)
    qtbot.keyClick(bulk.grid, Qt.Key.Key_R)
    statuses = dict((i, s) for i, _, s in images_with_attribute(project, "floral"))
    assert list(statuses.values()).count("rejected") == 1

    rows = audit(project)
    assert [r["action"] for r in rows[-2:]] == ["attributes.accept_many", "attributes.reject_many"]
    assert rows[-2]["entity_id"] == "attribute:floral"
    assert pane.summary.text().startswith(f"{label_counts(project)['suggested']:,} suggested")


def click_and_wait(loop, button, done) -> None:
    """Click inside the running qasync loop (as a person would) and wait for the job."""

    async def scenario() -> None:
        button.click()
        while not done():
            await asyncio.sleep(0.05)

    loop.run_until_complete(asyncio.wait_for(scenario(), timeout=120))


def test_extract_button_runs_a_job(window, demo_project_dir, event_loop_qt) -> None:
    assert window.open_project(demo_project_dir)
    pane = window.panes[ATTRIBUTES]
    window.show_pane(ATTRIBUTES)
    assert pane.single.chips.chips == []
    click_and_wait(event_loop_qt, pane.extract_button, lambda: len(pane.single.chips.chips) > 0)
    assert label_counts(window.workspace.project)["suggested"] > 60


def test_vocabulary_editor_edits_are_audited(pane, qtbot) -> None:
    project = pane.workspace.project
    dialog = pane.edit_vocabulary()
    qtbot.addWidget(dialog)
    assert dialog.table.rowCount() >= 300
    assert dialog.add("mesh panel", "part", ["mesh insert"])
    assert not dialog.add("flower pattern", "texture", ["floral"])
    assert "'floral'" in dialog.message.text()
    assert dialog.rename("mesh panel", "mesh inset")
    assert dialog.retype("mesh inset", "fabric")
    assert dialog.merge(["stripy look"], "striped") is False  # unknown name is explained
    assert dialog.merge(["pinstripe"], "striped")
    actions = [r["action"] for r in project.db.query(
        "SELECT action FROM audit_log WHERE entity = 'attribute_vocab' ORDER BY id")]
    assert actions[-4:] == [
        "vocabulary.add", "vocabulary.rename", "vocabulary.retype", "vocabulary.merge"
    ]
    dialog.filter.setText("pinstripe")
    visible = [r for r in range(dialog.table.rowCount()) if not dialog.table.isRowHidden(r)]
    assert [dialog.table.item(r, 0).text() for r in visible] == ["striped"]


def test_dashboard_plots_suggestion_quality_after_review(pane, qtbot) -> None:
    from studio.attributes.labels import replace_suggestions, review
    from studio.attributes.vocabulary import get_entry

    project = pane.workspace.project
    red, floral = get_entry(project, "red").id, get_entry(project, "floral").id
    replace_suggestions(project, "model-run", "model", "some-model",
                        {"dress-00000": {red: 0.9, floral: 0.7}}, "attributes.suggest")
    dashboard = pane.window().panes[-1]
    plot = dashboard.attribute_quality
    pane.window().show_pane(len(pane.window().panes) - 1)
    assert plot.reports == {} and "No reviewed" in plot.note.text()
    review(project, "Ana", "dress-00000", ["red"], "rejected")
    review(project, "Ana", "dress-00000", ["floral"], "accepted")
    plot.refresh(project)
    report = plot.reports["some-model"]
    assert report.per_type["color"].precision == 0.0
    assert report.per_type["texture"].precision == 1.0
    assert plot.canvas is not None and not plot.canvas.isHidden()


def test_suggest_button_runs_the_model_as_a_job(window, demo_project_dir, event_loop_qt) -> None:
    from pathlib import Path

    weights = Path(__file__).resolve().parents[2] / "resources/demo_model/cir-demo.safetensors"
    if not weights.is_file():
        pytest.skip("the demo model is not in resources/demo_model yet")
    assert window.open_project(demo_project_dir)
    window.workspace.settings.model, window.workspace.settings.device = "demo", "cpu"
    pane = window.panes[ATTRIBUTES]
    window.show_pane(ATTRIBUTES)

    def has_model_chips() -> bool:
        return any(source == "model" for chip in pane.single.chips.chips
                   for source, _, _ in chip.state.evidence)

    click_and_wait(event_loop_qt, pane.suggest_button, has_model_chips)
    chip = next(c for c in pane.single.chips.chips if c.state.evidence[0][0] == "model")
    assert "model: demo" in chip.toolTip() and "confidence" in chip.toolTip()


def test_the_bulk_view_opens_on_an_attribute_with_images(window, demo_project_dir) -> None:
    """The "One attribute, many images" tab does not open on an attribute with 0."""
    from studio.attributes.extract import extract_from_text

    with Project.open(demo_project_dir) as project:
        extract_from_text(project, "importer")
    assert window.open_project(demo_project_dir)
    window.show_pane(2)
    pane = window.panes[2]
    pane.tabs.setCurrentWidget(pane.bulk)
    QApplication.processEvents()
    assert pane.bulk.attribute.currentText()
    assert pane.bulk.grid.count() > 0 and not pane.bulk.empty.isVisible()


def test_attributes_u_undoes_the_last_decision_after_the_cursor_moved(
    window, demo_project_dir, qtbot
) -> None:
    assert window.open_project(demo_project_dir)
    window.workspace.settings.user_name = "Ana"
    project = window.workspace.project
    extract_from_text(project, "importer")
    pane = show_pane_titled(window, "Attributes")
    pane.refresh()
    single = pane.single
    image = single.current_image()
    first = single.chips.current_name()
    single.setFocus()
    qtbot.keyClick(single, Qt.Key.Key_A)
    assert states(project, image)[first] == "accepted"
    assert single.chips.current_name() != first  # the cursor moved on
    qtbot.keyClick(single, Qt.Key.Key_U)
    assert states(project, image)[first] == "suggested"
    assert single.chips.current_name() == first
    qtbot.keyClick(single, Qt.Key.Key_R)
    qtbot.keyClick(single, Qt.Key.Key_J)  # even after moving to the next image
    assert single.current_image() != image
    qtbot.keyClick(single, Qt.Key.Key_U)
    assert single.current_image() == image
    assert states(project, image)[first] == "suggested"


def test_the_undecided_images_come_one_after_another_by_keyboard(pane, qtbot) -> None:
    """The project's attribute queue in the view a team annotator uses: A, Shift+R, Enter
    keeps the image's decisions and brings the next undecided image; Ctrl+K skips one."""
    project = pane.workspace.project
    view = pane.queue_view
    pane.tabs.setCurrentWidget(view)
    qtbot.waitUntil(lambda: view.item is not None)
    assert pane.focus_widget() is view
    image = view.item.image_id
    names = view.chips.names()
    assert names and all(status == "suggested" for status in states(project, image).values())
    assert view.info.text().startswith(f"Image {image} · 1 of ")
    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_A)
    qtbot.keyClick(view, Qt.Key.Key_R, Qt.KeyboardModifier.ShiftModifier)
    assert states(project, image)[names[0]] == "suggested"  # kept with Enter, as one edit
    qtbot.keyClick(view, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: view.item is not None and view.item.image_id != image)
    assert states(project, image) == {names[0]: "accepted",
                                      **{name: "rejected" for name in names[1:]}}
    assert view.state.text() == f"Image {image}: decisions saved."
    assert view.info.text().startswith(f"Image {view.item.image_id} · 2 of ")
    second = view.item.image_id
    qtbot.keyClick(view, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: view.item is not None and view.item.image_id != second)
    assert view.state.text().startswith(f"Image {second} skipped")
    assert [(row["actor"], row["entity_id"]) for row in audit(project)
            if row["action"] == "attributes.skip"] == [("Ana", second)]


def test_an_image_without_labels_says_so(window, demo_project_dir) -> None:
    assert window.open_project(demo_project_dir)  # nothing extracted yet
    pane = show_pane_titled(window, "Attributes")
    single = pane.single
    assert single.chips_empty.isVisible()
    assert "No labels on this image yet" in single.chips_empty.text()
    extract_from_text(window.workspace.project, "importer")
    pane.refresh()
    assert not single.chips_empty.isVisible()


def test_a_bulk_attribute_with_no_images_says_so(window, demo_project_dir) -> None:
    assert window.open_project(demo_project_dir)
    extract_from_text(window.workspace.project, "importer")
    pane = show_pane_titled(window, "Attributes")
    pane.tabs.setCurrentWidget(pane.bulk)
    pane.bulk.show_attribute("sequin")
    assert pane.bulk.grid.count() == 0
    assert pane.bulk.empty.isVisible()
    assert "sequin" in pane.bulk.empty.text()
    pane.bulk.show_attribute("floral")
    assert pane.bulk.grid.count() > 0 and not pane.bulk.empty.isVisible()
