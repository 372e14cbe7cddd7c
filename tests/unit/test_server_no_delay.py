"""The team server's connections answer without Nagle's delay, also those accepted from a
listening socket made with ``proto`` 0 (uvicorn's, for several workers), where asyncio
leaves Nagle's algorithm on."""

from __future__ import annotations

import asyncio
import socket
from typing import Any

import uvicorn
from uvicorn.server import ServerState

from studio.server.no_delay import HttpProtocol, _Base


async def _hello(scope: dict[str, Any], receive: Any, send: Any) -> None:
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-length", b"5")]})
    await send({"type": "http.response.body", "body": b"hello"})


async def _serve_once(protocol: type) -> tuple[int, bytes]:
    """One request to a server on a ``proto`` 0 listening socket: the accepted socket's
    TCP_NODELAY and the answer."""
    seen: list[int] = []

    class Recording(protocol):  # type: ignore[misc, valid-type]
        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            sock = transport.get_extra_info("socket")
            seen.append(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))

    listener = socket.socket(socket.AF_INET)  # as uvicorn's bind_socket makes it
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    assert listener.proto == 0
    config = uvicorn.Config(_hello, log_level="warning")
    config.load()
    state = ServerState()
    loop = asyncio.get_running_loop()
    server = await loop.create_server(
        lambda: Recording(config=config, server_state=state, app_state={}), sock=listener)
    try:
        reader, writer = await asyncio.open_connection(*listener.getsockname())
        writer.write(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        await writer.drain()
        answer = await asyncio.wait_for(reader.read(), 10)
        writer.close()
    finally:
        server.close()
        await server.wait_closed()
    return seen[0], answer


def test_the_servers_protocol_turns_nagle_off_on_a_workers_connection() -> None:
    delay_off, answer = asyncio.run(_serve_once(HttpProtocol))
    assert delay_off != 0
    assert answer.startswith(b"HTTP/1.1 200") and answer.endswith(b"hello")


def test_uvicorns_own_protocol_leaves_it_on_there() -> None:
    """Why the class exists: asyncio sets TCP_NODELAY only where proto is IPPROTO_TCP."""
    delay_off, answer = asyncio.run(_serve_once(_Base))
    assert delay_off == 0
    assert answer.endswith(b"hello")
