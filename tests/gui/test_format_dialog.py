"""The options dialog of File → Import / File → Export: generated from each format's
declaration, one row per option with the declared kind, help and default."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QCheckBox, QComboBox, QLineEdit, QSpinBox

from studio.exporters.registry import export_formats
from studio.importers.registry import import_formats
from studio.settings import Settings
from widgets.format_dialog import FormatDialog, PathField

KIND_WIDGET = {"file": PathField, "folder": PathField, "path": PathField, "choice": QComboBox,
               "int": QSpinBox, "bool": QCheckBox, "text": QLineEdit}
FORMATS = [("Import", fmt) for fmt in import_formats().values()] + [
    ("Export", fmt) for fmt in export_formats().values()]


@pytest.mark.parametrize(("verb", "fmt"), FORMATS, ids=lambda v: getattr(v, "name", v))
def test_the_dialog_has_the_declared_options(qtbot, verb, fmt) -> None:
    dialog = FormatDialog(fmt, verb, Settings())
    qtbot.addWidget(dialog)
    assert dialog.windowTitle() == f"{verb} {fmt.title}"
    assert list(dialog.fields) == [option.name for option in fmt.options]
    for option in fmt.options:
        widget = dialog.fields[option.name]
        assert isinstance(widget, KIND_WIDGET[option.kind]), option.name
        assert widget.toolTip() == option.help
        if option.kind == "choice":
            assert [widget.itemText(i) for i in range(widget.count())] == list(option.choices)
    # What the dialog gives untouched is what the command line gives without flags.
    values = dialog.values()
    assert {name: value for name, value in values.items() if name != fmt.input.name} == {
        option.name: option.default for option in fmt.options if option is not fmt.input}
    assert not dialog.ok_button.isEnabled()  # the input is not given yet
    dialog.fields[fmt.input.name].setText("/data/here")
    assert dialog.ok_button.isEnabled() and dialog.values()[fmt.input.name] == "/data/here"


def test_each_kind_of_field_gives_its_value(qtbot) -> None:
    fmt = import_formats()["fashionmt"]
    dialog = FormatDialog(fmt, "Import", Settings())
    qtbot.addWidget(dialog)
    dialog.fields["file"].setText(" looks.json ")
    dialog.fields["dataset"].setText("looks")
    dialog.fields["skip_invalid"].setChecked(True)
    dialog.fields["id_from"].setCurrentText("path")
    assert dialog.values() == {"file": "looks.json", "dataset": "looks", "skip_invalid": True,
                               "id_from": "path"}
    seed = FormatDialog(export_formats()["omnifashion"], "Export", Settings())
    qtbot.addWidget(seed)
    seed.fields["seed"].setValue(7)
    assert seed.values()["seed"] == 7
