"""About CIR Studio: version, active model and device."""

from __future__ import annotations

import sys

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QVBoxLayout, QWidget

from studio import __version__
from studio.settings import Settings


def describe_device(setting: str) -> str:
    """The device setting, resolved only if torch is already loaded (never import it here)."""
    torch = sys.modules.get("torch")
    if setting != "auto" or torch is None:
        return setting if setting != "auto" else "auto (chosen when a model loads)"
    if torch.cuda.is_available():
        return f"auto → cuda ({torch.cuda.get_device_name(0)})"
    return "auto → cpu"


class AboutDialog(QDialog):
    def __init__(self, settings: Settings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("About CIR Studio")
        layout = QVBoxLayout(self)
        self.text = QLabel(
            f"<h2>CIR Studio {__version__}</h2>"
            "<p>Annotate, rate and search composed, multi-turn and chat-based "
            "image retrieval datasets.</p>"
            f"<p><b>Model:</b> {settings.model}<br><b>Device:</b> "
            f"{describe_device(settings.device)}<br><b>Python:</b> {sys.version.split()[0]}</p>"
        )
        self.text.setWordWrap(True)
        layout.addWidget(self.text)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
