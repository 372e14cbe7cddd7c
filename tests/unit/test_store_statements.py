"""How the store's statements are written: named parameters, in SQL that both engines run
as written (SQLite as it stands, PostgreSQL through SQLAlchemy's bind rendering); nothing
rewrites a statement at run time. Runs on both engines (tests/conftest.py)."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest

from studio.store import Project
from studio.store.errors import NotPortable
from studio.store.records import ImageRecord

ROOT = Path(__file__).resolve().parents[2]
STORE = ROOT / "studio" / "store"
# Files that only ever talk to SQLite (work package files, the outbox, the embedding
# cache's key file, the SQLite schema and its legacy chain, SQLite's connection).
SQLITE_ONLY = {
    "outbox.py",
    "package_file.py",
    "embedding_cache.py",
    "legacy_migrations.py",
    "schema.py",
    "database.py",
}
_SQL = re.compile(r"\b(SELECT|INSERT|UPDATE|DELETE)\b")
_LITERAL = re.compile(r"'(?:[^']|'')*'")


def _statement_texts(path: Path) -> list[tuple[int, str]]:
    """(line, text) of every string in ``path`` that reads as SQL, is no docstring and is
    not on a line marked ``# dialect: sqlite``."""
    source = path.read_text(encoding="utf-8")
    marked = {
        number
        for number, line in enumerate(source.splitlines(), 1)
        if "# dialect: sqlite" in line
    }
    for node in ast.walk(ast.parse(source)):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) \
                and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            marked.update(range(body[0].lineno, (body[0].end_lineno or body[0].lineno) + 1))
    found = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type != tokenize.STRING or token.start[0] in marked:
            continue
        if _SQL.search(token.string):
            found.append((token.start[0], token.string))
    return found


def test_no_statement_of_the_store_is_sqlite_dialect_for_a_translator() -> None:
    assert not (STORE / "pg_sql.py").exists(), "statements are not rewritten at run time"
    offending = []
    for path in sorted(STORE.rglob("*.py")):
        if path.name in SQLITE_ONLY or "alembic" in path.parts:
            continue
        for line, text in _statement_texts(path):
            outside_literals = _LITERAL.sub("''", text.strip("\"'rfb"))
            if "?" in outside_literals or re.search(r"INSERT\s+OR\s+IGNORE", text, re.I):
                offending.append(f"{path.relative_to(ROOT)}:{line}")
    assert offending == []


@pytest.fixture
def project(tmp_path: Path):
    with Project.create(tmp_path / "p", name="Statements") as opened:
        yield opened


def test_a_percent_and_a_question_mark_in_text_come_back_as_written(project: Project) -> None:
    text = "100% sure? 'yes' -- :not_a_parameter"
    project.set_meta("note", text)
    assert project.get_meta("note") == text
    db = project.db
    row = db.execute("SELECT '?', '50%', :value", {"value": "a?%"}).fetchone()
    assert tuple(row) == ("?", "50%", "a?%")
    assert tuple(db.execute("SELECT 'why?', '10%'").fetchone()) == ("why?", "10%")
    with db.atomic():  # a write's first statement goes with its BEGIN (client-side values)
        db.execute(
            "INSERT INTO meta (key, value) VALUES (:key, '?' || :value || '%')",
            {"key": "marks", "value": "x"},
        )
    assert project.get_meta("marks") == "?x%"


def test_search_matches_any_case_and_takes_percent_and_underscore_literally(
    project: Project,
) -> None:
    from studio.store.database import utc_now
    from studio.store.repos import pairs as pairs_repo

    titles = ["Red 50% Cotton_Dress", "red 500 cottonXdress", "Blue Dress", "Green Dress"]
    project.add_images(
        ImageRecord(id=f"img{i}", path=f"img{i}.jpg", category="dress", split="train", title=t)
        for i, t in enumerate(titles)
    )
    with project.writing("pairs"):
        pairs_repo.add_pairs(
            project,
            (
                {"reference_id": f"img{i}", "target_id": f"img{i + 2}", "category": "dress",
                 "split": "train", "method": "manual", "score": 0.5, "source": "",
                 "external_key": f"k{i}"}
                for i in (0, 1)
            ),
            utc_now(),
        )
    first, second = pairs_repo.pair_ids(project, quota=2)
    for search in ("50% COTTON_", "50% cotton_dress", "RED 50%"):
        assert pairs_repo.pair_ids(project, quota=2, search=search) == [first]
    assert pairs_repo.pair_ids(project, quota=2, search="RED") == [first, second]


def test_a_question_mark_placeholder_is_a_clear_programming_error_on_postgresql(
    postgresql_url: str, tmp_path: Path
) -> None:
    with Project.create(postgresql_url, local_path=tmp_path / "project.pg") as project:
        project.ensure_person("ann")
        with pytest.raises(NotPortable, match=r"':name'"):
            project.db.execute("SELECT id FROM people WHERE name = ?", ["ann"])
        with pytest.raises(NotPortable, match=r"':name'"):
            project.db.execute("SELECT id FROM people WHERE name = :name", ["ann"])
        with pytest.raises(NotPortable, match=r"':name'"):
            project.db.conn.executemany("UPDATE people SET role = ? WHERE name = 'ann'", [{}])
        found = project.db.execute("SELECT name FROM people WHERE name = :name", {"name": "ann"})
        assert found.fetchone()[0] == "ann"


def test_lastrowid_on_postgresql_comes_only_from_returning_id(
    postgresql_url: str, tmp_path: Path
) -> None:
    with Project.create(postgresql_url, local_path=tmp_path / "project.pg") as project, \
            project.db.atomic():
        db = project.db
        plain = db.execute(
            "INSERT INTO people (name, created_at) VALUES (:name, 'x')", {"name": "ann"}
        )
        assert plain.lastrowid is None
        returned = db.execute(
            "INSERT INTO people (name, created_at) VALUES (:name, 'x') RETURNING id",
            {"name": "ben"},
        )
        new_id = returned.lastrowid
        assert new_id is not None
        assert returned.fetchone()[0] == new_id  # reading lastrowid leaves the row


def test_a_postgresql_project_has_no_sqlite_look_alike_functions(
    postgresql_url: str, tmp_path: Path
) -> None:
    with Project.create(postgresql_url, local_path=tmp_path / "project.pg") as project:
        names = {
            row[0]
            for row in project.db.execute(
                "SELECT p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
                "WHERE n.nspname = current_schema()"
            )
        }
    assert names & {"group_concat", "cir_concat", "json_extract", "max", "min", "round"} == set()
