"""One compiled regular expression per vocabulary that finds its attributes in text.

All spellings (names, synonyms, plural forms) go into a character trie turned into a
single regex, so a description is scanned once however large the vocabulary is, and at
each position the longest spelling wins ("polka dots" before "dots", "plain front"
before "plain"). Matches are whole words: the characters just before and after must not
be letters or digits in any script (``(?<!\\w)`` / ``(?!\\w)`` on ``str`` patterns are
Unicode-aware), so "tank" is not found in "tankini" nor "à fleurs" in "fleurs-de-lis".
Scripts written without spaces (Chinese, Japanese) are therefore not supported.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from studio.attributes.forms import SEPARATORS, variants
from studio.attributes.records import VocabularyEntry
from studio.language.lexicon import fold

_END = ""
_SEP = " "  # trie token for "a run of separators, or none", between two words
_SEP_PATTERN = f"[{re.escape(SEPARATORS)}]*"

Trie = dict[str, "Trie"]


def _insert(trie: Trie, spelling: tuple[str, ...]) -> None:
    node = trie
    for index, word in enumerate(spelling):
        if index:
            node = node.setdefault(_SEP, {})
        for char in word:
            node = node.setdefault(char, {})
    node[_END] = {}


def _pattern(node: Trie) -> str:
    """Regex for a trie node; an optional group is greedy, so longer spellings win."""
    alternatives = [
        (_SEP_PATTERN if token == _SEP else re.escape(token)) + _pattern(child)
        for token, child in sorted(node.items())
        if token != _END
    ]
    if not alternatives:
        return ""
    if len(alternatives) == 1 and _END not in node:
        return alternatives[0]
    group = "(?:" + "|".join(alternatives) + ")"
    return group + "?" if _END in node else group


class AttributeMatcher:
    """Finds which attributes of a vocabulary a text mentions.

    Two attributes sharing a spelling is prevented by the vocabulary's clash check; if a
    database was edited by hand, the entry listed first keeps the spelling.
    """

    def __init__(self, entries: Sequence[VocabularyEntry]) -> None:
        self.entries = list(entries)
        self._by_key: dict[str, str] = {}
        trie: Trie = {}
        for entry in self.entries:
            for term in entry.terms:
                for spelling in variants(term):
                    self._by_key.setdefault("".join(spelling), entry.name)
                    _insert(trie, spelling)
        body = _pattern(trie)
        self.regex = re.compile(f"(?<!\\w)(?:{body})(?!\\w)") if body else None

    def find(self, *texts: str) -> list[str]:
        """Names of the attributes mentioned in any of ``texts``, in order of first mention."""
        if self.regex is None:
            return []
        found: dict[str, None] = {}
        for text in texts:
            for match in self.regex.finditer(fold(text)):
                name = self._by_key.get(_key(match.group(0)))
                if name is not None:
                    found.setdefault(name, None)
        return list(found)

    def find_all(self, texts: Iterable[tuple[str, ...]]) -> list[list[str]]:
        return [self.find(*parts) for parts in texts]


def _key(matched: str) -> str:
    return "".join(ch for ch in matched if ch not in SEPARATORS)
