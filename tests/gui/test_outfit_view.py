"""The Outfit view: annotate an outfit by mouse and keyboard; its export re-imports as is."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QPushButton, QScrollArea, QWidget

from studio.outfits.fashionpedia import import_fashionpedia
from studio.outfits.fashionpedia_write import export_fashionpedia
from studio.outfits.fashionx_io import export_fashionx, import_fashionx
from studio.outfits.records import effective
from studio.outfits.store import load_outfit
from studio.store import Project
from studio.store.records import ImageRecord
from widgets.outfit_view import OutfitView


@pytest.fixture
def view(qtbot, workspace, services, tmp_path: Path):
    images = tmp_path / "images"
    images.mkdir()
    Image.new("RGB", (400, 600), (90, 120, 200)).save(images / "look.jpg")
    project = Project.create(tmp_path / "p", image_root=images)
    project.add_images([ImageRecord(id="look", path="look.jpg", width=400, height=600)])
    project.close()
    workspace.open_project(tmp_path / "p")
    workspace.settings.user_name = "Ana"
    thumbnails = services.thumbnails
    widget = OutfitView(workspace, thumbnails)
    qtbot.addWidget(widget)
    widget.resize(1200, 800)
    widget.show_project(workspace.project)
    widget.show()
    qtbot.waitUntil(lambda: widget.canvas._pixmap_item is not None, timeout=5000)
    return widget


def at(view: OutfitView, x: float, y: float) -> QPoint:
    """The viewport point showing image pixel (x, y)."""
    return view.canvas.mapFromScene(QPointF(x, y))


def drag(view: OutfitView, start: tuple[float, float], end: tuple[float, float]) -> None:
    viewport = view.canvas.viewport()
    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     at(view, *start))
    QTest.mouseRelease(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                       at(view, *end))


def click(view: OutfitView, x: float, y: float) -> None:
    QTest.mouseClick(view.canvas.viewport(), Qt.MouseButton.LeftButton,
                     Qt.KeyboardModifier.NoModifier, at(view, x, y))


def type_into(qtbot, widget, text: str) -> None:
    widget.setFocus()
    widget.clear()
    qtbot.keyClicks(widget, text)
    qtbot.keyClick(widget, Qt.Key.Key_Return)


def test_annotating_an_outfit_and_its_export_reimporting_identically(
    view: OutfitView, qtbot, tmp_path: Path
) -> None:
    project = view.workspace.project
    canvas = view.canvas
    # A shirt drawn as a box: C types the category, B draws.
    canvas.setFocus()
    qtbot.keyClick(canvas, Qt.Key.Key_C)
    assert view.category.hasFocus()
    qtbot.keyClicks(view.category, "shirt, blouse")
    qtbot.keyClick(canvas, Qt.Key.Key_B)
    assert canvas.mode == "box"
    drag(view, (50, 40), (350, 300))
    # Pants drawn as a polygon: P, four clicks, Enter.
    view.category.setText("pants")
    qtbot.keyClick(canvas, Qt.Key.Key_P)
    for x, y in ((80, 310), (320, 310), (300, 590), (100, 590)):
        click(view, x, y)
    qtbot.keyClick(canvas, Qt.Key.Key_Return)
    outfit = load_outfit(project, "look")
    assert outfit is not None and [r.role for r in outfit.regions] == ["garment", "garment"]
    shirt, pants = outfit.regions
    assert shirt.box is not None and shirt.box[2] == pytest.approx(300, abs=3)
    assert pants.polygon is not None and len(pants.polygon[0]) == 8
    # A sleeve drawn while the shirt is selected belongs to the shirt.
    qtbot.keyClick(canvas, Qt.Key.Key_S)
    click(view, 200, 150)
    assert view.controller.region_id == shirt.id
    view.category.setText("sleeve")
    qtbot.keyClick(canvas, Qt.Key.Key_B)
    drag(view, (55, 50), (110, 200))
    sleeve_id = view.controller.region_id
    assert load_outfit(project, "look").parts_of(shirt.id)[0].id == sleeve_id
    # Attributes on the sleeve (A) and, after ] / [ back to the shirt, on the shirt.
    canvas.setFocus()
    qtbot.keyClick(canvas, Qt.Key.Key_A)
    type_into(qtbot, view.region_chips.entry, "wrist-length")
    canvas.setFocus()
    qtbot.keyClick(canvas, Qt.Key.Key_BracketLeft)
    assert view.controller.region_id == shirt.id
    type_into(qtbot, view.region_chips.entry, "blue")
    type_into(qtbot, view.region_chips.entry, "stripe")
    # Outfit values (O) and the descriptions, saved by themselves.
    type_into(qtbot, view.outfit_chips.entry, "casual")
    type_into(qtbot, view.outfit_chips.entry, "street")
    view.concise.setFocus()
    qtbot.keyClicks(view.concise, "Striped blue shirt, pants")
    qtbot.waitUntil(lambda: load_outfit(project, "look").picture.concise
                    == "Striped blue shirt, pants", timeout=10_000)
    # Undo takes back the last label only.
    type_into(qtbot, view.region_chips.entry, "red")
    assert len(view.region_chips.chips) == 3
    canvas.setFocus()
    qtbot.keyClick(canvas, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    outfit = load_outfit(project, "look")
    names = {view.controller.name(label.value_id)
             for label in effective(outfit.region_labels[shirt.id])}
    assert names == {"blue", "stripe"}
    assert {view.controller.name(label.value_id) for label in effective(outfit.outfit_labels)} \
        == {"casual", "street"}
    assert len(view.region_chips.chips) == 2
    # Export, re-import elsewhere, export again: the same.
    export_fashionx(project, tmp_path / "a.json")
    export_fashionpedia(project, tmp_path / "a-fp.json")
    with Project.create(tmp_path / "q", image_root=tmp_path / "images") as other:
        report = import_fashionx(other, tmp_path / "a.json", tmp_path / "images")
        assert (report["garments_added"], report["parts_added"]) == (2, 1)
        export_fashionx(other, tmp_path / "b.json")
    assert json.loads((tmp_path / "a.json").read_text()) == json.loads(
        (tmp_path / "b.json").read_text())
    with Project.create(tmp_path / "r", image_root=tmp_path / "images") as third:
        import_fashionpedia(third, tmp_path / "a-fp.json", tmp_path / "images")
        export_fashionpedia(third, tmp_path / "b-fp.json")
    assert json.loads((tmp_path / "a-fp.json").read_text()) == json.loads(
        (tmp_path / "b-fp.json").read_text())


def test_moving_a_region_and_next_region_keys(view: OutfitView, qtbot) -> None:
    project = view.workspace.project
    view.category.setText("shoe")
    view.set_mode("box")
    drag(view, (10, 500), (60, 560))
    view.category.setText("shoe")
    drag(view, (300, 500), (350, 560))
    first, second = load_outfit(project, "look").regions
    assert view.controller.region_id == second.id
    view.canvas.setFocus()
    qtbot.keyClick(view.canvas, Qt.Key.Key_BracketRight)
    assert view.controller.region_id == first.id
    view.set_mode("select")
    drag(view, (30, 530), (130, 480))
    moved = load_outfit(project, "look").regions[0]
    assert moved.box[0] == pytest.approx(110, abs=3) and moved.box[1] == pytest.approx(450, abs=3)
    qtbot.keyClick(view.canvas, Qt.Key.Key_Delete)
    assert [r.id for r in load_outfit(project, "look").regions] == [second.id]


def test_the_real_fashionpedia_sample_shows_every_garment_and_part(
    qtbot, workspace, services, tmp_path: Path
) -> None:
    from tests.conftest import SHARED_FIXTURES

    fixtures = SHARED_FIXTURES / "fashionpedia"
    if not (fixtures / "sample.json").is_file():
        pytest.skip(f"shared Fashionpedia fixtures not found at {fixtures}")
    with Project.create(tmp_path / "p", image_root=fixtures / "images") as project:
        import_fashionpedia(project, fixtures / "sample.json", fixtures / "images")
    workspace.open_project(tmp_path / "p")
    thumbnails = services.thumbnails
    view = OutfitView(workspace, thumbnails)
    qtbot.addWidget(view)
    view.resize(1200, 800)
    view.show_project(workspace.project)
    view.show()
    seen = {}
    for _ in range(2):
        qtbot.waitUntil(lambda: view.canvas._pixmap_item is not None, timeout=5000)
        image = workspace.project.image(view.controller.image_id)
        assert view.canvas.image_size == (image.width, image.height)
        names = [view.region_list.item(i).text().strip()
                 for i in range(view.region_list.count())]
        assert len(view.canvas._items) == len(names)
        seen[view.controller.image_id] = names
        view.canvas.setFocus()
        qtbot.keyClick(view.canvas, Qt.Key.Key_J)
    assert seen == {
        "000000009813": ["shoe", "shoe", "dress", "sleeve", "sleeve", "neckline"],
        "000000010223": ["pants", "shirt, blouse", "sleeve", "sleeve", "collar", "hat"],
    }


def test_dragging_a_handle_reshapes_a_polygon_and_a_box(view: OutfitView) -> None:
    project = view.workspace.project
    view.category.setText("skirt")
    view.set_mode("polygon")
    for x, y in ((100, 300), (300, 300), (250, 500)):
        click(view, x, y)
    view.canvas.close_polygon()
    view.category.setText("hat")
    view.set_mode("box")
    drag(view, (150, 20), (250, 80))
    skirt, hat = load_outfit(project, "look").regions
    view.set_mode("select")
    drag(view, (250, 80), (270, 100))  # the hat's bottom-right corner
    hat = load_outfit(project, "look").regions[1]
    assert hat.box == pytest.approx((150, 20, 120, 80), abs=3) and hat.polygon is None
    view._select(skirt.id)
    drag(view, (250, 500), (200, 560))  # the skirt's third point
    skirt = load_outfit(project, "look").regions[0]
    assert skirt.polygon[0][4:6] == pytest.approx((200, 560), abs=3)
    assert skirt.box[3] == pytest.approx(260, abs=3)  # the box follows the points


def test_the_pane_imports_and_exports_outfits_as_jobs(window, event_loop_qt,
                                                       tmp_path: Path) -> None:
    from tests.outfit_samples import small_document, write_sample

    path = write_sample(tmp_path / "data")
    Project.create(tmp_path / "p", image_root=tmp_path / "data" / "images").close()
    assert window.open_project(tmp_path / "p")
    pane = next(p for p in window.panes if p.title == "Attributes")
    window.show_pane(window.panes.index(pane))
    pane.tabs.setCurrentWidget(pane.outfits)
    event_loop_qt.run_until_complete(pane.outfit_import("fashionpedia", path))
    assert pane.outfits.controller.image_ids == ["a", "b"]
    assert pane.outfits.region_list.count() == 4  # shirt, its sleeve, pants, its pocket
    event_loop_qt.run_until_complete(pane.outfit_export("fashionpedia", tmp_path / "o.json"))
    assert json.loads((tmp_path / "o.json").read_text()) == small_document()


# -- typing values: the box empties, one-valued fields replace, unknown words are explained --


def draw_shirt(view: OutfitView, qtbot) -> None:
    view.category.setText("shirt, blouse")
    view.set_mode("box")
    drag(view, (50, 40), (350, 300))
    view.category.setText("pants")
    drag(view, (80, 310), (320, 590))


def test_the_entry_empties_after_a_completion_is_added_and_on_another_region(
    view: OutfitView, qtbot
) -> None:
    draw_shirt(view, qtbot)
    entry = view.region_chips.entry
    entry.setFocus()
    qtbot.keyClicks(entry, "stri")
    popup = view.region_chips.completer.popup()
    qtbot.waitUntil(popup.isVisible)
    qtbot.keyClick(popup, Qt.Key.Key_Down)  # choose "stripe — textile pattern" …
    qtbot.keyClick(popup, Qt.Key.Key_Return)  # … and add it
    qtbot.waitUntil(lambda: len(view.region_chips.chips) == 1)
    assert [c.findChild(QPushButton).text() for c in view.region_chips.chips.values()] \
        == ["✓ stripe"]
    assert entry.text() == ""
    qtbot.keyClicks(entry, "blu")  # typed, not added, then another region
    view.step_region(1)
    assert entry.text() == ""
    view.outfit_chips.entry.setText("casu")
    view.step_region(1)
    assert view.outfit_chips.entry.text() == ""


def outfit_values(view: OutfitView) -> set[str]:
    outfit = load_outfit(view.workspace.project, "look")
    return {view.controller.name(label.value_id) for label in effective(outfit.outfit_labels)}


def test_a_one_valued_field_replaces_its_value_and_undo_brings_it_back(
    view: OutfitView, qtbot
) -> None:
    type_into(qtbot, view.outfit_chips.entry, "casual")
    type_into(qtbot, view.outfit_chips.entry, "summer")
    type_into(qtbot, view.outfit_chips.entry, "style: formal")  # as the chips read
    assert outfit_values(view) == {"formal", "summer"}
    assert view.outfit_chips.entry.text() == ""
    type_into(qtbot, view.outfit_chips.entry, "winter")  # seasons: several at once
    assert outfit_values(view) == {"formal", "summer", "winter"}
    view.undo()
    view.undo()
    assert outfit_values(view) == {"casual", "summer"}


def test_a_word_outside_the_ontology_is_explained_and_the_choices_are_listed(
    view: OutfitView, qtbot
) -> None:
    draw_shirt(view, qtbot)
    type_into(qtbot, view.region_chips.entry, "puff")
    text = view.message.text()
    assert "'puff'" in text and "attribute" in text
    assert "nearest" in text.lower()
    assert view.region_chips.entry.text() == "puff"  # kept, to be corrected
    popup = view.region_chips.completer.popup()
    assert popup.isVisible() and popup.model().rowCount() > 0  # the ontology's values
    type_into(qtbot, view.outfit_chips.entry, "style: formall")
    text = view.message.text()
    assert "'formall'" in text and "style" in text and "formal" in text


def test_outfit_import_and_export_dialogs_open_in_the_last_folder(
    window, tmp_path: Path, monkeypatch
) -> None:
    from PySide6.QtWidgets import QFileDialog

    Project.create(tmp_path / "p", image_root=tmp_path).close()
    assert window.open_project(tmp_path / "p")
    last = tmp_path / "datasets" / "fashionpedia"
    last.mkdir(parents=True)
    window.workspace.settings.last_folder = str(last)
    asked: list[str] = []

    def ask(_parent, _title, folder="", *_rest):
        asked.append(str(folder))
        return "", ""

    monkeypatch.setattr(QFileDialog, "getOpenFileName", ask)
    monkeypatch.setattr(QFileDialog, "getSaveFileName", ask)
    pane = next(p for p in window.panes if p.title == "Attributes")
    pane.ask_outfit_import("fashionpedia")
    pane.ask_outfit_export("omnifashion")
    QApplication.processEvents()
    assert len(asked) == 2
    assert Path(asked[0]) == last
    assert Path(asked[1]).parent == last


@pytest.mark.parametrize("size", [(1024, 700), (1280, 820)])
def test_the_outfits_tab_shows_everything(window, tmp_path: Path, size) -> None:
    from tests.gui.layout_checks import cut_widgets

    images = tmp_path / "images"
    images.mkdir()
    Image.new("RGB", (400, 600), (90, 120, 200)).save(images / "look.jpg")
    project = Project.create(tmp_path / "p", image_root=images)
    project.add_images([ImageRecord(id="look", path="look.jpg", width=400, height=600)])
    project.close()
    assert window.open_project(tmp_path / "p")
    window.resize(*size)
    pane = next(p for p in window.panes if p.title == "Attributes")
    window.show_pane(window.panes.index(pane))
    pane.tabs.setCurrentWidget(pane.outfits)
    view = pane.outfits
    draw_shirt(view, None)
    view.outfit_chips.entry.setText("casual")
    view._outfit_typed("casual")
    view._outfit_typed("street")
    view._attribute_typed("stripe")
    view._attribute_typed("blue")
    for _ in range(3):
        QApplication.processEvents()
    assert (window.width(), window.height()) == size
    assert cut_widgets(pane) == []
    # inside the side panel (it scrolls up and down, never sideways): nothing is wider
    # than the panel, so no button, chip × or description is cut at the right
    scroll = view.findChild(QScrollArea)
    side = scroll.widget()
    assert side.minimumSizeHint().width() <= scroll.viewport().width()
    for widget in side.findChildren(QWidget):
        if widget.isVisible():
            right = widget.mapTo(side, widget.rect().topRight()).x()
            assert right < scroll.viewport().width(), widget
