"""Settings: who is working, which embedding model, which device."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLineEdit,
    QWidget,
)

from studio.settings import Settings

MODEL_CHOICES = (
    "demo",
    "open_clip:ViT-B-32/laion2b_s34b_b79k",
    "open_clip:hf-hub:Marqo/marqo-fashionSigLIP",
    "transformers:openai/clip-vit-base-patch32",
)
DEVICE_CHOICES = ("auto", "cpu", "cuda", "mps")


class SettingsDialog(QDialog):
    def __init__(self, settings: Settings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.settings = settings
        self.setWindowTitle("Settings")
        form = QFormLayout(self)
        self.user_name = QLineEdit(settings.user_name)
        self.user_name.setPlaceholderText("your name, as recorded with your edits")
        form.addRow("Your name", self.user_name)
        self.model = QComboBox()
        self.model.setEditable(True)
        self.model.addItems(MODEL_CHOICES)
        self.model.setCurrentText(settings.model)
        self.model.setToolTip(
            "Embedding model used for indexes, suggestions and retrieval. 'demo' works offline; "
            "hub models are downloaded on first use."
        )
        form.addRow("Embedding model", self.model)
        self.device = QComboBox()
        self.device.addItems(DEVICE_CHOICES)
        self.device.setCurrentText(settings.device if settings.device in DEVICE_CHOICES else "auto")
        self.device.setToolTip("auto picks CUDA, then Apple MPS, then the CPU")
        form.addRow("Device", self.device)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def accept(self) -> None:
        self.settings.user_name = self.user_name.text().strip()
        self.settings.model = self.model.currentText().strip() or "demo"
        self.settings.device = self.device.currentText()
        self.settings.save()
        super().accept()
