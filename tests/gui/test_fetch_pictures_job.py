"""File → Fetch Pictures runs the same fetch as the command line, as a job of the window."""

from __future__ import annotations

import json
import threading
from pathlib import Path

from tests.unit.test_images_fetch import PictureProxy


def test_the_window_fetches_pictures_as_a_job(window, event_loop_qt, tmp_path: Path,
                                              monkeypatch) -> None:
    server = PictureProxy()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    for name in ("no_proxy", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("http_proxy", server.url)
    try:
        url_list = tmp_path / "asin2url.dress.txt"
        url_list.write_text("B0OK000001 \t http://ecx.images-amazon.com/x/fallback-ok.jpg\n"
                            "B0DEAD0001 \t http://ecx.images-amazon.com/dead/a.jpg\n")
        out = tmp_path / "images"
        message = event_loop_qt.run_until_complete(window.fetch_into([url_list], out))
        assert "1 fetched" in message and "1 failed" in message
        assert (out / "B0OK000001.jpg").is_file()
        report = json.loads((out / "fetch_report.json").read_text())
        assert [row["asin"] for row in report["not_fetched"]] == ["B0DEAD0001"]
    finally:
        server.closing.set()
        server.shutdown()
        server.server_close()
