"""Cheap guards of the PyInstaller packaging (the build itself is not run in CI: it takes
minutes and several GB; run ``python3 packaging/build.py --smoke`` for that)."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

from studio import __version__

ROOT = Path(__file__).resolve().parents[2]
PACKAGING = ROOT / "packaging"
OUR_PACKAGES = ("studio", "widgets", "backends")  # the spec collects these whole


def load_build_script():
    # Loaded by path: a folder named "packaging" must never shadow the PyPI package.
    spec = importlib.util.spec_from_file_location("cir_studio_build", PACKAGING / "build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_archive_is_named_after_the_one_version() -> None:
    build = load_build_script()
    assert build.archive_name(__version__, "linux-x86_64") == (
        f"cir-studio-{__version__}-linux-x86_64.tar.gz"
    )
    assert build.archive_name(__version__, "windows-x86_64").endswith(".zip")


def test_frozen_entry_script_runs_the_same_command_line() -> None:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(PACKAGING)]))
    done = subprocess.run(
        [sys.executable, str(PACKAGING / "entry.py"), "--version"],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"cir-studio {__version__}"


def test_modules_imported_by_name_are_in_the_bundle() -> None:
    """PyInstaller cannot see ``import_module("x")``; x must be ours or listed in the spec."""
    spec_text = (PACKAGING / "cir_studio.spec").read_text(encoding="utf-8")
    pattern = re.compile(r"import_module\(\s*[\"']([\w.]+)[\"']")
    missing = []
    for package in OUR_PACKAGES:
        for source in sorted((ROOT / package).rglob("*.py")):
            for name in pattern.findall(source.read_text(encoding="utf-8")):
                if name.split(".")[0] not in OUR_PACKAGES and f'"{name}"' not in spec_text:
                    missing.append(f"{source.relative_to(ROOT)}: {name}")
    assert missing == []
    for package in OUR_PACKAGES:
        assert f'"{package}"' in spec_text


def test_shipped_resources_are_found_where_the_bundle_looks() -> None:
    sys.path.insert(0, str(PACKAGING))
    try:
        import bundle_check
    finally:
        sys.path.remove(str(PACKAGING))
    assert "style.qss" in bundle_check.check_resources(ROOT)
