"""``cir-studio images fetch`` against a local HTTP server used as the proxy for the lists'
real URLs: some pictures served, others 404 or 500, stalled, cut off or not pictures."""

from __future__ import annotations

import hashlib
import io
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from PIL import Image

from studio.cli.main import main
from studio.errors import ValidationError
from studio.fetch.url_lists import read_url_lists
from tests.conftest import SHARED_FIXTURES

ROOT = Path(__file__).resolve().parents[2]
URL_LISTS = SHARED_FIXTURES / "fashioniq" / "image_url"
# A stalled picture times out (the proxy holds it 6 s); 3 s leaves a real one room when
# the machine is loaded (1.5 s timed out a retried picture in a full run at load 4).
FAST = ["--timeout", "3", "--retries", "1", "--backoff", "0.01", "--rate", "0"]


def picture(seed: int) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (24, 32), (seed % 256, seed * 7 % 256, 90)).save(out, "JPEG")
    return out.getvalue()


def behaviour(url: str) -> str:
    """What the server does for a URL, fixed by its hash (about half are served)."""
    kinds = ["ok"] * 10 + ["404", "500", "stall", "cut", "html", "flaky", "big"]
    return kinds[int(hashlib.md5(url.encode()).hexdigest(), 16) % len(kinds)]


class PictureProxy(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, delay: float = 0.0) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.delay = delay
        self.requests: Counter[str] = Counter()
        self.lock = threading.Lock()
        self.closing = threading.Event()

    def handle_error(self, request: object, client_address: object) -> None:
        pass  # a client hanging up on an oversized or stalled answer is expected here

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class Handler(BaseHTTPRequestHandler):
    server: PictureProxy

    def log_message(self, *args: object) -> None:  # quiet
        pass

    def do_GET(self) -> None:  # noqa: N802 - the http.server API
        url = self.path  # a proxy receives the absolute URL
        with self.server.lock:
            self.server.requests[url] += 1
            count = self.server.requests[url]
        if self.server.delay:
            self.server.closing.wait(self.server.delay)
        kind = "ok" if url.endswith("/fallback-ok.jpg") else behaviour(url)
        if url.endswith("#404") or "/dead/" in url:
            kind = "404"
        body = picture(len(url))
        if kind == "404":
            self.send_error(404, "Not Found")
        elif kind == "500" or (kind == "flaky" and count == 1):
            self.send_error(500, "Internal Server Error")
        elif kind == "stall":
            self.server.closing.wait(6)
        elif kind == "html":
            self._send(b"<html><body>Sorry, we moved</body></html>", "text/html")
        elif kind == "cut":
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body[: len(body) // 2])
            self.close_connection = True
        elif kind == "big":
            self._send(b"\xff" * (2 * 2**20), "image/jpeg")
        else:
            self._send(body, "image/jpeg")

    def _send(self, body: bytes, kind: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def proxy(monkeypatch: pytest.MonkeyPatch) -> Iterator[PictureProxy]:
    server = PictureProxy()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    for name in ("no_proxy", "NO_PROXY", "https_proxy", "HTTPS_PROXY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("http_proxy", server.url)
    yield server
    server.closing.set()
    server.shutdown()
    server.server_close()


def lists_of_300(folder: Path) -> list[Path]:
    """The real 300-line slice of the dress list, or a made-up list of the same format."""
    real = URL_LISTS / "asin2url.dress.head300.txt"
    if real.is_file():
        return [real]
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "asin2url.dress.txt"
    path.write_text("".join(f"B{n:09d} \t http://ecx.images-amazon.com/images/I/{n}.jpg\n"
                            for n in range(300)))
    return [path]


def expected_kinds(lists: list[Path]) -> dict[str, str]:
    return {item.asin: behaviour(item.urls[0]) for item in read_url_lists(lists)}


def test_the_real_list_format_is_read_with_its_spaces_around_the_tab(tmp_path: Path) -> None:
    path = tmp_path / "asin2url.dress.txt"
    path.write_text("B00014NGF6 \t http://ecx.images-amazon.com/a.jpg\n\n"
                    "B00014NGF6 \t http://ecx.images-amazon.com/b.jpg\n")
    (item,) = read_url_lists([path])
    assert item.asin == "B00014NGF6" and item.urls == ["http://ecx.images-amazon.com/a.jpg",
                                                       "http://ecx.images-amazon.com/b.jpg"]
    path.write_text("B00014NGF6 \t http://x/a.jpg\n../etc \t http://x/b.jpg\nno tab here\n")
    with pytest.raises(ValidationError) as error:
        read_url_lists([path])
    assert f"{path}:2: '../etc' is not an ASIN" in str(error.value)
    assert f"{path}:3: expected 'ASIN<tab>URL'" in str(error.value)


def test_fetching_reports_every_failure_and_saves_only_whole_pictures(
    proxy: PictureProxy, tmp_path: Path, capsys
) -> None:
    lists = lists_of_300(tmp_path / "lists")
    kinds = expected_kinds(lists)
    out = tmp_path / "images"
    args = ["images", "fetch", *map(str, lists), "--out", str(out), "--workers", "16",
            "--max-mb", "1", *FAST]
    assert main(args) == 0
    report = json.loads((out / "fetch_report.json").read_text())
    failed = {row["asin"]: row for row in report["not_fetched"]}
    saved = {p.stem for p in out.glob("*.jpg")}
    assert saved | set(failed) == set(kinds) and not saved & set(failed)
    assert {a for a, k in kinds.items() if k in ("ok", "flaky")} == saved  # flaky: retried
    reasons = {"404": "HTTP 404", "500": "HTTP 500", "stall": "timed out", "cut": "cut off",
               "html": "not an image", "big": "over the 1,048,576-byte limit"}
    for asin, row in failed.items():
        assert reasons[kinds[asin]] in row["reason"], (kinds[asin], row)
        assert row["url"].startswith("http://ecx.images-amazon.com/")
    assert {kinds[a] for a in failed} == set(reasons)  # every kind of failure happened
    for path in out.glob("*.jpg"):
        with Image.open(path) as image:
            image.load()
    assert not list((out / ".partial").glob("*"))
    assert proxy.requests[next(u for u in proxy.requests if behaviour(u) == "404")] == 1
    assert proxy.requests[next(u for u in proxy.requests if behaviour(u) == "500")] == 2

    capsys.readouterr()
    before = sum(proxy.requests.values())
    assert main(args) == 0  # again: saved pictures are not fetched twice
    again = json.loads((out / "fetch_report.json").read_text())
    assert again["counts"]["present"] == len(saved)
    assert sum(proxy.requests.values()) - before == sum(
        2 if kinds[a] in ("500", "stall", "cut") else 1 for a in failed
    )


def test_fallback_pictures_stand_in_for_dead_links(proxy: PictureProxy, tmp_path: Path) -> None:
    fallback = URL_LISTS / "broken_links"
    if not fallback.is_dir():
        fallback = tmp_path / "broken_links"
        fallback.mkdir()
        for n in range(3):
            (fallback / f"B0BROKEN{n:02d}.jpg").write_bytes(picture(n))
    asins = sorted(p.stem for p in fallback.glob("*.jpg"))
    url_list = tmp_path / "asin2url.dress.txt"
    url_list.write_text("".join(f"{a} \t http://ecx.images-amazon.com/dead/{a}.jpg\n"
                                for a in [*asins, "B0NOFALLBK"]))
    out = tmp_path / "images"
    assert main(["images", "fetch", str(url_list), "--out", str(out), "--fallback",
                 str(fallback), "--report", str(tmp_path / "report.csv"), *FAST]) == 0
    assert sorted(p.stem for p in out.glob("*.jpg")) == asins
    assert (out / f"{asins[0]}.jpg").read_bytes() == (fallback / f"{asins[0]}.jpg").read_bytes()
    rows = (tmp_path / "report.csv").read_text().splitlines()
    assert rows[0].startswith("asin,status,reason") and len(rows) == 2
    assert rows[1].startswith("B0NOFALLBK,failed,HTTP 404 Not Found; no picture in the fallback")


def test_a_run_killed_with_sigkill_resumes_without_fetching_anything_twice(
    tmp_path: Path,
) -> None:
    server = PictureProxy(delay=0.05)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        lists = lists_of_300(tmp_path / "lists")
        out = tmp_path / "images"
        env = {**os.environ, "http_proxy": server.url, "PYTHONPATH": str(ROOT)}
        for name in ("no_proxy", "NO_PROXY"):
            env.pop(name, None)
        command = [sys.executable, "-m", "studio", "images", "fetch", *map(str, lists),
                   "--out", str(out), "--workers", "4", *FAST]
        run = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while len(list(out.glob("*.jpg"))) < 20 and time.monotonic() < deadline:
            time.sleep(0.05)
        os.kill(run.pid, signal.SIGKILL)
        run.wait()
        first = {p.stem for p in out.glob("*.jpg")}
        assert len(first) >= 20 and not (out / "fetch_report.json").exists()
        for path in out.glob("*.jpg"):  # whatever the kill interrupted, no half picture
            with Image.open(path) as image:
                image.load()
        asked_before = Counter(server.requests)
        server.delay = 0.0
        finished = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
        assert finished.returncode == 0, finished.stderr
        report = json.loads((out / "fetch_report.json").read_text())
        assert report["counts"]["present"] == len(first)
        asked_after = server.requests - asked_before
        urls = {item.asin: item.urls[0] for item in read_url_lists(lists)}
        assert not [a for a in first if asked_after[urls[a]]]  # nothing saved was re-fetched
        assert not list((out / ".partial").glob("*"))  # the killed run's temp files are gone
        kinds = expected_kinds(lists)
        assert {p.stem for p in out.glob("*.jpg")} == {
            a for a, k in kinds.items() if k in ("ok", "flaky")
        }
    finally:
        server.closing.set()
        server.shutdown()
        server.server_close()
