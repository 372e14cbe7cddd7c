"""The team client's wire over real sockets: one kept-alive connection per thread, a
connection the server dropped while idle replaced without losing the request, and the
proxy variables honoured as urllib honours them."""

from __future__ import annotations

import base64
import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from studio.server.wire import Wire


class _Recorder(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keeps connections open unless told otherwise

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        server: Any = self.server
        self.rfile.read(int(self.headers.get("Content-Length") or 0))  # a PUT's body
        server.seen.append({"port": self.client_address[1], "path": self.path,
                            "auth": self.headers.get("Authorization"),
                            "proxy_auth": self.headers.get("Proxy-Authorization")})
        if server.moved_to:
            self.send_response(308)
            self.send_header("Location", server.moved_to)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        body = json.dumps({"n": len(server.seen)}).encode()
        if server.portal:  # a page in the way (a hotel's login, another service): not JSON
            body = b"<html><body>Sign in to the network</body></html>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html" if server.portal else "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        if server.drop_after:  # gone without a word, as an idle keep-alive timeout does
            self.close_connection = True

    do_PUT = do_GET

    def do_CONNECT(self) -> None:  # noqa: N802 (an HTTPS tunnel asked of a proxy)
        server: Any = self.server
        server.seen.append({"port": self.client_address[1], "path": f"CONNECT {self.path}",
                            "auth": None, "proxy_auth": self.headers.get("Proxy-Authorization")})
        self.send_response(502)  # no tunnel here: the client must say it got no answer
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def recorder() -> Iterator[Any]:
    server: Any = ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    server.seen, server.drop_after, server.moved_to, server.portal = [], False, None, False
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def _base(server: Any) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}"


def _client(server: Any, folder: Any) -> Any:
    """A team client of ``server`` with its outbox and picture cache in ``folder``."""
    from studio.server.client import Client

    return Client(_base(server), "cir_1_x", folder / "outbox.sqlite",
                  picture_cache=folder / "pictures")


def test_the_requests_of_one_thread_share_one_connection_and_threads_do_not(recorder: Any) -> None:
    wire = Wire(_base(recorder) + "/team/", timeout=5)
    for _ in range(3):
        status, headers, body = wire.send("GET", "/v1/whoami", None, {"Authorization": "Bearer x"})
        assert status == 200 and headers["Content-Type"] == "application/json"
    other = threading.Thread(target=wire.send, args=("GET", "/v1/whoami"))
    other.start()
    other.join()
    ports = [seen["port"] for seen in recorder.seen]
    assert len(set(ports[:3])) == 1 and ports[3] != ports[0]
    assert [seen["path"] for seen in recorder.seen] == ["/team/v1/whoami"] * 4  # the prefix kept
    assert recorder.seen[0]["auth"] == "Bearer x"
    wire.close()


def test_a_connection_the_server_dropped_while_idle_is_replaced_and_the_request_answered(
    recorder: Any,
) -> None:
    wire = Wire(_base(recorder), timeout=5)
    recorder.drop_after = True
    assert wire.send("GET", "/v1/a")[0] == 200
    status, _, body = wire.send("GET", "/v1/b")  # its connection is gone: a new one
    assert status == 200 and json.loads(body) == {"n": 2}
    assert [seen["path"] for seen in recorder.seen] == ["/v1/a", "/v1/b"]  # each once
    assert recorder.seen[0]["port"] != recorder.seen[1]["port"]
    wire.close()


def test_a_server_that_is_not_there_raises_for_the_client_to_wait(recorder: Any) -> None:
    base = _base(recorder)
    recorder.shutdown()
    recorder.server_close()
    with pytest.raises(OSError):
        Wire(base, timeout=2).send("GET", "/v1/whoami")


def _proxy(monkeypatch: pytest.MonkeyPatch, variable: str, url: str) -> None:
    """Requests go through the proxy at ``url`` (no address left out of it)."""
    monkeypatch.setenv(variable, url)
    monkeypatch.delenv("no_proxy", raising=False)
    monkeypatch.delenv("NO_PROXY", raising=False)


def test_a_plain_http_proxy_is_sent_the_whole_address_and_its_credentials(
    recorder: Any, monkeypatch: pytest.MonkeyPatch,
) -> None:
    _proxy(monkeypatch, "http_proxy", _base(recorder).replace("//", "//ann:s%40cret@"))
    wire = Wire("http://team.example.invalid:8750/cir", timeout=5)
    assert wire.send("GET", "/v1/whoami")[0] == 200
    assert recorder.seen[0]["path"] == "http://team.example.invalid:8750/cir/v1/whoami"
    assert recorder.seen[0]["proxy_auth"] == "Basic " + base64.b64encode(b"ann:s@cret").decode()


