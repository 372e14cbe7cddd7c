"""Shipped files (style sheet, demo model, vocabularies) and where to find them.

Looked up next to this file, which also holds inside a PyInstaller bundle because the
spec collects this folder as data.
"""

from pathlib import Path

ROOT = Path(__file__).resolve().parent


def resource_path(*parts: str) -> Path:
    return ROOT.joinpath(*parts)
