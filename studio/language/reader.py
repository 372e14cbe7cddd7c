"""The caption reader: a relative caption in, requests ``{facet, op, value}`` out.

It follows ``CAPTION_READING.md`` (the schema a careful person applies to real Fashion IQ
captions). The text is folded, split into words, misspelt words are read by intent (an
edit-distance match against the reader's own words, stdlib ``difflib``: the vocabulary is
a few hundred words, so no extra dependency is worth it), then the longest known phrase is
taken at each position (``studio.language.lexicon``). A second pass applies the words
that change the next phrase's meaning: a negation makes ``not`` ("no logo", "without the
flowers"), "less" drops a colour ("less red" asks for nothing) or turns a comparative
round ("less bright" = darker), and a brightness or colourfulness word that describes a
detail ("a brighter logo", "a colorful slogan") asks for nothing.

One reader serves every place that reads people's text: retrieval sessions, chat answers,
the caption flags, the quality indicator "attributes named" and ``captions read``.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from studio.language import lexicon
from studio.language.lexicon import fold, singular

Op = Literal["is", "not", "more", "less"]
OPS: tuple[Op, ...] = ("is", "not", "more", "less")
COMPARATIVE_FACETS = ("length", "sleeve", "lightness", "fit", "colorful")

_TOKEN = re.compile(r"[a-z0-9/]+(?:'[a-z]+)?")
_SPACERS = ("a", "an", "the", "any", "some", "of", "its", "it", "have", "has", "with")
NEGATION_REACH = 3  # words a negation or "more"/"less" may reach across to its phrase
_REAL_WORDS = frozenset(lexicon.REAL_WORDS.split())


@dataclass(frozen=True)
class Request:
    """One thing a caption asks for: ``is``/``not`` a value, or ``more``/``less`` of a facet."""

    facet: str
    op: Op
    value: str | None = None

    def __post_init__(self) -> None:
        if self.op not in OPS:
            raise ValueError(f"op must be one of {OPS}, got {self.op!r}")
        if (self.value is None) != (self.op in ("more", "less")):
            raise ValueError("more/less requests have no value; is/not requests need one")

    def to_json(self) -> dict[str, str | None]:
        return {"facet": self.facet, "op": self.op, "value": self.value}

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> Request:
        value = data.get("value")
        return cls(str(data["facet"]), data["op"], None if value is None else str(value))  # type: ignore[arg-type]

    def describe(self) -> str:
        word = "colour" if self.facet == "color" else self.facet
        return {
            "is": f"{word} = {self.value}",
            "not": f"{word} \u2260 {self.value}",
            "more": f"more {word}",
            "less": f"less {word}",
        }[self.op]


@dataclass(frozen=True)
class _Match:
    kind: str  # is | cmp | neg | more | less
    facet: str
    value: str | None
    start: int
    end: int  # exclusive, in tokens
    phrase: str


class CaptionReader:
    """Reads captions into requests; extra phrases may come from a project's vocabulary."""

    def __init__(
        self,
        extra_phrases: Mapping[str, tuple[str, str]] | None = None,
        overrides: Mapping[str, tuple[str, str]] | None = None,
    ) -> None:
        """``extra_phrases`` add words the lexicon lacks; ``overrides`` replace the
        lexicon's reading of a phrase (a project's own words, such as worn parts)."""
        table = dict(lexicon.phrase_table())
        for phrase, (facet, value) in (extra_phrases or {}).items():
            key = " ".join(_tokens(phrase))
            if key:
                table.setdefault(key, ("is", facet, value))
        for phrase, (facet, value) in (overrides or {}).items():
            key = " ".join(_tokens(phrase))
            if key:
                table[key] = ("is", facet, value)
        self.table = table
        self.longest = max(len(p.split()) for p in table)
        # The most words of a phrase beginning with each word: a phrase of two words or
        # more starts with the token itself (only a last word is read as a plural), so at
        # a token that begins none only the one-word reading is tried.
        self._longest_from: dict[str, int] = {}
        for phrase in table:
            first, *rest = phrase.split() or [""]
            self._longest_from[first] = max(self._longest_from.get(first, 1), 1 + len(rest))
        self.known_words = frozenset(w for p in table for w in p.split())
        self._choices = tuple(sorted(w for w in self.known_words if len(w) >= 4 and w.isalpha()))
        # Each unknown word's correction, worked out once per reader (the closest-match
        # search is most of a caption's reading; a shared cache keyed by the whole word
        # list was both slow to look up and too small for a dataset's words).
        self._corrections: dict[str, str] = {}

    @classmethod
    def for_vocabulary(
        cls,
        entries: Iterable[object],
        facet_of: Mapping[str, str],
        extra_phrases: Mapping[str, tuple[str, str]] | None = None,
    ) -> CaptionReader:
        """A reader that also knows a project vocabulary's terms for its facet values (and
        ``extra_phrases``, such as the part words of ``studio.outfits.part_words``, which
        take precedence over the lexicon: "a hat" in an outfit project is a worn hat, not a
        printed graphic)."""
        extra: dict[str, tuple[str, str]] = {}
        for entry in entries:
            name = getattr(entry, "name", "")
            facet = facet_of.get(name)
            if facet is None:
                continue
            for term in getattr(entry, "terms", (name,)):
                extra.setdefault(fold(term), (facet, name))
        return cls(extra, extra_phrases)

    # -- reading ---------------------------------------------------------------------

    def read(self, text: str) -> list[Request]:
        tokens = [self._correct(t) for t in _tokens(text)]
        return _interpret(self._matches(tokens), tokens)

    __call__ = read

    def affirmative_text(self, text: str) -> str:
        """The text without its negated phrases ("is blue, not red" → "is blue"), for a
        text encoder: CLIP-like encoders read "not red" as much like "red"."""
        tokens = [self._correct(t) for t in _tokens(text)]
        negated: list[range] = []
        _interpret(self._matches(tokens), tokens, negated)
        if not negated:
            return text
        dropped = {i for span in negated for i in span}
        return " ".join(t for i, t in enumerate(tokens) if i not in dropped)

    def words(self, text: str) -> list[tuple[str, bool]]:
        """Each word of ``text`` (as the reader splits and corrects it) and whether it is
        part of a phrase the reader knows (a value, a comparative, a negation, "more")."""
        tokens = [self._correct(t) for t in _tokens(text)]
        covered = self.read_positions(tokens)
        return [(token, i in covered) for i, token in enumerate(tokens)]

    def read_positions(self, tokens: Sequence[str]) -> set[int]:
        """The positions of ``tokens`` (split and corrected) inside phrases the reader knows."""
        covered: set[int] = set()
        for m in self._matches(tokens):
            covered.update(range(m.start, m.end))
            if m.kind == "is" and m.start > 0 and tokens[m.start - 1] in _VALUE_LEADS:
                covered.add(m.start - 1)  # "a different graphic" is a graphic
            if m.kind == "is" and m.end < len(tokens) and tokens[m.end] in _VALUE_HEADS:
                covered.add(m.end)  # "a floral pattern", "graphic design": the value's noun
        return covered

    def unread_words(self, text: str) -> list[str]:
        """The content words of ``text`` the reader reads as nothing ("zipper", "revealing",
        "mexican"): not part of a known phrase and not in ``lexicon.FUNCTION_WORDS``."""
        return [w for w, read in self.words(text) if not read and w not in lexicon.FUNCTION_WORDS]

    def facets(self, text: str) -> dict[str, str]:
        """The first ``is`` value per facet: the old one-value-per-facet reading."""
        out: dict[str, str] = {}
        for request in self.read(text):
            if request.op == "is" and request.value is not None:
                out.setdefault(request.facet, request.value)
        return out

    def _correct(self, token: str) -> str:
        if (
            token in self.known_words
            or token in _REAL_WORDS
            or len(token) < 4
            or not token.isalpha()
        ):
            return token
        single = singular(token)
        if single and single in self.known_words:
            return single
        corrected = self._corrections.get(token)
        if corrected is None:
            if len(self._corrections) >= 100_000:
                self._corrections.clear()
            corrected = self._corrections[token] = _closest(token, self._choices) or token
        return corrected

    def _matches(self, tokens: Sequence[str]) -> list[_Match]:
        found: list[_Match] = []
        table, longest_from = self.table, self._longest_from
        count = len(tokens)
        i = 0
        while i < count:
            for size in range(min(longest_from.get(tokens[i], 1), count - i), 0, -1):
                phrase = " ".join(tokens[i : i + size])
                hit = table.get(phrase)
                last = tokens[i + size - 1]
                if hit is None and last.endswith("s"):
                    single = singular(last)
                    hit = table.get(" ".join([*tokens[i : i + size - 1], single])) \
                        if single else None
                if hit is not None:
                    kind, facet, value = hit
                    found.append(_Match(kind, facet, value, i, i + size, phrase))
                    i += size
                    break
            else:
                i += 1
        return found


