"""File dialogs that open where the person last was, and remember where that is.

Qt's static dialogs start in the process's working directory when given no folder, which
for a studio started from a menu or a terminal is rarely where projects are. Every New,
Open, Merge and Export dialog goes through here: it starts in the folder last used (kept
in Settings), else the folder of the most recent project, else the home folder.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QWidget

from studio.settings import Settings


def start_folder(settings: Settings) -> Path:
    for candidate in (settings.last_folder, *settings.recent_projects[:1]):
        if not candidate:
            continue
        folder = Path(candidate)
        folder = folder if folder.is_dir() else folder.parent
        if folder.is_dir():
            return folder
    return Path.home()


def remember(settings: Settings, chosen: str | Path) -> None:
    """Keep the folder of what was chosen (a file's folder, or the folder itself)."""
    path = Path(chosen)
    folder = path if path.is_dir() else path.parent
    if str(folder) != settings.last_folder:
        settings.last_folder = str(folder)
        settings.save()


def open_file(parent: QWidget, settings: Settings, title: str, pattern: str) -> str:
    path, _ = QFileDialog.getOpenFileName(parent, title, str(start_folder(settings)), pattern)
    if path:
        remember(settings, path)
    return path


def open_files(parent: QWidget, settings: Settings, title: str, pattern: str) -> list[str]:
    paths, _ = QFileDialog.getOpenFileNames(parent, title, str(start_folder(settings)), pattern)
    if paths:
        remember(settings, paths[0])
    return paths


def save_file(parent: QWidget, settings: Settings, title: str, name: str, pattern: str) -> str:
    """``name`` is a file name (placed in the start folder) or a whole path (kept)."""
    suggested = Path(name) if Path(name).is_absolute() else start_folder(settings) / name
    path, _ = QFileDialog.getSaveFileName(parent, title, str(suggested), pattern)
    if path:
        remember(settings, path)
    return path


def choose_folder(parent: QWidget, settings: Settings, title: str, start: str = "") -> str:
    folder = QFileDialog.getExistingDirectory(parent, title, start or str(start_folder(settings)))
    if folder:
        remember(settings, folder)
    return folder
