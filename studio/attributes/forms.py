"""How attribute words are spelled and compared: folding, separators and plural forms.

Matching works on *folded* text: Unicode NFKD with combining marks dropped, then
``casefold`` ("Robe À Fleurs" → "robe a fleurs"), because product text often drops or
changes accents and case. A term is a sequence of words; between words any run of
spaces or hyphens matches, or none ("v neck", "v-neck", "vneck"). Plurals are derived
for the last word by the lexicon's ``plural`` and ``singular`` ("polka dot" ↔ "polka
dots", "ruffle" ↔ "ruffles", "dress" ↔ "dresses", "strap" ↔ "straps"); irregular ones
belong in the vocabulary as synonyms. Folding is the lexicon's ``fold``.

``match_key`` is what two spellings must share to mean the same thing, so the
vocabulary's clash check and the extractor agree by construction.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from studio.language.lexicon import fold, plural, singular

SEPARATORS = " \t\n\r\u00a0-\u2010\u2011\u2012\u2013\u2014\u2015_"
_SEPARATOR_RUN = re.compile(f"[{re.escape(SEPARATORS)}]+")


def words(term: str) -> tuple[str, ...]:
    """The folded words of a term; separators (spaces, hyphens) are dropped."""
    return tuple(w for w in _SEPARATOR_RUN.split(fold(term)) if w)


def match_key(term: str) -> str:
    """Spellings with equal keys are the same word to the extractor ("T-shirt" = "tshirt")."""
    return "".join(words(term))


def variants(term: str) -> list[tuple[str, ...]]:
    """The term's words plus its plural and singular, varying the last word only."""
    base = words(term)
    if not base:
        return []
    head, last = base[:-1], base[-1]
    out = [base]
    if last.isalpha():
        out.append((*head, plural(last)))
        single = singular(last)
        if single:
            out.append((*head, single))
    return out


def variant_keys(terms: Iterable[str]) -> set[str]:
    """Every key a set of terms matches, plurals included: what clash checks compare."""
    return {"".join(v) for term in terms for v in variants(term)}
