"""A thread's database connection is closed by that thread, never under its feet.

A project keeps one connection per thread. When it closes, another thread may be in the
middle of a query on its connection (a worker counting progress while the person opens
another project): closing it from here frees the sqlite3 module's statements under that
query, a segmentation fault (the GUI soak met it). So a connection whose owner is alive
is handed back: the owner closes it itself the next time it touches any project, which
lane threads, reused for every project, soon do. Connections of threads that ended are
closed at once, by whoever finds them.
"""

from __future__ import annotations

import threading
from typing import Any

_pending: dict[int, list[tuple[threading.Thread, Any]]] = {}  # owner's ident -> connections
_lock = threading.Lock()


def hand_back(owner: threading.Thread, db: Any) -> None:
    """``db`` belongs to ``owner``: close it now if the owner ended, else let it close it."""
    if owner is threading.current_thread() or not owner.is_alive():
        db.close()
        return
    with _lock:
        _pending.setdefault(owner.ident or 0, []).append((owner, db))


def close_mine() -> None:
    """Close the connections handed back to this thread, and those of threads that ended
    (on every ``Project.db``; nothing to do costs one dict check)."""
    if not _pending:
        return
    me = threading.current_thread()
    closing: list[Any] = []
    with _lock:
        for ident in list(_pending):
            kept = []
            for owner, db in _pending[ident]:
                if owner is me or not owner.is_alive():
                    closing.append(db)
                else:
                    kept.append((owner, db))
            if kept:
                _pending[ident] = kept
            else:
                del _pending[ident]
    for db in closing:
        db.close()


def waiting() -> int:
    """How many connections wait for their owner (tests)."""
    with _lock:
        return sum(len(items) for items in _pending.values())
