"""The lock a rule needs, and no more (ARCHITECTURE.md, Data).

A rule that several writers could break together (two live captions per pair from
different people, a pair's captions and leases under its quota, one reviewer per caption,
an edit applied once) is checked inside the write transaction that acts on it, after the
repository locked the one thing the rule is about:

- ``lock_row(project, "pairs", pair_id)``: that row, until the transaction ends
  (PostgreSQL ``SELECT … FOR NO KEY UPDATE``: it does not block the foreign-key checks of
  rows that merely point at it). A second writer on the same pair waits for the first to
  commit, then reads what it wrote (read committed: every statement sees the newest data).
- ``lock_key(project, "edit", uid)``: a thing that has no row yet (an edit's uid, a
  person's lease of one kind): a transaction-level advisory lock on its name.
- ``claim_first(project, "p", find, holds)``: the "next item" scan, so that people
  asking at once are handed different items instead of queueing behind one (PostgreSQL
  ``FOR NO KEY UPDATE OF p SKIP LOCKED``). An item passed over because another writer
  held it may still be this person's to do (bob saving a draft on the last pair ann must
  caption), so when the skipping scan finds nothing the scan runs again waiting for the
  locks; every item found is checked again with a fresh statement once it is held, and a
  scan that found nothing after waiting is asked once more in a fresh snapshot.

On SQLite each is a no-op: ``BEGIN IMMEDIATE`` already made the transaction the only
writer of the project. Writers on different pairs never wait for each other on
PostgreSQL. Waits end after the connection's ``lock_timeout`` with ``ProjectBusyError``;
a deadlock PostgreSQL detects is the same ``ProjectBusyError`` (the transaction was
undone whole, so trying again is safe).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from studio.store.project import Project

ITEM_LOCK_CLASS = 0x43495249  # "CIRI": first key of the two-key advisory locks of items
Key = TypeVar("Key")
_LOCKABLE = {"pairs", "captions", "images", "rating_assignments"}


def _postgresql(project: Project) -> bool:
    if not project.db.conn.in_transaction:
        raise RuntimeError("A rule's lock is taken inside the write transaction that checks it.")
    return project.url is not None


def lock_row(project: Project, table: str, key: object) -> None:
    """Lock the row of ``table`` whose id is ``key`` until the transaction ends (nothing
    on SQLite). The lock travels with the transaction's next statement, which runs once
    it is held (``PgDatabase.defer``: no round trip of its own)."""
    if table not in _LOCKABLE:
        raise ValueError(f"No rule locks rows of {table!r}.")
    if not _postgresql(project):
        return
    held = project.pg_db.row_locks
    if (table, key) in held:
        return  # this transaction holds it already: not asked twice
    project.pg_db.defer(f"SELECT 1 FROM {table} WHERE id = :key FOR NO KEY UPDATE", {"key": key})
    held.add((table, key))


def lock_pair_of_caption(project: Project, caption_id: int) -> None:
    """Lock the pair a caption belongs to, as ``lock_row`` does, before anything locks the
    caption: a caption whose status changes updates its pair's row (the live-caption
    count's trigger), and writers on a pair lock the pair first; taken in the other order
    a reviewer deciding a caption while its author edits it would deadlock (PostgreSQL
    would undo one of them after a second)."""
    if not _postgresql(project):
        return
    held = project.pg_db.row_locks
    if ("caption_pair", caption_id) in held:
        return
    project.pg_db.defer(
        "SELECT 1 FROM pairs WHERE id = (SELECT pair_id FROM captions WHERE id = :key) "
        "FOR NO KEY UPDATE", {"key": caption_id},
    )
    held.add(("caption_pair", caption_id))


def lock_key(project: Project, *name: object) -> None:
    """Lock the thing called ``name`` (no row of its own) until the transaction ends; the
    lock travels with the transaction's next statement, as ``lock_row``'s."""
    if not _postgresql(project):
        return
    text = "\x1f".join(str(part) for part in name)
    project.pg_db.defer(f"SELECT pg_advisory_xact_lock({ITEM_LOCK_CLASS}, hashtext(:text))", {
        "text": text,
    })


def claim_first(
    project: Project,
    alias: str,
    find: Callable[[str, Sequence[Key]], Key | None],
    holds: Callable[[Key], bool],
) -> Key | None:
    """The first item a "next item" scan finds that still qualifies once it is locked.

    ``find(clause, passed)`` runs the scan with ``clause`` at its end, leaving out the
    keys in ``passed``; ``holds(key)`` asks again, with a fresh statement, whether the
    locked item qualifies (the scan read a snapshot taken before its lock). On SQLite the
    scan runs once with no clause: ``BEGIN IMMEDIATE`` made this the only writer.
    """
    if not _postgresql(project):
        return find("", ())
    passed: list[Key] = []
    for _ in range(_ROUNDS):
        for clause in (f" FOR NO KEY UPDATE OF {alias} SKIP LOCKED",
                       f" FOR NO KEY UPDATE OF {alias}"):
            while (key := find(clause, passed)) is not None:
                if holds(key):
                    return key
                passed.append(key)
        # A row the waiting scan got once its writer committed is tested again in its new
        # version, but against what the scan read of every other table before the wait
        # (read committed): a pair whose author submitted meanwhile shows its new caption
        # and still the lease that submit ended, and looks full. A scan in a fresh
        # snapshot tells whether anything was left out that way.
        if find("", passed) is None:
            return None
    return None


_ROUNDS = 3  # scans again after a wait on a writer whose commit left a pair out (above)
