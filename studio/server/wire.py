"""HTTP(S) to the team server over one kept-alive connection per thread.

``urllib.request.urlopen`` opens a new TCP (and TLS) connection for every request; a
person's client sends a request every second or so, and the connect, the accept and the
close cost the client and the server's workers CPU at every one (about 7 % of the
machine's CPU a request in ``bench/bench_server.py``, over plain HTTP; a TLS handshake
costs more).
``Wire`` keeps each thread's connection open (the desktop's UI thread and its IO lane
each have one). A connection the server closed while it was idle (its keep-alive
timeout, a restarted worker) is replaced and the request sent once more, which every
request here tolerates: edits carry their ``edit_uid`` and are applied once; asking for
the next item again answers the item already held.

The ``http_proxy`` / ``https_proxy`` / ``no_proxy`` variables are honoured as ``urllib``
honours them (an HTTPS server through a proxy is tunnelled with CONNECT). Standard
library only: the desktop studio and a script use it alike.
"""

from __future__ import annotations

import base64
import http.client
import ssl
import threading
import time
import urllib.parse
import urllib.request
import weakref
from email.message import Message

from studio.errors import StudioError

# A connection is used for this long, then a new one is made at the next request: each
# one is served by one of the server's workers, and a worker that restarted (or was
# added) must get its share of the people again.
KEEP_FOR_S = 15.0
# Raised when the server closed a kept-alive connection before this request reached it.
_STALE = (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError,
          http.client.CannotSendRequest)


class Wire:
    """Requests to one server (``base``: ``http(s)://host[:port][/prefix]``)."""

    def __init__(self, base: str, timeout: float, keep_for: float = KEEP_FOR_S) -> None:
        parts = urllib.parse.urlsplit(base)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise StudioError(f"{base!r} is not a server address (http://host:port).")
        self.secure = parts.scheme == "https"
        self.host = parts.hostname
        self.port = parts.port or (443 if self.secure else 80)
        self.prefix = parts.path.rstrip("/")
        self.timeout, self.keep_for = timeout, keep_for
        proxy = urllib.request.getproxies().get(parts.scheme)
        self.proxy = (urllib.parse.urlsplit(proxy if "://" in proxy else f"http://{proxy}")
                      if proxy and not urllib.request.proxy_bypass(self.host) else None)
        # "http://user:secret@proxy:3128": its credentials go to the proxy, as urllib sends them
        self._proxy_headers: dict[str, str] = {}
        if self.proxy is not None and self.proxy.username is not None:
            secret = f"{urllib.parse.unquote(self.proxy.username)}:" \
                     f"{urllib.parse.unquote(self.proxy.password or '')}"
            self._proxy_headers["Proxy-Authorization"] = \
                "Basic " + base64.b64encode(secret.encode()).decode()
        self._local = threading.local()
        self._lock = threading.Lock()
        self._context: ssl.SSLContext | None = None
        # every thread's connection, to close them all; a thread's ends with the thread
        self._open: weakref.WeakSet[http.client.HTTPConnection] = weakref.WeakSet()

    def send(
        self, method: str, path: str, body: bytes | None = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, Message, bytes]:
        """``(status, headers, body)`` of any answer; ``OSError`` or
        ``http.client.HTTPException`` when none came."""
        for attempt in (1, 2):
            connection: http.client.HTTPConnection | None = getattr(self._local, "connection", None)
            if connection is not None and time.monotonic() > self._local.until:
                self._drop(connection)  # served long enough: let the workers share again
                connection = None
            reused = connection is not None
            if connection is None:
                connection = self._connect()
            try:
                connection.request(method, self._target(path), body=body, headers={
                    **(headers or {}), **({} if self.secure else self._proxy_headers)})
                answer = connection.getresponse()
                content = answer.read()
            except _STALE:
                self._drop(connection)
                if reused and attempt == 1:
                    continue  # closed while idle: once more on a new connection
                raise
            except BaseException:
                self._drop(connection)
                raise
            if answer.will_close:
                self._drop(connection)
            return answer.status, answer.headers, content
        raise AssertionError("unreachable")

    def close(self) -> None:
        """Close every thread's connection (the client is done)."""
        with self._lock:
            connections, self._open = list(self._open), weakref.WeakSet()
        for connection in connections:
            connection.close()

    def _target(self, path: str) -> str:
        if self.proxy is not None and not self.secure:  # a plain proxy takes the whole URL
            host = f"[{self.host}]" if ":" in self.host else self.host  # IPv6
            return f"http://{host}:{self.port}{self.prefix}{path}"
        return self.prefix + path

    def _connect(self) -> http.client.HTTPConnection:
        host, port = self.host, self.port
        if self.proxy is not None:
            host, port = self.proxy.hostname or "", self.proxy.port or 80
        connection: http.client.HTTPConnection
        if self.secure:
            connection = http.client.HTTPSConnection(
                host, port, timeout=self.timeout, context=self._tls())
            if self.proxy is not None:
                connection.set_tunnel(self.host, self.port, headers=self._proxy_headers)
        else:
            connection = http.client.HTTPConnection(host, port, timeout=self.timeout)
        self._local.connection = connection
        self._local.until = time.monotonic() + self.keep_for
        with self._lock:
            self._open.add(connection)
        return connection

    def _tls(self) -> ssl.SSLContext:
        """One TLS context for every connection (making one reads the system's CAs)."""
        with self._lock:
            if self._context is None:
                self._context = ssl.create_default_context()
            return self._context

    def _drop(self, connection: http.client.HTTPConnection) -> None:
        connection.close()
        if getattr(self._local, "connection", None) is connection:
            self._local.connection = None
        with self._lock:
            self._open.discard(connection)
