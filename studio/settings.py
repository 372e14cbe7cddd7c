"""User settings and per-user folders (demo project, recent projects), stored as JSON.

``CIR_STUDIO_HOME`` moves every per-user file under one folder: tests and portable
installs use it so they never touch the real home directory.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

import platformdirs

APP_NAME = "cir-studio"
MAX_RECENT = 10


def data_dir() -> Path:
    home = os.environ.get("CIR_STUDIO_HOME")
    return Path(home) / "data" if home else Path(platformdirs.user_data_dir(APP_NAME))


def config_dir() -> Path:
    home = os.environ.get("CIR_STUDIO_HOME")
    return Path(home) / "config" if home else Path(platformdirs.user_config_dir(APP_NAME))


def demo_project_dir() -> Path:
    return data_dir() / "demo"


@dataclass
class Settings:
    """What a person chooses once and expects to find again next time."""

    model: str = "demo"
    device: str = "auto"
    user_name: str = ""
    recent_projects: list[str] = field(default_factory=list)
    last_folder: str = ""  # where file dialogs open (widgets/file_dialogs.py)
    window_geometry: str = ""  # the main window's size and place (Qt's saveGeometry, base64)
    last_pane: int = 0  # the pane shown when the window last closed
    # The team server the studio connects to on start (File → Connect to team server…);
    # its token is in the OS keyring, or here in plain text where no keyring is usable
    # (studio/server/credentials.py says which, and the dialog says so to the person).
    team_server: str = ""
    team_token_plain: str = ""
    team_image_root: str = ""  # a local copy of the server's image root, if the person has one

    @classmethod
    def load(cls) -> Settings:
        path = config_dir() / "settings.json"
        try:
            stored = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return cls()
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in stored.items() if k in known} if isinstance(stored, dict) else {}
        try:
            return cls(**values)
        except TypeError:
            return cls()

    def save(self) -> None:
        """Write atomically, so a crash never leaves half a settings file."""
        folder = config_dir()
        folder.mkdir(parents=True, exist_ok=True)
        temporary = folder / "settings.json.tmp"
        temporary.write_text(json.dumps(asdict(self), indent=2), encoding="utf-8")
        os.replace(temporary, folder / "settings.json")

    @property
    def model_device(self) -> str | None:
        """The device as model loaders take it: None (they choose) for "auto"."""
        return None if not self.device or self.device == "auto" else self.device

    def remember_project(self, path: Path | str) -> None:
        """Keep ``path`` (or a project URL, as given) first in the recent projects."""
        text = path if isinstance(path, str) and "://" in path else str(Path(path).resolve())
        self.recent_projects = [text] + [p for p in self.recent_projects if p != text]
        del self.recent_projects[MAX_RECENT:]
