"""Help → Manual opens the manual shipped with the studio: the built site when it is
there (resources/manual/, built by `dev.py docs` and by packaging/build.py), else the
Markdown pages of a checkout (docs/)."""

from __future__ import annotations

from pathlib import Path

from studio.manual import manual_entry


def test_the_built_site_comes_first(tmp_path: Path) -> None:
    built = tmp_path / "resources" / "manual" / "index.html"
    built.parent.mkdir(parents=True)
    built.write_text("<html></html>")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text("# CIR Studio")
    assert manual_entry(tmp_path / "resources", docs) == built


def test_a_checkout_without_a_build_opens_its_markdown(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text("# CIR Studio")
    assert manual_entry(tmp_path / "resources", docs) == docs / "index.md"


def test_nothing_shipped_says_so(tmp_path: Path) -> None:
    assert manual_entry(tmp_path / "resources", tmp_path / "docs") is None


def test_this_checkout_has_a_manual() -> None:
    entry = manual_entry()
    assert entry is not None and entry.is_file()
    assert entry.name in {"index.html", "index.md"}
