"""The options of one import or export format, as a dialog generated from its declaration.

Each declared option (``studio.importers.registry.Option``) becomes one row: a path with a
Browse… button (file, folder or a file to write), a combo box (choice), a spin box (int),
a check box (bool) or a text box (text), with the option's help as its tooltip and its
default filled in. OK stays off until the input (the file or folder read) is given. The
dialog only collects values; the caller runs the job.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QMenu,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from studio.importers.registry import KIND_WORDS, Option
from studio.settings import Settings
from widgets.elided_label import WrappedLabel
from widgets.file_dialogs import choose_folder, open_file, save_file


class PathField(QWidget):
    """A path typed or picked: ``file`` opens a file, ``folder`` picks a folder, ``path``
    names a file (or folder) to write."""

    def __init__(self, option: Option, settings: Settings, parent: QWidget | None = None):
        super().__init__(parent)
        self.option = option
        self._settings = settings
        self.edit = QLineEdit(str(option.default or ""))
        self.edit.setPlaceholderText(option.metavar or option.name.upper())
        self.browse = QPushButton("Browse…")
        self.browse.setToolTip(f"Pick {KIND_WORDS[option.kind]}")
        self.browse.clicked.connect(self.pick)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.edit, 1)
        layout.addWidget(self.browse)

    def pick(self) -> None:
        title = self.option.title
        if self.option.kind == "folder":
            chosen = choose_folder(self, self._settings, title)
        elif self.option.kind == "file":
            chosen = open_file(self, self._settings, title, "All files (*)")
        else:
            chosen = save_file(self, self._settings, title, self.edit.text(), "All files (*)")
        if chosen:
            self.edit.setText(chosen)

    def text(self) -> str:
        return self.edit.text().strip()

    def setText(self, text: str) -> None:  # noqa: N802 (Qt's spelling, as QLineEdit's)
        self.edit.setText(text)


class FormatDialog(QDialog):
    """``FormatDialog(fmt, "Import", settings)``: ``fields`` maps each option's name to its
    widget; ``values()`` gives what ``fmt.run`` takes."""

    def __init__(self, fmt: Any, verb: str, settings: Settings,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.format = fmt
        self.setWindowTitle(f"{verb} {fmt.title}")
        self.setObjectName(f"{verb.lower()}-{fmt.name}")
        about = WrappedLabel(fmt.details or fmt.description[0].upper() + fmt.description[1:] + ".")
        form = QFormLayout()
        self.fields: dict[str, QWidget] = {}
        for option in fmt.options:
            widget = self._field(option, settings)
            widget.setObjectName(option.name)
            widget.setToolTip(option.help)
            self.fields[option.name] = widget
            if option.kind == "bool":
                form.addRow("", widget)
            else:
                form.addRow(option.title + ("" if not option.required else " *"), widget)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.ok_button = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.ok_button.setText(verb)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(about)
        layout.addLayout(form)
        layout.addWidget(self.buttons)
        self.resize(560, self.sizeHint().height())
        self._update_ok()

    def _field(self, option: Option, settings: Settings) -> QWidget:
        if option.kind in ("file", "folder", "path"):
            path = PathField(option, settings)
            path.edit.textChanged.connect(self._update_ok)
            return path
        if option.kind == "choice":
            combo = QComboBox()
            combo.addItems(list(option.choices))
            combo.setCurrentText(str(option.default))
            return combo
        if option.kind == "int":
            spin = QSpinBox()
            spin.setRange(option.minimum, option.maximum)
            spin.setValue(int(option.default or 0))
            return spin
        if option.kind == "bool":
            check = QCheckBox(option.title)
            check.setChecked(bool(option.default))
            return check
        edit = QLineEdit(str(option.default or ""))
        edit.setPlaceholderText(option.metavar or "")
        if option.required:
            edit.textChanged.connect(self._update_ok)
        return edit

    def _update_ok(self) -> None:
        given = self.values()
        self.ok_button.setEnabled(all(given.get(o.name) not in (None, "")
                                      for o in self.format.options if o.required))

    def values(self) -> dict[str, Any]:
        """Each option's value; an empty path or text is None (the option's default)."""
        values: dict[str, Any] = {}
        for option in self.format.options:
            widget = self.fields.get(option.name)
            if widget is None:  # still being built
                continue
            if isinstance(widget, PathField | QLineEdit):
                text = widget.text().strip()
                values[option.name] = text or (None if option.kind != "text" else
                                               option.default)
            elif isinstance(widget, QComboBox):
                values[option.name] = widget.currentText()
            elif isinstance(widget, QSpinBox):
                values[option.name] = widget.value()
            elif isinstance(widget, QCheckBox):
                values[option.name] = widget.isChecked()
        return values


def fill_format_menu(menu: QMenu, formats: Mapping[str, Any], open_format: Callable[[str], Any]
                     ) -> None:
    """One entry per declared format, "Title…" with its description as tooltip: File →
    Import, File → Export and the Pairs pane's Import… button list the registries."""
    menu.setToolTipsVisible(True)
    for fmt in formats.values():
        action = menu.addAction(f"{fmt.title}…", lambda name=fmt.name: open_format(name))
        action.setToolTip(fmt.description)
        action.setData(fmt.name)
