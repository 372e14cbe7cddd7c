"""Where the manual is, for Help → Manual.

The built site ships with the studio in ``resources/manual/`` (``python3 dev.py docs``
builds it; ``packaging/build.py`` builds it before PyInstaller collects ``resources/``,
so the installer carries it). A checkout that has not built it still has the Markdown
pages in ``docs/``, which read well as they are.
"""

from __future__ import annotations

from pathlib import Path

from resources import resource_path

CHECKOUT_DOCS = Path(__file__).resolve().parents[1] / "docs"

# Where the pages come from when neither is here (a wheel installed without a build).
SOURCE_HINT = "python3 dev.py docs (in a checkout of CIR Studio) builds it"


def manual_entry(
    resources: Path | None = None, docs: Path | None = None
) -> Path | None:
    """The manual's first page: the built ``index.html``, else ``docs/index.md``, else None."""
    built = (resources or resource_path()) / "manual" / "index.html"
    if built.is_file():
        return built
    markdown = (docs or CHECKOUT_DOCS) / "index.md"
    return markdown if markdown.is_file() else None
