"""Counts read as people write them (#27 D20), and no view writes "(s)" or "1 captions"."""

from __future__ import annotations

import re
from pathlib import Path

from studio.wording import count, plural

WIDGETS = Path(__file__).resolve().parents[2] / "widgets"
# A number put straight before a plural noun ("{n} captions") reads "1 captions" for one.
NUMBER_THEN_PLURAL = re.compile(
    r"\{[^{}]*\}\s+(?:captions|ratings|drafts|packages|pairs|images|turns|transactions|labels|"
    r"entries|items|records|edits|conflicts|problems|files|people|rounds|runs)\b"
)
HEDGED = re.compile(r"[\"'][^\"'\n]*[a-z]\(s\)[^\"'\n]*[\"']")  # "caption(s)"
HAND_MADE = re.compile(r"""['"]s['"] if |else ['"]s['"]""")  # {'s' if n != 1 else ''}


def test_count_says_one_and_many() -> None:
    assert count(1, "caption") == "1 caption"
    assert count(18, "rating") == "18 ratings"
    assert count(0, "draft") == "0 drafts"
    assert count(12032, "caption") == "12,032 captions"
    assert count(1, "invalid entry") == "1 invalid entry"
    assert count(3, "invalid entry") == "3 invalid entries"
    assert count(2, "tfidf pair") == "2 tfidf pairs"
    assert plural("person", 2) == "people" and plural("package", 1) == "package"


def test_no_view_builds_a_plural_by_hand() -> None:
    found = []
    for path in sorted(WIDGETS.rglob("*.py")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if NUMBER_THEN_PLURAL.search(line) or HEDGED.search(line) or HAND_MADE.search(line):
                found.append(f"{path.relative_to(WIDGETS.parent)}:{number}: {line.strip()}")
    assert not found, "use studio.wording.count:\n" + "\n".join(found)


def test_a_merge_that_brings_nothing_says_nothing_new() -> None:
    from studio.team.merge import MergeReport

    empty = MergeReport("p1", "dan").summary()
    assert "nothing new" in empty and "new nothing" not in empty
    one = MergeReport("p2", "dan", added={"captions": 1, "audit_log": 1}).summary()
    assert "new 1 caption, 1 audit row;" in one and "1 conflicts" not in one
