"""`dev.py test` runs the suites with Python's bytecode cache on (inside the venv, even where
the machine sets PYTHONDONTWRITEBYTECODE), headless, offline and with one OpenMP thread a
process, and keeps what the person set themselves."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def dev_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("dev_under_test", ROOT / "dev.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_suites_get_a_bytecode_cache_inside_the_venv_headless_and_offline() -> None:
    dev = dev_module()
    env = dev.suite_environment({"PYTHONDONTWRITEBYTECODE": "1", "HOME": "/home/x"})
    assert "PYTHONDONTWRITEBYTECODE" not in env
    assert env["PYTHONPYCACHEPREFIX"] == str(ROOT / ".venv" / "pycache")
    assert env["QT_QPA_PLATFORM"] == "offscreen"
    assert env["HF_HUB_OFFLINE"] == env["TRANSFORMERS_OFFLINE"] == "1"
    assert env["OMP_NUM_THREADS"] == "1"
    assert env["HOME"] == "/home/x"


def test_a_persons_own_settings_are_kept() -> None:
    dev = dev_module()
    own = {"PYTHONPYCACHEPREFIX": "/caches", "OMP_NUM_THREADS": "8", "QT_QPA_PLATFORM": "xcb"}
    env = dev.suite_environment(dict(own))
    assert {name: env[name] for name in own} == own


def test_a_process_with_that_environment_writes_its_bytecode_under_the_prefix(
    tmp_path: Path,
) -> None:
    dev = dev_module()
    source = tmp_path / "checkout"
    source.mkdir()
    (source / "cached_module.py").write_text("VALUE = 1\n")
    prefix = tmp_path / "pycache"
    env = dev.bytecode_cache({"PYTHONDONTWRITEBYTECODE": "1", "PYTHONPYCACHEPREFIX": str(prefix),
                              "PATH": "/usr/bin:/bin"})
    subprocess.run([sys.executable, "-c", "import cached_module"], cwd=source, env=env,
                   check=True)
    assert list(prefix.rglob("cached_module.*.pyc"))
    assert not (source / "__pycache__").exists()
