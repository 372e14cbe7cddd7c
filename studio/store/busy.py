"""Waiting for another program's write lock, for as long as it holds it.

A write transaction takes the project's write lock when it begins (SQLite ``BEGIN
IMMEDIATE``, PostgreSQL the project's advisory lock) and waits the busy timeout for it
(5 s). That is right for the window and the team server, which tell the person and let
them try again. A command on the terminal has nobody to ask: while another program's long
import holds the project, it waits for as long as that takes, says once on stderr that it
is waiting, and gives up on Ctrl+C (or after ``CIR_STUDIO_BUSY_WAIT`` seconds, when set).
Only the start of a transaction is tried again: nothing of it was written yet.

The command line turns this on for its commands (``waiting_for_writers``); without it a
busy project raises ``ProjectBusyError`` after the busy timeout, as before.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from studio.errors import ProjectBusyError
from studio.timeouts import busy_retry_ms

RETRY_TIMEOUT_MS = busy_retry_ms()  # 250 ms (studio/timeouts.py); each later try: short, so Ctrl+C is answered at once


@dataclass
class BusyWait:
    notify: Callable[[str], None]  # told once per project that a writer is waiting
    limit_s: float | None = None  # after the first busy timeout; None: until it is free
    told: set[str] = field(default_factory=set)


_policy: BusyWait | None = None


@contextmanager
def waiting_for_writers(
    notify: Callable[[str], None], limit_s: float | None = None
) -> Iterator[BusyWait]:
    """Within the block, a write that finds the project busy waits (see the module)."""
    global _policy
    previous, _policy = _policy, BusyWait(notify, limit_s)
    try:
        yield _policy
    finally:
        _policy = previous


def waiting() -> bool:
    """Whether a busy project is waited for (the command line): a write then takes its
    lock when it begins, where a wait can be tried again."""
    return _policy is not None


def begin_write(begin: Callable[[int | None], None], where: str) -> None:
    """Run ``begin`` (start a write transaction, taking the lock), waiting while busy.

    ``begin(timeout_ms)`` raises ``ProjectBusyError`` when the lock stayed taken;
    ``timeout_ms`` is None for the connection's own busy timeout (the first try).
    """
    try:
        begin(None)
        return
    except ProjectBusyError:
        policy = _policy
        if policy is None:
            raise
    if where not in policy.told:
        policy.told.add(where)
        policy.notify(where)
    deadline = None if policy.limit_s is None else time.monotonic() + policy.limit_s
    while True:
        try:
            begin(RETRY_TIMEOUT_MS)
            return
        except ProjectBusyError:
            if deadline is not None and time.monotonic() >= deadline:
                raise