@lru_cache(maxsize=4096)
def _closest(token: str, choices: tuple[str, ...]) -> str | None:
    cutoff = 0.75 if len(token) <= 5 else 0.8
    # Typos keep the first letter far more often than not; demanding it avoids reading
    # rare real words ("peplum", "cami") as vocabulary words ("plum", "camo").
    # A four-letter word is only a typo of a word one letter longer or shorter ("blak").
    reach = 1 if len(token) <= 4 else 2
    by_start = _by_start_and_length(choices).get(token[0], {})
    same_start = tuple(c for size in range(len(token) - reach, len(token) + reach + 1)
                       for c in by_start.get(size, ()))
    close = difflib.get_close_matches(token, same_start, n=1, cutoff=cutoff)
    return close[0] if close else None


@lru_cache(maxsize=8)
def _by_start_and_length(choices: tuple[str, ...]) -> dict[str, dict[int, tuple[str, ...]]]:
    """The choices by first letter, then length: a token's candidates without a scan."""
    grouped: dict[str, dict[int, list[str]]] = {}
    for choice in choices:  # in the given order, so ties are broken as before
        grouped.setdefault(choice[0], {}).setdefault(len(choice), []).append(choice)
    return {start: {size: tuple(words) for size, words in sizes.items()}
            for start, sizes in grouped.items()}


