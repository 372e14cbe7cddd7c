"""The Pairs pane: filters, search, the side-by-side view, jobs, and 100,000 pairs."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from studio.captions import store
from studio.pairs.mining import mine_pairs
from studio.store import Project
from studio.store.database import utc_now
from tests.gui.window_panes import show_pane_titled
from widgets.pair_model import PAGE_SIZE, PairTableModel
from widgets.panes.pairs_pane import PairsPane


@pytest.fixture
def mined_demo(demo_project_dir: Path) -> Path:
    with Project.open(demo_project_dir) as project:
        assert mine_pairs(project, "tfidf", 12).added == 12
        first = project.db.execute("SELECT min(id) FROM pairs").fetchone()[0]
        store.submit_caption(project, first, "ana", "is red with longer sleeves")
    return demo_project_dir


def pairs_pane(window) -> PairsPane:
    window.show_pane(0)
    pane = window.panes[0]
    assert isinstance(pane, PairsPane)
    return pane


def choose(box, data) -> None:
    box.setCurrentIndex(box.findData(data))


def test_filters_and_search_narrow_the_list(window, mined_demo, qtbot) -> None:
    window.open_project(mined_demo)
    pane = pairs_pane(window)
    assert pane.model.rowCount() == 12 and pane.count_label.text() == "12 pairs"
    choose(pane.status, "needs_more")
    assert pane.model.rowCount() == 1 and pane.count_label.text() == "1 of 12 pairs"
    choose(pane.status, None)
    choose(pane.annotator, "ana")
    assert pane.model.rowCount() == 1
    choose(pane.annotator, None)
    choose(pane.category, "shirt")
    shirts = pane.model.rowCount()
    assert 0 < shirts < 12
    assert all(pane.model.row_at(r).category == "shirt" for r in range(shirts))
    choose(pane.category, None)
    target = pane.model.row_at(5).target_id
    qtbot.keyClicks(pane.search, target)
    qtbot.waitUntil(lambda: 0 < pane.model.rowCount() < 12)
    assert all(
        target in (pane.model.row_at(r).reference_id, pane.model.row_at(r).target_id)
        for r in range(pane.model.rowCount())
    )


def test_the_selected_pair_shows_side_by_side_with_thumbnails(window, mined_demo, qtbot) -> None:
    window.open_project(mined_demo)
    pane = pairs_pane(window)
    pane.select_row(0)
    pair = pane.model.row_at(0)
    assert pane.view.reference.title.text() == pair.reference_title
    assert pane.view.target.title.text() == pair.target_title
    assert pane.view.reference.description.text()
    assert pane.captions.item(0).text().startswith("is red with longer sleeves")
    reference = pane.view.reference
    # Decoded off the UI thread; the placeholder is replaced once the file is read.
    qtbot.waitUntil(
        lambda: pane.thumbnails.cached(reference.path, reference.shown_size) is not None
    )
    assert (
        reference.picture.pixmap().cacheKey()
        == pane.thumbnails.cached(reference.path, reference.shown_size).cacheKey()
    )
    before = reference.shown_size
    reference.scroll.setFocus()
    qtbot.keyClick(reference.scroll, Qt.Key.Key_Plus, Qt.KeyboardModifier.ControlModifier)
    assert pane.view.image_size > before


def test_mining_runs_as_a_job_and_extends_the_list(window, mined_demo, event_loop_qt) -> None:
    window.open_project(mined_demo)
    pane = pairs_pane(window)
    report = event_loop_qt.run_until_complete(pane.mine("tfidf", 5))
    assert report.added == 5
    assert pane.model.rowCount() == 17
    assert pane.message.text() == "Added 5 tfidf pairs."


def test_importing_fashion_iq_from_the_pane(
    window, tmp_path, fashioniq_fixtures, event_loop_qt
) -> None:
    window.workspace.create_project(tmp_path / "fiq")
    pane = pairs_pane(window)
    report = event_loop_qt.run_until_complete(pane.run_import("fashioniq", fashioniq_fixtures))
    # dress, shirt and toptee val; shirt and toptee share images, each counted once
    assert report.pairs_added == 2017 + 2038 + 1961
    assert pane.count_label.text() == "6,016 pairs"
    assert f"{len(report.missing_images):,} image files missing" in pane.message.text()
    assert len(report.missing_images) == window.workspace.project.count_images() == 15415
    # Missing files show a placeholder, not an error.
    pane.select_row(0)
    assert pane.view.reference.image_id.text().endswith("image file missing")


def test_a_refused_import_offers_to_import_the_valid_entries(
    window, tmp_path, event_loop_qt, qtbot
) -> None:
    root = tmp_path / "bad"
    (root / "captions").mkdir(parents=True)
    (root / "captions" / "cap.dress.val.json").write_text(
        '[{"target": "a", "candidate": "b", "captions": ["x"]}, {"candidate": "c"}]'
    )
    window.workspace.create_project(tmp_path / "p")
    pane = pairs_pane(window)
    assert event_loop_qt.run_until_complete(pane.run_import("fashioniq", root)) is None
    assert "entry [1]" in pane.message.text() and pane.model.rowCount() == 0
    box = pane.problem_box
    assert "missing key 'target'" in box.detailedText()
    [skip] = [b for b in box.buttons() if b.text() == "Import the valid entries"]

    async def click_and_wait() -> None:
        skip.click()
        while pane.model.rowCount() == 0:
            await asyncio.sleep(0.02)

    event_loop_qt.run_until_complete(asyncio.wait_for(click_and_wait(), 10))
    assert "1 invalid entry skipped" in pane.message.text()  # #27 D20: not "1 entries"


def build_large_project(path: Path, pairs: int = 100_000) -> Project:
    project = Project.create(path)
    now = utc_now()
    project.db.conn.executemany(
        "INSERT INTO images (id, path, category, split, title, missing, added_at) "
        "VALUES (?, ?, 'dress', 'train', ?, 1, ?)",
        [(f"i{n}", f"i{n}.jpg", f"Dress number {n}", now) for n in range(1000)],
    )
    with project.db.atomic():
        project.db.conn.executemany(
            "INSERT INTO pairs (reference_id, target_id, category, split, method, source, "
            "external_key, created_at) VALUES (?, ?, 'dress', 'train', 'manual', 'bench', ?, ?)",
            [(f"i{n % 1000}", f"i{(n * 7 + 1) % 1000}", str(n), now) for n in range(pairs)],
        )
    return project


def test_a_100k_pair_list_fetches_only_the_rows_in_view(qtbot, tmp_path) -> None:
    from PySide6.QtWidgets import QTableView

    with build_large_project(tmp_path / "big") as project:
        model = PairTableModel()
        model.load(project)
        view = QTableView()
        qtbot.addWidget(view)
        view.verticalHeader().setDefaultSectionSize(50)
        view.setModel(model)
        view.resize(900, 600)
        view.show()
        QApplication.processEvents()
        assert model.rowCount() == 100_000
        assert model.page_fetches <= 2 and model.rows_fetched <= 2 * PAGE_SIZE
        for row in (50_000, 73_210, 99_999):
            view.scrollTo(model.index(row, 0))
            QApplication.processEvents()
            assert view.indexAt(view.viewport().rect().center()).isValid()
        assert model.page_fetches <= 2 + 3 * 2
        assert model.rows_fetched <= (2 + 3 * 2) * PAGE_SIZE
        middle = view.indexAt(view.viewport().rect().center())
        assert model.data(model.index(middle.row(), 0)) == str(model.ids[middle.row()])


def test_an_imported_folder_names_the_pictures_that_cannot_be_read(
    window, tmp_path, event_loop_qt
) -> None:
    """A picture too large to decode (a decompression bomb) is imported but cannot be read:
    the window says how many and names them, as the command line does."""
    import struct
    import zlib

    from PIL import Image

    photos = tmp_path / "photos"
    photos.mkdir()
    Image.new("RGB", (8, 8), (200, 30, 30)).save(photos / "red.png")

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", 100_000, 100_000, 8, 2, 0, 0, 0)
    body = chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\0" * 64)) + chunk(b"IEND", b"")
    (photos / "bomb.png").write_bytes(b"\x89PNG\r\n\x1a\n" + body)
    window.workspace.create_project(tmp_path / "p")
    pane = pairs_pane(window)
    report = event_loop_qt.run_until_complete(pane.run_import("folder", photos))
    assert report is not None and report.images_added == 2
    assert "1 picture that cannot be read" in pane.message.text()
    assert "bomb.png" in pane.message.toolTip()


def test_the_pairs_message_goes_with_its_project(
    window, demo_project_dir, tmp_path, event_loop_qt
) -> None:
    """"Added 6 tfidf pairs." is not shown in a project created afterwards."""
    assert window.open_project(demo_project_dir)
    pairs = window.panes[0]
    event_loop_qt.run_until_complete(pairs.mine("tfidf", 6))
    assert "Added" in pairs.message.text()
    window.workspace.create_project(tmp_path / "fresh", image_root=demo_project_dir)
    window.show_pane(0)
    assert pairs.message.text() == ""


def test_a_refused_import_says_what_to_do_in_the_window(window, tmp_path, event_loop_qt) -> None:
    """No "use --skip-invalid" (a command-line flag) in the window."""
    root = tmp_path / "bad"
    (root / "captions").mkdir(parents=True)
    (root / "captions" / "cap.dress.val.json").write_text(
        '[{"target": "a", "candidate": "b", "captions": ["x"]}, {"candidate": "c"}]'
    )
    window.workspace.create_project(tmp_path / "p")
    pane = window.panes[0]
    assert event_loop_qt.run_until_complete(pane.run_import("fashioniq", root)) is None
    shown = pane.message.text() + " " + pane.problem_box.text()
    assert "--skip-invalid" not in shown
    assert "“Import the valid entries” imports the rest" in pane.message.text()
    assert "3 problems; nothing was written" in pane.problem_box.text()


def test_pairs_zoom_keys_work_with_the_focus_on_the_list(window, demo_project_dir, qtbot) -> None:
    with Project.open(demo_project_dir) as project:
        mine_pairs(project, "tfidf", 10)
    assert window.open_project(demo_project_dir)
    pane = show_pane_titled(window, "Pairs")
    pane.select_row(0)
    pane.table.setFocus()
    assert pane.table.hasFocus()
    before = pane.view.image_size
    qtbot.keyClick(pane.table, Qt.Key.Key_Plus, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(pane.table, Qt.Key.Key_Plus, Qt.KeyboardModifier.ControlModifier)
    assert pane.view.zoom_percent == 200 and pane.view.image_size > before
    QApplication.processEvents()
    bar = pane.view.reference.scroll.horizontalScrollBar()
    assert bar.maximum() > 0
    assert abs(bar.value() - bar.maximum() / 2) <= 1  # the garment stays in the middle
    pane.search.setFocus()
    qtbot.keyClick(pane.search, Qt.Key.Key_0, Qt.KeyboardModifier.ControlModifier)
    assert pane.view.zoom_percent == 100


def test_pairs_with_no_match_say_so(window, demo_project_dir, qtbot) -> None:
    with Project.open(demo_project_dir) as project:
        mine_pairs(project, "tfidf", 10)
    assert window.open_project(demo_project_dir)
    pane = show_pane_titled(window, "Pairs")
    pane.search.setText("no such garment anywhere")
    pane.apply_filters()
    assert pane.model.rowCount() == 0
    assert pane.no_match.isVisible()
    assert "No pair matches" in pane.no_match.text()
    pane.search.clear()
    pane.apply_filters()
    assert not pane.no_match.isVisible()


def test_the_mine_dialog_asks_whether_to_allow_mirrored_pairs(qtbot) -> None:
    from widgets.mine_dialog import MineDialog

    dialog = MineDialog(["dress"], ["train"], embedding=False)
    qtbot.addWidget(dialog)
    assert dialog.values()["mirrored"] is False  # off unless asked
    dialog.mirrored.setChecked(True)
    assert dialog.values()["mirrored"] is True
    assert "B→A" in dialog.mirrored.text()
