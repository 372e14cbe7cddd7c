"""The manual's "Setup under X" (docs/install.md) names every X11 library Qt's xcb plugin loads (issue #27, item 19).

A person who installs only what the manual lists must get a window: the list is checked
against what PySide6's ``libQt6XcbQpa`` actually links to, read from its ELF header.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _debian_package(soname: str) -> str:
    """``libxcb-icccm.so.4`` → ``libxcb-icccm4``; ``libxkbcommon-x11.so.0`` →
    ``libxkbcommon-x11-0`` (Debian's rule: a dash when the name ends in a digit)."""
    base, version = re.fullmatch(r"(.+)\.so\.(\d+).*", soname).groups()  # type: ignore[union-attr]
    base = base.lower()
    return f"{base}-{version}" if base[-1].isdigit() else f"{base}{version}"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the xcb plugin is Linux's")
def test_manual_lists_every_x11_library_of_the_xcb_plugin() -> None:
    import PySide6

    if shutil.which("readelf") is None:
        pytest.skip("readelf (binutils) is not installed")
    plugin = Path(PySide6.__file__).parent / "Qt" / "lib" / "libQt6XcbQpa.so.6"
    if not plugin.exists():
        pytest.skip(f"no xcb plugin library at {plugin}")
    dynamic = subprocess.run(
        ["readelf", "-d", str(plugin)], capture_output=True, text=True, check=True
    ).stdout
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", dynamic)
    x11 = sorted(
        _debian_package(name) for name in needed if re.match(r"lib(xcb|xkbcommon|X11)", name)
    )
    assert len(x11) > 10  # the plugin really was read
    page = (ROOT / "docs" / "install.md").read_text(encoding="utf-8")
    section = page.split("## Setup under X", 1)[1].split("\n#", 1)[0]
    assert [package for package in x11 if package not in section] == []
    assert "installer" in section  # and says whether the installer brings them


def test_manual_says_a_bare_x_server_needs_a_window_manager() -> None:
    """Without a window manager no window gets the keyboard focus: every typed key is lost."""
    page = (ROOT / "docs" / "install.md").read_text(encoding="utf-8")
    section = page.split("## Setup under X", 1)[1].split("\n## ", 1)[0]
    assert "window manager" in section
    assert re.search(r"apt-get install[^\n]*\b(openbox|fluxbox|xfwm4|matchbox-window-manager)", section)
