"""File → Connect to team server…: the address and the token, checked before it is kept.

Connect asks the server who the token belongs to (``/v1/whoami``) on the net lane, so the
dialog never freezes on a slow network; the answer is one line ("Connected as ana
(annotator)", "The server refused: This token is unknown or was revoked.", "The server
does not answer …"). Where the token goes is said under the fields: the system keyring,
or the settings file in plain text where this machine has no keyring. Disconnect stops
using the server and forgets the token; edits still waiting stay in the outbox.
"""

from __future__ import annotations

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from studio.server import credentials
from widgets.file_dialogs import choose_folder
from widgets.team_connection import TeamConnection


class ConnectDialog(QDialog):
    def __init__(self, connection: TeamConnection, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("connect_dialog")
        self.setWindowTitle("Connect to team server")
        self.connection = connection
        settings = connection.services.workspace.settings
        self.url = QLineEdit(connection.url or settings.team_server or "http://")
        self.url.setPlaceholderText("https://team.example.org")
        self.token = QLineEdit()
        self.token.setEchoMode(QLineEdit.EchoMode.Password)
        self.token.setPlaceholderText("the token your coordinator gave you (shown once)")
        self.pictures = QLineEdit(settings.team_image_root)
        self.pictures.setPlaceholderText("optional: a local copy of the project's pictures")
        self.pictures.setToolTip(
            "Pictures are read from here first (by image id), else fetched from the server")
        self.pictures.editingFinished.connect(self._keep_pictures)
        browse = QPushButton("Choose…")
        browse.setAutoDefault(False)  # Enter in a field connects; it never opens the chooser
        browse.clicked.connect(self._choose_pictures)
        pictures_row = QHBoxLayout()
        pictures_row.addWidget(self.pictures, 1)
        pictures_row.addWidget(browse)
        form = QFormLayout()
        form.addRow("Server address", self.url)
        form.addRow("Token", self.token)
        form.addRow("Local pictures", pictures_row)
        self.result = QLabel()
        self.result.setObjectName("connect_result")
        self.result.setWordWrap(True)
        self.where = QLabel()
        self.where.setObjectName("token_note")
        self.where.setWordWrap(True)
        self.where.setStyleSheet("color: #6b7280;")
        self.connect_button = QPushButton("Connect")
        self.connect_button.clicked.connect(self.check)
        self.disconnect_button = QPushButton("Disconnect")
        self.disconnect_button.clicked.connect(self.disconnect)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.addButton(self.connect_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.addButton(self.disconnect_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.result)
        layout.addWidget(self.where)
        layout.addWidget(buttons)
        # Made default once it is inside the dialog (a button outside any dialog cannot
        # become its default, and the dialog would pick Close): Enter in a field connects.
        self.connect_button.setDefault(True)
        self._show_state()
        self.resize(520, self.sizeHint().height())

    def _show_state(self) -> None:
        connection = self.connection
        self.disconnect_button.setEnabled(connection.connected)
        if connection.connected:
            self.result.setText(
                f"Connected to {connection.url}: {connection.status_text()}."
            )
            self.where.setText(credentials.stored_where(connection.services.workspace.settings))
        elif not credentials.has_keyring():
            self.where.setText(credentials.PLAIN_NOTE)
        else:
            self.where.setText(credentials.KEYRING_NOTE)

    def _choose_pictures(self) -> None:
        settings = self.connection.services.workspace.settings
        folder = choose_folder(self, settings, "A local copy of the team project's pictures")
        if folder:
            self.pictures.setText(folder)
            self._keep_pictures()

    def _keep_pictures(self) -> None:
        settings = self.connection.services.workspace.settings
        settings.team_image_root = self.pictures.text().strip()
        settings.save()

    def check(self) -> None:
        self.connect_button.setEnabled(False)
        self.result.setText("Connecting…")
        self.connection.connect_to(
            self.url.text(), self.token.text(), done=self._connected, failed=self._refused,
            owner=self,
        )

    def _connected(self, note: str) -> None:
        self.connect_button.setEnabled(True)
        self.token.clear()
        connection = self.connection
        self.result.setText(f"Connected as {connection.name} ({connection.role}).")
        self.where.setText(note)
        self.disconnect_button.setEnabled(True)

    def _refused(self, message: str) -> None:
        self.connect_button.setEnabled(True)
        self.result.setText(message)

    def disconnect(self) -> None:
        self.connection.disconnect()
        self.result.setText("Disconnected; edits not yet sent stay on this computer and go "
                            "out when you connect to this server again.")
        self.disconnect_button.setEnabled(False)
