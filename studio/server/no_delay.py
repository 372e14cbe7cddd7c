"""uvicorn's HTTP protocol with Nagle's algorithm off on every connection.

asyncio turns on ``TCP_NODELAY`` only for sockets whose ``proto`` is ``IPPROTO_TCP``. The
listening socket uvicorn binds itself for several workers (``--workers 2``) is made with
``proto`` 0, so the connections its workers accepted kept Nagle's algorithm: an answer
written in two parts (its headers, then its body) waited for the client's delayed
acknowledgement, about 40 ms, whenever the client asked again at once (the next pair
and its two pictures; bench_server at a tenth of its pace: 45-55 ms for those calls
against 7 ms for a draft sent after a pause). ``cir-studio server start`` names this
class as uvicorn's ``http`` protocol (by its import path: each worker process imports
it). gunicorn sets ``TCP_NODELAY`` on its own listening sockets.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from typing import Any

# uvicorn's own choice ("auto"): httptools when it is installed (a dependency), else h11
from uvicorn.protocols.http.auto import AutoHTTPProtocol as _Base


def no_delay(transport: asyncio.BaseTransport) -> None:
    """Turn Nagle's algorithm off on a TCP connection (nothing for a Unix socket)."""
    sock: Any = transport.get_extra_info("socket")
    if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class HttpProtocol(_Base):  # type: ignore[misc, valid-type]  # chosen at import ("auto")
    """uvicorn's HTTP protocol; each connection answers without waiting on Nagle."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        no_delay(transport)
        super().connection_made(transport)
