"""How long the studio waits for something, each in one place with its default and the one
environment variable that overrides it.

The defaults are what a person wants: long enough that a colleague's import or a slow
network is waited for, short enough that a stuck program is noticed. The test suites set
the waits they run into short (tests/conftest.py), so a test that waits one out does not
idle for seconds. A value that is not a positive number is refused with its name.

================================  =======  ============================================
variable                          default  what waits
================================  =======  ============================================
CIR_STUDIO_BUSY_TIMEOUT_MS        5000     a write for another program's write lock
                                           (SQLite busy timeout, PostgreSQL lock_timeout)
                                           before ``ProjectBusyError``
CIR_STUDIO_BUSY_RETRY_MS          250      each later try of a command that waits for a
                                           busy project (``CIR_STUDIO_BUSY_WAIT``: how
                                           long in all, studio/cli/main.py)
CIR_STUDIO_CACHE_LOCK_TIMEOUT_S   30       the local embedding cache and team outbox
                                           files for another process's write
CIR_STUDIO_PG_EVENTS_RETRY_S      1.0      reconnecting a lost PostgreSQL event listener
CIR_STUDIO_LEASE_SECONDS          300      a team server's lease on a work item (the
                                           default of ``server start --lease-seconds``)
CIR_STUDIO_CLIENT_TIMEOUT_S       10       a team client for one answer of the server
CIR_STUDIO_LOGIN_DELAY_MAX_S      2.0      the longest delay of a failed login's answer
================================  =======  ============================================

Values are read when the module that uses them is imported (a process reads them once;
subprocesses inherit the environment).
"""

from __future__ import annotations

import os

from studio.errors import StudioError


def _number(name: str, default: float) -> float:
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value > 0:  # also refuses NaN
        raise StudioError(f"{name} must be a positive number, not {text!r}.")
    return value


def busy_timeout_ms() -> int:
    return int(_number("CIR_STUDIO_BUSY_TIMEOUT_MS", 5000))


def busy_retry_ms() -> int:
    return int(_number("CIR_STUDIO_BUSY_RETRY_MS", 250))


def cache_lock_timeout_s() -> float:
    return _number("CIR_STUDIO_CACHE_LOCK_TIMEOUT_S", 30.0)


def pg_events_retry_s() -> float:
    return _number("CIR_STUDIO_PG_EVENTS_RETRY_S", 1.0)


def lease_seconds() -> float:
    return _number("CIR_STUDIO_LEASE_SECONDS", 300.0)


def client_timeout_s() -> float:
    return _number("CIR_STUDIO_CLIENT_TIMEOUT_S", 10.0)


def login_delay_max_s() -> float:
    return _number("CIR_STUDIO_LOGIN_DELAY_MAX_S", 2.0)