def _tokens(text: str) -> list[str]:
    folded = fold(text).replace("\u2019", "'").replace("&", " and ")
    folded = re.sub(r"[-_\u2010-\u2015]", " ", folded)
    return [t.strip("'") for t in _TOKEN.findall(folded) if t.strip("'")]


# Nouns that name what a value is about, read with the value just before them ("a floral
# pattern", "a plaid print", "a graphic design"; alone, "has a pattern", they ask nothing),
# and "different" before a value ("a different graphic").
_VALUE_HEADS = frozenset(["pattern", "patterns", "print", "prints", "design", "designs"])
_VALUE_LEADS = frozenset(["different"])
_ALONE_MODIFIERS = {"dark"}  # "dark purple" is purple; "dark" alone is a darker colour


def _interpret(
    matches: Sequence[_Match], tokens: Sequence[str], negated: list[range] | None = None
) -> list[Request]:
    """The requests; ``negated`` collects the token ranges of "not <value>" phrases."""
    out: list[Request] = []
    pending: _Match | None = None  # the last negation / more / less word not yet used
    detail = set(lexicon.DETAIL_NOUNS)
    for index, match in enumerate(matches):
        if match.kind in ("neg", "more", "less"):
            pending = match
            continue
        following = matches[index + 1] if index + 1 < len(matches) else None
        modifier = None
        if pending is not None and _reaches(pending, match, tokens):
            modifier = pending.kind
            if modifier == "neg" and match.kind == "is" and negated is not None:
                negated.append(range(pending.start, match.end))
        pending = None
        if match.kind == "cmp":
            direction = match.value
            if match.facet in ("lightness", "colorful"):
                next_word = tokens[match.end] if match.end < len(tokens) else ""
                after = tokens[match.end + 1] if match.end + 1 < len(tokens) else ""
                if (
                    following is not None
                    and following.facet == "color"
                    and following.start == match.end
                    and following.end < len(tokens)
                    and tokens[following.end] in detail
                ):
                    continue  # "lighter blue stripes": the stripes' colour, not the garment's
                if next_word in detail or (
                    after in detail
                    and next_word not in ("and", "with")
                    and (following is None or following.start > match.end)
                ):
                    continue  # "a brighter logo", "a colorful slogan": about a detail
                if (
                    match.phrase in _ALONE_MODIFIERS
                    and following is not None
                    and following.start == match.end
                    and following.facet == "color"
                ):
                    continue  # "dark purple" names a colour; no lightness request
            if modifier in ("less", "neg"):
                direction = "less" if direction == "more" else "more"
            out.append(Request(match.facet, direction))  # type: ignore[arg-type]
            continue
        value = match.value or ""
        if modifier == "less":
            continue  # "less red", "less text": asks for nothing
        if (
            match.facet == "color"
            and following is not None
            and following.facet == "color"
            and following.kind == "is"
            and following.start == match.end + 1
            and tokens[match.end] == "and"
            and (value, following.value) in lexicon.PAIRS
            and _not_followed_by_color(matches, index + 1)
        ):
            value = lexicon.PAIRS[(value, following.value or "")]
            out.append(Request("color", "not" if modifier == "neg" else "is", value))
            matches = [*matches[: index + 1], *matches[index + 2 :]]  # consume the pair
            continue
        if match.facet == "color" and match.start > 0 and tokens[match.start - 1] == "all":
            out.append(Request("pattern", "is", "solid"))
        out.append(Request(match.facet, "not" if modifier == "neg" else "is", value))
    return _tidy(out)


def _not_followed_by_color(matches: Sequence[_Match], index: int) -> bool:
    """ "black and white" is the pair value unless a third colour follows in the same list."""
    nxt = matches[index + 1] if index + 1 < len(matches) else None
    return not (nxt is not None and nxt.facet == "color" and nxt.start <= matches[index].end + 1)


def _reaches(marker: _Match, match: _Match, tokens: Sequence[str]) -> bool:
    """A negation reaches across a word or two ("no black logo"); more/less must touch."""
    gap = [t for t in tokens[marker.end : match.start] if t not in _SPACERS]
    if marker.kind != "neg":
        return not gap
    return len(gap) <= NEGATION_REACH - 1 and "and" not in gap and "but" not in gap


def _tidy(requests: list[Request]) -> list[Request]:
    """Drop repeats; "no straps and no sleeves" is strapless only (convention 7)."""
    seen: dict[Request, None] = {}
    for request in requests:
        seen.setdefault(request, None)
    out = list(seen)
    values = {(r.facet, r.value) for r in out if r.op == "is"}
    if ("sleeve", "strapless") in values:
        out = [r for r in out if not (r.facet == "sleeve" and r.value == "sleeveless")]
    return out


_DEFAULT: CaptionReader | None = None


def default_reader() -> CaptionReader:
    """The reader with CAPTION_READING.md's vocabulary only (built once)."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = CaptionReader()
    return _DEFAULT


def read_caption(text: str) -> list[Request]:
    return default_reader().read(text)
