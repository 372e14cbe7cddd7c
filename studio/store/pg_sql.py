"""Statements written for SQLite, made ready for PostgreSQL (psycopg's ``%s`` style).

The repositories write portable SQL with ``?`` (or ``:name``) placeholders, as SQLite
takes them. psycopg wants ``%s`` / ``%(name)s``, and then reads every ``%`` as its own,
so a literal ``%`` must be doubled. The rewrite walks the text once and leaves string
literals, quoted identifiers and comments alone, so a ``?`` inside ``'why?'`` stays text.

A few SQLite spellings that have one obvious PostgreSQL meaning are rewritten too, so
statements marked ``# dialect: sqlite`` still run: ``INSERT OR IGNORE`` (becomes ``ON
CONFLICT DO NOTHING``), ``LIKE`` (SQLite's is case-insensitive for ASCII: ``ILIKE``), the
null-safe ``IS [NOT]`` between two values (``IS [NOT] DISTINCT FROM``) and ``rowid``
(``ctid``: insertion order until a row is updated — good enough for a tie-breaker).
``group_concat`` and two-argument ``max``/``min`` exist as functions in every PostgreSQL
project (``schema.PG_FUNCTIONS``).
Everything else SQLite-only fails loudly on PostgreSQL; it belongs in a repository.
"""

from __future__ import annotations

import re
from functools import lru_cache

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_INSERT_OR_IGNORE = re.compile(r"^\s*INSERT\s+OR\s+IGNORE\s+INTO\b", re.IGNORECASE)
_RETURNING = re.compile(r"\bRETURNING\b", re.IGNORECASE)


@lru_cache(maxsize=2048)
def translate(sql: str, named: bool = False) -> str:
    """``sql`` with ``?`` → ``%s`` (``:name`` → ``%(name)s`` when ``named``), ``%`` → ``%%``."""
    out: list[str] = []
    i, n = 0, len(sql)
    while i < n:
        ch = sql[i]
        if ch in "'\"":
            end = i + 1
            while end < n:
                if sql[end] == ch:
                    if end + 1 < n and sql[end + 1] == ch:  # doubled quote inside
                        end += 2
                        continue
                    break
                end += 1
            out.append(sql[i : end + 1].replace("%", "%%"))
            i = end + 1
        elif sql.startswith("--", i):
            end = sql.find("\n", i)
            end = n if end < 0 else end
            out.append(sql[i:end].replace("%", "%%"))
            i = end
        elif sql.startswith("/*", i):
            end = sql.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append(sql[i:end].replace("%", "%%"))
            i = end
        elif ch == "?":
            out.append("%s")
            i += 1
        elif ch == "%":
            out.append("%%")
            i += 1
        elif ch == ":" and named and i + 1 < n and (sql[i + 1].isalpha() or sql[i + 1] == "_"):
            if i > 0 and sql[i - 1] == ":":  # a ``::type`` cast
                out.append(ch)
                i += 1
                continue
            match = _WORD.match(sql, i + 1)
            assert match is not None
            out.append(f"%({match.group(0)})s")
            i = match.end()
        elif ch.isalpha() or ch == "_":
            match = _WORD.match(sql, i)
            assert match is not None
            word = match.group(0)
            i = match.end()
            upper = word.upper()
            if upper == "IS":
                i = _null_safe(sql, i, out)
            elif upper == "ROWID":
                out.append("ctid")  # physical order: insertion order until a row is updated
            else:
                out.append("ILIKE" if upper == "LIKE" else word)
        else:
            out.append(ch)
            i += 1
    return _rewrite_insert_or_ignore("".join(out))


_IS_KEEP = {"NULL", "TRUE", "FALSE", "UNKNOWN", "DISTINCT"}


def _null_safe(sql: str, i: int, out: list[str]) -> int:
    """SQLite's ``a IS b`` / ``a IS NOT b`` (null-safe comparison of any two values) is
    PostgreSQL's ``IS [NOT] DISTINCT FROM``; ``IS NULL`` and friends stay as they are."""
    rest = _WORD.match(sql, len(sql) - len(sql[i:].lstrip()))
    negated = rest is not None and rest.group(0).upper() == "NOT"
    after = rest
    if negated and rest is not None:
        after = _WORD.match(sql, len(sql) - len(sql[rest.end() :].lstrip()))
    following = after.group(0).upper() if after is not None else ""
    if following in _IS_KEEP:
        out.append("IS")
        return i
    if negated and rest is not None:
        out.append("IS DISTINCT FROM")
        return rest.end()
    out.append("IS NOT DISTINCT FROM")
    return i


def _rewrite_insert_or_ignore(sql: str) -> str:
    if not _INSERT_OR_IGNORE.match(sql):
        return sql
    sql = _INSERT_OR_IGNORE.sub("INSERT INTO", sql, count=1).rstrip().rstrip(";")
    returning = _RETURNING.search(sql)
    if returning:
        head, tail = sql[: returning.start()], sql[returning.start() :]
        return f"{head.rstrip()} ON CONFLICT DO NOTHING {tail}"
    return f"{sql} ON CONFLICT DO NOTHING"


_INSERT_TABLE = re.compile(r"^\s*INSERT\s+INTO\s+([A-Za-z_][A-Za-z0-9_]*)", re.IGNORECASE)


def insert_target(sql: str) -> str | None:
    """The table an ``INSERT`` without ``RETURNING`` writes (None for anything else)."""
    match = _INSERT_TABLE.match(sql)
    if match is None or _RETURNING.search(sql):
        return None
    return match.group(1).lower()
