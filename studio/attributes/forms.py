"""How attribute words are spelled and compared: folding, separators and plural forms.

Matching works on *folded* text: Unicode NFKD with combining marks dropped, then
``casefold`` ("Robe À Fleurs" → "robe a fleurs"), because product text often drops or
changes accents and case. A term is a sequence of words; between words any run of
spaces or hyphens matches, or none ("v neck", "v-neck", "vneck"). Plurals are derived
for the last word ("polka dot" ↔ "polka dots", "ruffle" ↔ "ruffles", "dress" ↔
"dresses", "strap" ↔ "straps"); irregular ones belong in the vocabulary as synonyms.

``match_key`` is what two spellings must share to mean the same thing, so the
vocabulary's clash check and the extractor agree by construction.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

SEPARATORS = " \t\n\r\u00a0-\u2010\u2011\u2012\u2013\u2014\u2015_"
_SEPARATOR_RUN = re.compile(f"[{re.escape(SEPARATORS)}]+")
_NO_SINGULAR = ("ss", "us", "is", "os", "as")


def fold(text: str) -> str:
    """Lower-case without accents: the form both text and terms are compared in."""
    decomposed = unicodedata.normalize("NFKD", text)
    stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return unicodedata.normalize("NFC", stripped).casefold()


def words(term: str) -> tuple[str, ...]:
    """The folded words of a term; separators (spaces, hyphens) are dropped."""
    return tuple(w for w in _SEPARATOR_RUN.split(fold(term)) if w)


def match_key(term: str) -> str:
    """Spellings with equal keys are the same word to the extractor ("T-shirt" = "tshirt")."""
    return "".join(words(term))


def plural(word: str) -> str:
    if re.search(r"[^aeiou]y$", word):
        return word[:-1] + "ies"
    if re.search(r"(s|x|z|ch|sh)$", word):
        return word + "es"
    return word + "s"


def singular(word: str) -> str | None:
    """A singular for a word that looks plural, else None ("dress", "canvas" stay)."""
    if len(word) < 4 or not word.endswith("s") or word.endswith(_NO_SINGULAR):
        return None
    if word.endswith("ies"):
        return word[:-3] + "y"
    if re.search(r"(ss|x|z|ch|sh)es$", word):
        return word[:-2]
    return word[:-1]


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
