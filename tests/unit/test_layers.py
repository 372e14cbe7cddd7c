"""The layer rule of ARCHITECTURE.md, checked on every import statement in the source."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GUI_MODULES = {"PySide6", "PyQt5", "PyQt6", "qasync", "widgets"}


def imported_roots(path: Path) -> set[str]:
    roots: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


def sources(package: str) -> list[Path]:
    found = sorted((ROOT / package).rglob("*.py"))
    assert found, f"no Python files under {package}/: the layer checks would pass vacuously"
    return found


@pytest.mark.parametrize("package", ["studio", "backends"])
def test_core_layers_never_import_qt_or_widgets(package: str) -> None:
    offenders = {
        str(path.relative_to(ROOT)): sorted(imported_roots(path) & GUI_MODULES)
        for path in sources(package)
        if imported_roots(path) & GUI_MODULES
    }
    assert offenders == {}


def test_backends_do_not_import_studio() -> None:
    offenders = [str(p.relative_to(ROOT)) for p in sources("backends") if "studio" in imported_roots(p)]
    assert offenders == []


def test_the_checker_sees_imports_inside_functions(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from PySide6.QtCore import QObject\n")
    assert "PySide6" in imported_roots(module)


def test_only_the_gui_launcher_reaches_into_widgets() -> None:
    mentions = [
        str(p.relative_to(ROOT))
        for p in sources("studio")
        if '"widgets.' in p.read_text(encoding="utf-8")
    ]
    assert mentions == ["studio/cli/gui_launch.py"]


SQL = re.compile(
    r"\b(SELECT\s.+\sFROM|INSERT\s+(OR\s+\w+\s+)?INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|"
    r"CREATE\s+(TABLE|INDEX|VIEW)|PRAGMA\s+\w+)\b",
    re.DOTALL,  # upper-case keywords, as our SQL is written; prose says "select … from"
)
DATABASE_MODULES = {"sqlite3", "sqlite_utils", "apsw"}


def sql_in(path: Path) -> list[str]:
    """String literals that read as SQL, and attribute uses of a project's connection."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and SQL.search(node.value):
            found.append(f"line {node.lineno}: {node.value[:40]!r}")
        elif isinstance(node, ast.Attribute) and node.attr in {"db", "conn"}:
            found.append(f"line {node.lineno}: .{node.attr}")
    return found


def test_widgets_hold_no_sql_and_no_database_module() -> None:
    offenders = {
        str(path.relative_to(ROOT)): sorted(imported_roots(path) & DATABASE_MODULES)
        + sql_in(path)
        for path in sources("widgets")
        if imported_roots(path) & DATABASE_MODULES or sql_in(path)
    }
    assert offenders == {}


def test_the_sql_checker_sees_queries_and_connections(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text(
        "import sqlite3\n"
        "def f(project):\n"
        "    return project.db.execute('SELECT count(*) FROM pairs').fetchone()\n"
    )
    assert "sqlite3" in imported_roots(module)
    assert len(sql_in(module)) == 2
    module.write_text("TEXT = 'Select the images from the folder'\n")
    assert sql_in(module) == []
