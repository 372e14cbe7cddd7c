"""Training texts for the demo model, and which images each text truly describes.

A catalog title such as "Red Dress" is true of every red dress, so plain CLIP training,
which treats every other image in the batch as a negative, would push apart images the
text describes equally well. Each training text therefore carries the attributes it states
(read back from catalog text with :data:`TEXT_PHRASES`, or known because we wrote it), and
the loss counts every image consistent with a text as a positive.

Besides each item's title and description we write short attribute phrases with random
subsets, orders and synonyms ("long-sleeved navy shirt", "dotted top with a v-neck",
"in red with stripes"), so the text tower learns each attribute word on its own, which is
what relative captions and composed queries need.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from functools import cache

from studio.demo.catalog import ATTRIBUTE_VALUES, TEXT_PHRASES, CatalogItem

ANY_CATEGORY = ""

NOUNS: dict[str, tuple[str, ...]] = {
    "dress": ("dress",),
    "shirt": ("shirt", "button-up shirt", "button-down shirt"),
    "toptee": ("t-shirt", "tee", "top"),
}
SLEEVELESS_TOP_NOUNS = ("tank top", "tank", "top")

#: attribute -> value -> adjective forms used before the noun.
ADJECTIVES: dict[str, dict[str, tuple[str, ...]]] = {
    "pattern": {
        "solid": ("solid", "solid-colour", "plain"),
        "stripes": ("striped", "stripe"),
        "dots": ("polka-dot", "dotted"),
        "floral": ("floral", "flower-print"),
        "plaid": ("plaid", "tartan", "checked"),
    },
    "sleeve": {
        "sleeveless": ("sleeveless",),
        "short": ("short-sleeve", "short-sleeved"),
        "long": ("long-sleeve", "long-sleeved"),
    },
    "fit": {
        "slim": ("slim", "slim-fit", "fitted"),
        "regular": ("regular-fit",),
        "loose": ("loose", "oversized", "relaxed"),
    },
    "length": {
        "mini": ("mini",),
        "knee": ("knee-length",),
        "midi": ("midi",),
        "maxi": ("maxi",),
        "cropped": ("cropped",),
        "regular": ("regular-length",),
        "long": ("longline", "long-length"),
    },
}

#: attribute -> value -> "with ..." forms used after the noun.
WITH_PHRASES: dict[str, dict[str, tuple[str, ...]]] = {
    "pattern": {
        "solid": ("a solid colour", "no pattern"),
        "stripes": ("stripes", "bold stripes"),
        "dots": ("polka dots", "dots"),
        "floral": ("a floral print", "a flower print", "flowers"),
        "plaid": ("a plaid pattern", "a tartan check"),
    },
    "sleeve": {
        "sleeveless": ("no sleeves", "a sleeveless cut"),
        "short": ("short sleeves",),
        "long": ("long sleeves",),
    },
    "neckline": {
        "crew": ("a crew neck", "a crewneck", "a round neck"),
        "v-neck": ("a v-neck", "a v neckline"),
        "scoop": ("a scoop neck", "a scoop neckline"),
        "collar": ("a collar", "a button collar"),
    },
    "fit": {
        "slim": ("a slim fit", "a fitted silhouette"),
        "regular": ("a regular fit",),
        "loose": ("a loose fit", "an oversized fit", "a relaxed fit"),
    },
    "length": {
        "mini": ("a mini length",),
        "knee": ("a knee-length hem",),
        "midi": ("a midi hem", "a midi length"),
        "maxi": ("a maxi length",),
        "cropped": ("a cropped length", "a crop hem"),
        "regular": ("a regular length",),
        "long": ("a long length", "a longline hem"),
    },
    "graphic": {
        "none": ("a plain front", "a clean front"),
        "graphic": ("a graphic print", "a printed graphic"),
        "text": ("a text print", "printed text"),
    },
}
_PRE_NOUN = ("color", "pattern", "sleeve", "fit", "length")
#: Words catalog titles use that TEXT_PHRASES does not list (yet).
EXTRA_PHRASES: dict[str, dict[str, tuple[str, ...]]] = {"pattern": {"stripes": ("stripe",)}}


@dataclass(frozen=True)
class TrainText:
    """A text and what it claims: a category (or any) and some attribute values."""

    text: str
    category: str
    attributes: tuple[tuple[str, str], ...]

    def describes(self, category: str, attributes: dict[str, str]) -> bool:
        if self.category not in (ANY_CATEGORY, category):
            return False
        return all(attributes.get(name) == value for name, value in self.attributes)


@cache
def _phrase_patterns(category: str) -> tuple[tuple[str, str, re.Pattern[str]], ...]:
    out = []
    for name, values in ATTRIBUTE_VALUES[category].items():
        for value in values:
            extra = EXTRA_PHRASES.get(name, {}).get(value, ())
            for phrase in (*TEXT_PHRASES[name].get(value, ()), *extra):
                pattern = re.compile(r"(?<![\w-])" + re.escape(phrase) + r"(?![\w-])")
                out.append((name, value, pattern))
    return tuple(out)


def stated_attributes(text: str, category: str) -> dict[str, str]:
    """The attribute values a catalog text states, read back by whole-word phrase search."""
    lowered = text.lower()
    found: dict[str, str] = {}
    for name, value, pattern in _phrase_patterns(category):
        if name not in found and pattern.search(lowered):
            found[name] = value
    return found


def catalog_texts(item: CatalogItem) -> list[TrainText]:
    """The item's own title and description, each with the attributes it states."""
    return [
        TrainText(
            text, item.category, tuple(sorted(stated_attributes(text, item.category).items()))
        )
        for text in (item.title, item.description)
    ]


def attribute_phrase(item: CatalogItem, rng: random.Random) -> TrainText:
    """A short phrase stating a random subset of the item's attributes (maybe no noun)."""
    attrs = item.attributes
    names = [name for name in attrs if not (name == "graphic" and attrs[name] == "none")]
    if "graphic" in attrs and attrs["graphic"] == "none" and rng.random() < 0.3:
        names.append("graphic")
    chosen = rng.sample(names, rng.randint(1, min(4, len(names))))
    with_noun = rng.random() < 0.85
    before, after = [], []
    for name in chosen:
        value = attrs[name]
        can_adjective = name == "color" or (name in ADJECTIVES and value in ADJECTIVES[name])
        if with_noun and name in _PRE_NOUN and can_adjective and rng.random() < 0.75:
            before.append(value if name == "color" else rng.choice(ADJECTIVES[name][value]))
        elif name == "color":
            after.append("in " + value)
        else:
            after.append("with " + rng.choice(WITH_PHRASES[name][value]))
    rng.shuffle(before)
    rng.shuffle(after)
    if with_noun:
        nouns = NOUNS[item.category]
        if item.category == "toptee" and attrs["sleeve"] == "sleeveless":
            nouns = SLEEVELESS_TOP_NOUNS
        noun = rng.choice(nouns)
        if noun.startswith("tank") and "sleeve" not in chosen:
            chosen.append("sleeve")  # "tank" itself says sleeveless
        text = " ".join([*before, noun])
        if after:
            text += " " + " and ".join(after) if len(after) < 3 else " " + ", ".join(after)
        category = item.category
    else:
        text = " and ".join(after) if after else attrs["color"]
        category = ANY_CATEGORY
        if rng.random() < 0.5:
            text = rng.choice(("is ", "has ", "")) + text
    claimed = tuple(sorted((name, attrs[name]) for name in chosen))
    return TrainText(text, category, claimed)
