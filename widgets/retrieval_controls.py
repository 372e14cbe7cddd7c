"""The Retrieval session's settings strip: mode, strategy, how many results, gallery,
secret target, New session.

It holds the controls and turns them into ``SessionOptions``; the pane connects them
to what they change. The strip is a flow layout, so in a narrow window it wraps to a
second row instead of cutting texts (each label stays with its control).
"""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSpinBox,
    QWidget,
)

from studio.sessions.controller import ALL_CATEGORIES, REFERENCE_CATEGORY, SessionOptions
from studio.sessions.strategies import DEFAULT_STRATEGY, STRATEGIES
from widgets import actions
from widgets.flow_layout import FlowLayout


class SessionControls:
    """The controls of the strip and ``bar``, the layout that holds them."""

    def __init__(self) -> None:
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
        # Trained combiners arrive later (history+combiner:NAME): the box follows them.
        self.strategy.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.top_k = QSpinBox()
        self.top_k.setRange(1, 50)
        self.top_k.setValue(10)
        self.top_k.setToolTip("How many results to show (up to 50)")
        self.gallery = QComboBox()
        self.gallery.setToolTip("Which images are searched. By default the reference's "
                                "category, as the simulations search")
        self.secret_target = QCheckBox("Secret target")
        self.secret_target.setChecked(True)
        self.secret_target.setToolTip("Pick a hidden target from the gallery and show its rank "
                                      "after every turn")
        self.new_button = QPushButton("New session")
        self.new_button.setToolTip(
            actions.tooltip("retrieval.new_session", "Start over with a new random target"))
        # The gallery combo shows its whole choice.
        self.gallery.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.bar = FlowLayout()
        for label, widget in (("Mode", self.mode), ("Strategy", self.strategy),
                              ("Show", self.top_k), ("Gallery", self.gallery)):
            group = QWidget()
            group_layout = QHBoxLayout(group)
            group_layout.setContentsMargins(0, 0, 0, 0)
            group_layout.addWidget(QLabel(label))
            group_layout.addWidget(widget)
            self.bar.addWidget(group)
        self.bar.addWidget(self.secret_target)
        self.bar.addWidget(self.new_button)

    def options(self) -> SessionOptions:
        return SessionOptions(
            mode="chat" if self.mode.currentIndex() == 1 else "composed",
            strategy=self.strategy.currentData(), k=self.top_k.value(),
            secret_target=self.secret_target.isChecked(),
            gallery=self.gallery.currentData() or REFERENCE_CATEGORY,
        )

    def fill_galleries(self, categories: Iterable[str]) -> None:
        """The gallery choices of a loaded index, without announcing a change."""
        self.gallery.blockSignals(True)
        self.gallery.clear()
        self.gallery.addItem("Reference's category", REFERENCE_CATEGORY)
        self.gallery.addItem("All images", ALL_CATEGORIES)
        for category in categories:
            self.gallery.addItem(category, category)
        self.gallery.blockSignals(False)

    def add_strategies(self, names: Iterable[str]) -> None:
        """Strategies beyond the built-in ones (combiners trained for the model)."""
        for name in names:
            if self.strategy.findData(name) < 0:
                self.strategy.addItem(name, name)
