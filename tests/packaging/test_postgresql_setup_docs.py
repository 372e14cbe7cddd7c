"""The manual's PostgreSQL try-out (docs/engines.md) works as written: a server kept running from the pgserver
wheel, an empty database made without ``createdb``, a project imported there, the server
stopped again by the manual's own line."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from PIL import Image

ROOT = Path(__file__).resolve().parents[2]


def _setup_block() -> str:
    page = (ROOT / "docs" / "engines.md").read_text(encoding="utf-8")
    section = page.split("Setting up a PostgreSQL project", 1)[1].split("\n**What stays local", 1)[0]
    return section


def test_manual_pgserver_try_out_runs_as_written() -> None:
    # Under the system temp folder, not pytest's: run as root, pgserver starts the server as
    # an unprivileged user, who cannot enter pytest's private folder (tests/conftest.py).
    tmp_path = Path(tempfile.mkdtemp(prefix="cir-try-"))
    try:
        _try_out(tmp_path)
    finally:
        shutil.rmtree(tmp_path, ignore_errors=True)


def _try_out(tmp_path: Path) -> None:
    section = _setup_block()
    start = re.search(r"<<'PY'\n(.*?)\nPY\n", section, re.S)
    stop = re.search(r'stop it later with: \.venv/bin/python -c "(.*?)"', section, re.S)
    assert start and stop, "the manual's pgserver try-out is missing"
    stop_code = " ".join(line.lstrip("# ") for line in stop.group(1).splitlines())
    started = subprocess.run(
        [sys.executable, "-c", start.group(1)], cwd=tmp_path, capture_output=True, text=True
    )
    try:
        assert started.returncode == 0, started.stderr
        url = started.stdout.strip().splitlines()[-1]
        assert url.startswith("postgresql://") and "cir_team" in url
        pictures = tmp_path / "pictures"
        pictures.mkdir()
        for shade in range(2):
            Image.new("RGB", (16, 16), (shade * 90, 40, 40)).save(pictures / f"p{shade}.png")
        # The server outlived the Python that started it: a second program uses the database.
        imported = subprocess.run(
            [sys.executable, "-m", "studio", "import", "folder", str(pictures), "--project", url],
            cwd=tmp_path, capture_output=True, text=True,
        )
        assert imported.returncode == 0, imported.stderr
        assert "Added 2 images" in imported.stdout
    finally:
        subprocess.run([sys.executable, "-c", stop_code], cwd=tmp_path, capture_output=True)
    # The manual's stop line really stopped it: nothing listens on the socket any more.
    assert not list((tmp_path / "cir-pg").glob("**/.s.PGSQL.*"))


def test_manual_says_how_to_make_an_empty_database_without_createdb() -> None:
    section = _setup_block()
    assert "Without `createdb`" in section
    assert "CREATE DATABASE cir_team" in section
