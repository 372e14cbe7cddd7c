"""The real team server for GUI tests: the unit suite's helpers (a throwaway PostgreSQL
project, ``cir-studio server start`` over a socket), and a second studio in one process."""

from __future__ import annotations

from tests.unit.server_support import Server, call, make_project, tokens

__all__ = ["Server", "call", "make_project", "tokens"]
