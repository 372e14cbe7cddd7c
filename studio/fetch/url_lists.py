"""Fashion IQ's ``asin2url.{category}.txt``: one ``ASIN \\t URL`` per line.

The published files put a space on each side of the tab
(``B00014NGF6 \\t http://ecx.images-amazon.com/images/I/51AERD8SM8L._SY445_.jpg``); both
sides are stripped. An ASIN may appear in several lists (an item in two categories): it is
one picture, fetched once, its URLs tried in the order they were listed. Every problem is
collected with its file and line before anything is fetched.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from studio.errors import ValidationError

ASIN = re.compile(r"^[A-Za-z0-9_-]{1,64}$")  # becomes a file name: no dots, no slashes
MAX_LISTED = 20


@dataclass
class Wanted:
    """One picture to fetch: its id, its URLs, and where it was listed first."""

    asin: str
    urls: list[str]
    source: str  # "FILE:LINE" of the first listing
    lists: list[str] = field(default_factory=list)


def read_url_lists(paths: list[Path]) -> list[Wanted]:
    """Every ASIN of the lists in first-listed order; raises naming each bad line."""
    wanted: dict[str, Wanted] = {}
    problems: list[str] = []
    for path in paths:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            problems.append(f"{path}: cannot be read ({error})")
            continue
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            where = f"{path}:{number}"
            asin, tab, url = line.partition("\t")
            asin, url = asin.strip(), url.strip()
            if not tab:
                problems.append(f"{where}: expected 'ASIN<tab>URL', found {line!r:.80}")
            elif not ASIN.match(asin):
                problems.append(f"{where}: {asin!r:.40} is not an ASIN (letters and digits)")
            elif urlsplit(url).scheme not in ("http", "https") or not urlsplit(url).netloc:
                problems.append(f"{where}: {url!r:.80} is not an http(s) URL")
            elif asin in wanted:
                item = wanted[asin]
                if url not in item.urls:
                    item.urls.append(url)
                if path.name not in item.lists:
                    item.lists.append(path.name)
            else:
                wanted[asin] = Wanted(asin, [url], where, [path.name])
    if problems:
        more = f"; … and {len(problems) - MAX_LISTED} more" if len(problems) > MAX_LISTED else ""
        raise ValidationError(
            f"URL lists refused, nothing was fetched ({len(problems)} problems): "
            + "; ".join(problems[:MAX_LISTED]) + more
        )
    return list(wanted.values())
