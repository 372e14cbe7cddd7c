"""Automatic caption checks a reviewer sees, each with the reason in plain words.

They are heuristics meant to direct attention, not verdicts: a flagged caption may be
fine. ``text_flags`` is pure (text in, flags out); ``caption_flags`` gathers the pair's
other captions and product titles from the project.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from studio.captions.records import Caption
from studio.language import lexicon
from studio.language.lexicon import STOP_WORDS
from studio.language.reader import Request, read_caption
from studio.store import Project
from studio.store.repos import captions as captions_repo

FlagKind = Literal[
    "empty", "short", "reference_only", "colour_conflict", "contradiction", "duplicate", "no_target"
]

SYNONYMS = {"gray": "grey", "colour": "color"}
MIN_WORDS = 2
MIN_LETTERS = 4


@dataclass(frozen=True)
class Flag:
    kind: FlagKind
    reason: str


def words(text: str) -> list[str]:
    return [SYNONYMS.get(w, w) for w in re.findall(r"[a-z0-9]+", text.lower())]


# Words after which a colour is the one *not* wanted ("no red", "blue instead of red"):
# the lexicon's one-word negations and "less" words, and the contrast words.
_NEGATION_WORDS = frozenset(
    words(phrase)[0] for phrase in (*lexicon.NEGATIONS, *lexicon.LESS_WORDS) if " " not in phrase
) | {"instead", "rather", "than"}
# Words that show a caption compares rather than describes.
COMPARISONS = _NEGATION_WORDS | {
    "more",
    "longer",
    "shorter",
    "darker",
    "lighter",
    "brighter",
    "bigger",
    "smaller",
    "looser",
    "tighter",
    "different",
    "change",
    "changed",
    "add",
    "added",
    "also",
    "but",
    "same",
}


def normalise(text: str) -> str:
    return " ".join(words(text))


def colours(text: str) -> set[str]:
    """Colours the text asks for (the caption reader's color/is), not those it negates."""
    return {r.value for r in read_caption(text) if r.facet == "color" and r.op == "is" and r.value}


# Colours two people may both use for one garment; within a family there is no conflict.
COLOUR_FAMILIES = (
    {
        "blue",
        "navy",
        "light blue",
        "sky blue",
        "royal blue",
        "indigo",
        "teal",
        "turquoise",
        "aqua",
        "cyan",
    },
    {"grey", "silver", "charcoal", "light grey", "dark grey", "taupe"},
    {"white", "cream", "ivory", "beige", "champagne", "nude", "light grey", "silver"},
    {"beige", "tan", "khaki", "camel", "nude", "taupe", "brown", "cream"},
    {"red", "burgundy", "wine", "coral", "rust", "hot pink"},
    {"pink", "hot pink", "fuchsia", "blush", "dusty rose", "coral", "salmon", "peach", "mauve"},
    {"purple", "lavender", "plum", "mauve", "indigo", "fuchsia", "burgundy", "wine"},
    {"green", "dark green", "olive", "mint", "sage", "emerald", "lime", "teal", "khaki"},
    {"brown", "rust", "copper", "bronze", "camel", "tan", "burgundy"},
    {"yellow", "gold", "mustard", "lime"},
    {"orange", "coral", "rust", "peach", "salmon", "copper"},
    {"black", "charcoal", "dark grey", "navy"},
)
# A colour said of one of these is a part's colour ("red letters"), so two captions may
# name different colours without contradicting each other.
PART_WORDS = {
    "logo",
    "letters",
    "lettering",
    "words",
    "writing",
    "text",
    "print",
    "graphic",
    "design",
    "designs",
    "image",
    "picture",
    "collar",
    "sleeves",
    "sleeve",
    "trim",
    "stripes",
    "stripe",
    "dots",
    "flowers",
    "belt",
    "buttons",
    "straps",
    "pattern",
    "accents",
    "lace",
    "top",
    "bottom",
    "skirt",
    "waist",
    "neckline",
    "hem",
    "band",
    "bands",
    "panel",
    "panels",
    "details",
    "detail",
    "lining",
    "bow",
    "shoes",
    "font",
    "sides",
    "front",
    "back",
    "decal",
    "stitching",
    "embroidery",
    "gloves",
    "pants",
    "jacket",
    "shorts",
    "leggings",
    "scarf",
    "hat",
    "cardigan",
    "vest",
}
OPPOSITE = {"more": "less", "less": "more"}


def _same_family(a: str, b: str) -> bool:
    if a == b or "multicolor" in (a, b):
        return True
    if "black and white" in (a, b):
        other = b if a == "black and white" else a
        return other in ("black", "white", "grey", "charcoal", "silver", "light grey", "dark grey")
    return any(a in family and b in family for family in COLOUR_FAMILIES)


def garment_colours(requests: list[Request], text: str) -> list[str]:
    """The colours a caption gives the garment: those not said of a part ("red letters")."""
    tokens = words(text)
    out = []
    for request in requests:
        if request.facet != "color" or request.op != "is" or not request.value:
            continue
        last = request.value.split()[-1]
        places = [i for i, token in enumerate(tokens) if token == last]
        of_part = places and all(set(tokens[i + 1 : i + 2]) & PART_WORDS for i in places)
        if not of_part:
            out.append(request.value)
    return out


def colour_conflict(
    mine: list[Request], theirs: list[Request], text: str, other: str
) -> tuple[str, str] | None:
    """Each caption gives the garment one colour and the two cannot be the same colour."""
    return _colour_conflict(_Facts.of(text, lambda _t: mine), _Facts.of(other, lambda _t: theirs))


def _colour_conflict(mine: _Facts, theirs: _Facts) -> tuple[str, str] | None:
    a, b = mine.garment, theirs.garment
    if len(a) != 1 or len(b) != 1:
        return None
    if any(_same_family(x, y) for x in mine.named for y in theirs.named) or not (
        mine.coloured or theirs.coloured
    ):
        return None  # one caption may describe a part the other names ("black words")
    return a[0], b[0]


def opposite_requests(mine: list[Request], theirs: list[Request]) -> str | None:
    """Requests that cannot both hold: shorter vs longer, red vs not red."""
    for request in mine:
        for their in theirs:
            if request.facet != their.facet:
                continue
            if request.op in OPPOSITE and their.op == OPPOSITE[request.op]:
                return f"{request.op} {request.facet} here, {their.op} {request.facet}"
            if {request.op, their.op} == {"is", "not"} and request.value == their.value:
                return (
                    f"{request.facet} {request.op} {request.value} here, {their.op} {their.value}"
                )
    return None


@dataclass(frozen=True)
class _Facts:
    """What the checks need of one caption, worked out once: its words, its reading and
    the colours it names (a run's queries share a ``FlagReader`` of these)."""

    tokens: list[str]
    normal: str
    requests: list[Request]
    garment: list[str]  # the colours it gives the garment (garment_colours)
    named: list[str]  # the colours it asks for (color/is)
    coloured: bool  # it names a colour at all, asked for or not

    @classmethod
    def of(cls, text: str, read: Callable[[str], list[Request]] = read_caption) -> _Facts:
        tokens = words(text)
        requests = read(text)
        return cls(
            tokens,
            " ".join(tokens),
            requests,
            garment_colours(requests, text),
            [r.value for r in requests if r.facet == "color" and r.op == "is" and r.value],
            any(r.facet == "color" and r.value for r in requests),
        )


def text_flags(
    text: str, others: Sequence[str] = (), reference_title: str = "", target_title: str = "",
    *, read: Callable[[str], list[Request]] = read_caption,
) -> list[Flag]:
    """Flags of one caption given the pair's other captions and the two product titles.
    ``read``: the caption reader (a caller flagging every caption of a pair passes one that
    remembers, so each caption is read once)."""
    return _flags(_Facts.of(text, read), others, [_Facts.of(o, read) for o in others],
                  reference_title, target_title)


def _flags(mine: _Facts, others: Sequence[str], theirs: Sequence[_Facts],
           reference_title: str = "", target_title: str = "") -> list[Flag]:
    tokens = mine.tokens
    if not tokens:
        return [Flag("empty", "The caption is empty.")]
    flags = []
    letters = sum(len(t) for t in tokens)
    if len(tokens) < MIN_WORDS or letters < MIN_LETTERS:
        flags.append(
            Flag(
                "short",
                f"Very short ({len(tokens)} word"
                f"{'s' if len(tokens) != 1 else ''}): say what differs.",
            )
        )
    reference_only = _describes_reference(tokens, reference_title, target_title)
    if reference_only:
        flags.append(
            Flag(
                "reference_only",
                "Describes only the provided image ("
                + ", ".join(f"'{w}'" for w in reference_only)
                + ") and nothing of the wanted one.",
            )
        )
    for other, their in zip(others, theirs, strict=True):
        clash = _colour_conflict(mine, their)
        if clash is not None:
            flags.append(
                Flag(
                    "colour_conflict",
                    f"Colour contradicts the other caption: {clash[0]} here, {clash[1]} in "
                    f"\u201c{other}\u201d.",
                )
            )
            break
        opposite = opposite_requests(mine.requests, their.requests)
        if opposite is not None:
            flags.append(
                Flag(
                    "contradiction",
                    f"Contradicts the other caption: {opposite} in \u201c{other}\u201d.",
                )
            )
            break
    if any(their.normal == mine.normal for their in theirs):
        flags.append(Flag("duplicate", "Same text as another caption of this pair."))
    return flags


class FlagReader:
    """The kinds of the flags of many groups of captions (a run's queries), each distinct
    caption's words and reading worked out once for all of them."""

    #: distinct captions remembered at most (then it starts again): a bound on memory
    REMEMBERED = 50_000

    def __init__(self, read: Callable[[str], list[Request]] = read_caption) -> None:
        self._read = read
        self._facts: dict[str, _Facts] = {}

    def facts(self, text: str) -> _Facts:
        found = self._facts.get(text)
        if found is None:
            if len(self._facts) >= self.REMEMBERED:
                self._facts.clear()
            found = self._facts[text] = _Facts.of(text, self._read)
        return found

    def kinds(self, texts: Sequence[str]) -> list[str]:
        """The kinds of the flags of each caption against the others, each once, in the
        order they first come (as ``text_flags`` raises them, without product titles)."""
        facts = [self.facts(text) for text in texts]
        kinds: list[str] = []
        for n, mine in enumerate(facts):
            others = [text for m, text in enumerate(texts) if m != n]
            theirs = [f for m, f in enumerate(facts) if m != n]
            for flag in _flags(mine, others, theirs):
                if flag.kind not in kinds:
                    kinds.append(flag.kind)
        return kinds


def _describes_reference(tokens: list[str], reference_title: str, target_title: str) -> list[str]:
    """Caption words found only in the reference's title, if it names nothing of the target."""
    if not reference_title or not target_title or COMPARISONS & set(tokens):
        return []
    reference = set(words(reference_title)) - STOP_WORDS
    target = set(words(target_title)) - STOP_WORDS
    content = [t for t in tokens if t not in STOP_WORDS]
    only_reference = [t for t in content if t in reference - target]
    if only_reference and not any(t in target - reference for t in content):
        return sorted(set(only_reference))
    return []


def caption_flags(project: Project, caption: Caption) -> list[Flag]:
    """Flags of a stored caption: its pair's other captions, titles, the author's history."""
    reference_title, target_title = captions_repo.pair_titles(project, caption.pair_id)
    others = captions_repo.other_texts(project, caption.pair_id, caption.id)
    flags = text_flags(caption.text, others, reference_title, target_title)
    if caption.author and len(words(caption.text)) >= 3:
        copies = captions_repo.same_text_elsewhere(
            project, caption.author, caption.text, caption.pair_id
        )
        if copies:
            flags.append(
                Flag(
                    "duplicate",
                    f"{caption.author} wrote the same text for "
                    f"{copies} other pair{'s' if copies != 1 else ''}.",
                )
            )
    flag = rank_flag(project, caption)
    if flag is not None:
        flags.append(flag)
    return flags


def rank_flag(project: Project, caption: Caption) -> Flag | None:
    """*Does not find the target*: the stored rank is above the project's threshold."""
    from studio.captions.ranking import index_key, rank_settings
    from studio.captions.ranks import stored_rank

    stored = stored_rank(project, caption.id)
    if stored is None or stored.rank is None:
        return None
    settings = rank_settings(project)
    if stored.rank <= settings.threshold:
        return None
    stale = stored.stale_reasons(settings, index_key(project, stored.model), caption.text)
    return Flag(
        "no_target",
        f"Does not find the target: it ranks {stored.rank:,} of {stored.gallery_size:,} "
        f"with model {stored.model} (threshold {settings.threshold})"
        + (f"; this rank is stale ({'; '.join(stale)})." if stale else "."),
    )
