"""Experiments → Train…: a combiner trains with live progress and plot, and can be cancelled."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from studio.store import Project
from studio.training.combiner import list_combiners
from widgets.combiner_training_dialog import CombinerTrainingDialog


@pytest.fixture
def captioned(captioned_template: Path, tmp_path: Path) -> Path:
    target = tmp_path / "captioned"
    shutil.copytree(captioned_template, target)
    return target


def run_until(loop, predicate, timeout: float = 180.0) -> None:
    async def wait() -> None:
        while not predicate():
            await asyncio.sleep(0.02)

    loop.run_until_complete(asyncio.wait_for(wait(), timeout))


def open_training(window, qtbot, captioned: Path) -> CombinerTrainingDialog:
    assert window.open_project(captioned)
    qtbot.keyClick(window, Qt.Key.Key_4, Qt.KeyboardModifier.ControlModifier)
    pane = window.stack.currentWidget()
    pane.tabs.setCurrentWidget(pane.experiments)
    qtbot.mouseClick(pane.experiments.train_button, Qt.MouseButton.LeftButton)
    dialog = pane.experiments.findChild(CombinerTrainingDialog)
    assert dialog is not None and dialog.isVisible()
    return dialog


def test_train_action_trains_and_offers_the_combiner(
    window, qtbot, event_loop_qt, captioned: Path
) -> None:
    dialog = open_training(window, qtbot, captioned)
    dialog.name.setText("gui")
    dialog.epochs.setValue(3)
    qtbot.mouseClick(dialog.train_button, Qt.MouseButton.LeftButton)
    run_until(event_loop_qt, lambda: dialog.status.text().startswith("Trained"))
    assert "combiner:gui" in dialog.status.text()
    assert [row.epoch for row in dialog.epochs_seen][:2] == [0, 1]
    assert dialog.canvas is not None and dialog.canvas.isVisible()
    assert len(dialog.canvas.figure.axes) == 2
    strategies = window.stack.currentWidget().experiments.strategy
    assert "combiner:gui" in [strategies.itemText(i) for i in range(strategies.count())]
    assert [c.name for _, c in list_combiners(window.workspace.project)] == ["gui"]


def test_cancel_stops_training_and_saves_nothing(
    window, qtbot, event_loop_qt, captioned: Path
) -> None:
    dialog = open_training(window, qtbot, captioned)
    dialog.epochs.setValue(500)
    dialog.stop_early.setChecked(False)  # so it is still training when Cancel is pressed
    qtbot.mouseClick(dialog.train_button, Qt.MouseButton.LeftButton)
    run_until(event_loop_qt, lambda: dialog.running)
    run_until(event_loop_qt, lambda: len(dialog.epochs_seen) >= 2 or not dialog.running)
    assert dialog.running, dialog.status.text()  # still training, with epochs drawn live
    assert not dialog.train_button.isEnabled() and dialog.cancel_button.isEnabled()
    assert dialog.time_left.text().endswith("left")
    qtbot.mouseClick(dialog.cancel_button, Qt.MouseButton.LeftButton)
    run_until(event_loop_qt, lambda: "cancelled" in dialog.status.text())
    assert dialog.train_button.isEnabled() and not dialog.cancel_button.isEnabled()
    assert list_combiners(window.workspace.project) == []


def test_training_on_a_handful_of_triplets_warns_and_says_what_helps(
    window, qtbot, event_loop_qt, indexed_demo_dir: Path
) -> None:
    """#27 D15: a few triplets train, but the person is told it is too little and what
    would help; the plot's epoch axis is whole epochs, not -0.04 to 0.04."""
    from studio.pairs.mining import mine_pairs
    from studio.simulation.simulated_captions import caption_pairs

    with Project.open(indexed_demo_dir) as project:
        mine_pairs(project, "tfidf", 3, split="train", actor="tests")
        caption_pairs(project, per_pair=1)
    dialog = open_training(window, qtbot, indexed_demo_dir)
    dialog.epochs.setValue(1)
    qtbot.mouseClick(dialog.train_button, Qt.MouseButton.LeftButton)
    run_until(event_loop_qt, lambda: dialog.status.text().startswith("Trained"))
    text = dialog.status.text()
    assert "Too little data" in text and "only 3 training triplets" in text
    assert "captions for train-split pairs" in text and "drafted share" in text
    for axes in dialog.canvas.figure.axes:
        low, high = axes.get_xlim()
        assert low <= 0 and high >= 1  # epochs 0 and 1 both on the axis