def test_an_address_that_is_not_http_is_refused() -> None:
    from studio.errors import StudioError

    with pytest.raises(StudioError, match="not a server address"):
        Wire("ftp://example.org", timeout=1)


def test_a_connection_is_kept_for_a_while_then_made_anew(recorder: Any) -> None:
    """Each connection is one worker's: after ``keep_for`` seconds the next request opens
    a new one, so a restarted worker gets its share of the people again."""
    wire = Wire(_base(recorder), timeout=5, keep_for=0.3)
    wire.send("GET", "/v1/a")
    wire.send("GET", "/v1/b")
    time.sleep(0.4)
    wire.send("GET", "/v1/c")
    ports = [seen["port"] for seen in recorder.seen]
    assert ports[0] == ports[1] != ports[2]
    wire.close()


def test_an_https_server_behind_a_proxy_is_reached_through_a_tunnel(
    recorder: Any, monkeypatch: pytest.MonkeyPatch,
) -> None:
    _proxy(monkeypatch, "https_proxy", _base(recorder).replace("//", "//ann:pw@"))
    wire = Wire("https://team.example.invalid/cir", timeout=5)
    with pytest.raises(OSError, match="502"):
        wire.send("GET", "/v1/whoami")
    assert recorder.seen[0]["path"] == "CONNECT team.example.invalid:443"
    assert recorder.seen[0]["proxy_auth"] == "Basic " + base64.b64encode(b"ann:pw").decode()


def _self_signed(folder: Any) -> tuple[str, str]:
    """A certificate for localhost / 127.0.0.1 and its key, as files."""
    import datetime
    import ipaddress

    crypto = pytest.importorskip("cryptography")  # with keyring's SecretStorage on Linux
    del crypto
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder().subject_name(name).issuer_name(name)
        .public_key(key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([
            x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_file, key_file = folder / "cert.pem", folder / "key.pem"
    cert_file.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                           serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return str(cert_file), str(key_file)


def test_an_https_server_is_reached_over_one_tls_connection_and_an_unknown_one_refused(
    recorder: Any, tmp_path: Any, monkeypatch: pytest.MonkeyPatch,
) -> None:
    import ssl

    cert_file, key_file = _self_signed(tmp_path)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert_file, key_file)
    recorder.socket = context.wrap_socket(recorder.socket, server_side=True)
    base = f"https://localhost:{recorder.server_address[1]}"
    for name in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY"):
        monkeypatch.delenv(name, raising=False)

    with pytest.raises(ssl.SSLError):  # not trusted: no answer, the client's edits wait
        Wire(base, timeout=5).send("GET", "/v1/whoami")
    monkeypatch.setenv("SSL_CERT_FILE", cert_file)  # trusted, as a team's own CA would be
    wire = Wire(base, timeout=5)
    assert [wire.send("GET", f"/v1/{n}")[0] for n in range(3)] == [200, 200, 200]
    assert len({seen["port"] for seen in recorder.seen}) == 1  # one handshake, not three
    wire.close()


def test_a_redirect_is_no_answer_the_edit_keeps_waiting(recorder: Any, tmp_path: Any) -> None:
    """A proxy that sends the studio elsewhere (http to https) answered nothing about the
    edit: the client says where, and the edit stays in the outbox."""
    from studio.server.client import Offline

    recorder.moved_to = "https://team.example.org/v1/captions/3/draft"
    client = _client(recorder, tmp_path)
    with pytest.raises(Offline, match="team.example.org"):
        client.call("GET", "/v1/whoami")
    client.save_draft(3, "is darker")
    assert client.waiting() == 1
    assert [seen["path"] for seen in recorder.seen] == ["/v1/whoami", "/v1/captions/3/draft"]
    client.close()


def test_a_page_that_is_not_json_is_no_answer_the_edit_keeps_waiting(
    recorder: Any, tmp_path: Any
) -> None:
    """A 200 with an HTML page (a network's sign-in page, another service at the address)
    says nothing about the edit: it stays in the outbox and goes once the server answers."""
    from studio.server.client import Offline

    recorder.portal = True
    client = _client(recorder, tmp_path)
    with pytest.raises(Offline, match="not JSON"):
        client.call("GET", "/v1/whoami")
    client.save_draft(3, "is darker")
    assert client.waiting() == 1
    recorder.portal = False
    client.flush()
    assert client.waiting() == 0
    assert [seen["path"] for seen in recorder.seen][-1] == "/v1/captions/3/draft"
    client.close()
