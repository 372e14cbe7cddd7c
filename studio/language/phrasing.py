"""How the *realistic* simulated users word a difference: like Fashion IQ's annotators.

Real relative captions (see the hand-labelled set in ``tests/data``) compare more than they
name ("is shorter", "has longer sleeves", "is darker"), negate ("has no sleeves", "not
striped"), name several things at once, use words outside any vocabulary ("scarlet",
"spotty", "baggy"), add words that carry no attribute ("and more elegant") and misspell
("sleves", "strpied"). This module holds those phrasings; ``users.py`` decides what to
say, this decides how.

Every phrase here states something true of the target (the user never lies unless the
``noise`` of the user asks it to); some say it less precisely than the catalog's value
(an out-of-vocabulary colour word, "has sleeves" for long sleeves), as people do.
"""

from __future__ import annotations

import random
import string

# value -> ways a person says "the one I want is/has <value>"
SAYINGS: dict[str, dict[str, tuple[str, ...]]] = {
    "color": {
        "black": ("is black", "black", "is all black", "is black in color", "is jet black"),
        "white": ("is white", "white", "is white colored", "is a crisp white"),
        "grey": ("is grey", "is gray", "gray", "is heather gray", "is ash colored"),
        "red": ("is red", "red", "is scarlet", "is crimson", "is red in color"),
        "pink": ("is pink", "pink", "is rosy pink", "is pink colored", "is bubblegum"),
        "orange": ("is orange", "orange", "is tangerine", "is orange colored"),
        "yellow": ("is yellow", "yellow", "is lemon yellow", "is canary"),
        "green": ("is green", "green", "is kelly green", "is grass green"),
        "blue": ("is blue", "blue", "is cobalt blue", "is bright blue", "is azure"),
        "navy": ("is navy", "is navy blue", "is dark blue", "navy", "is midnight"),
        "purple": ("is purple", "purple", "is violet", "is a deep purple"),
        "beige": ("is beige", "beige", "is sand colored", "is a light tan", "is oatmeal"),
        "brown": ("is brown", "brown", "is chocolate", "is brown colored", "is coffee colored"),
    },
    "pattern": {
        "solid": (
            "is solid",
            "is a solid color",
            "has no pattern",
            "is one color",
            "is plain colored",
        ),
        "striped": (
            "is striped",
            "has stripes",
            "with stripes",
            "has lines across it",
            "is stripy",
        ),
        "polka dot": ("has polka dots", "has dots", "is dotted", "is spotty", "with little dots"),
        "floral": ("is floral", "has flowers", "is flowery", "has a flower print", "is botanical"),
        "plaid": (
            "is plaid",
            "is tartan",
            "has a plaid pattern",
            "is checkered",
            "is a lumberjack check",
        ),
    },
    "sleeve": {
        "sleeveless": (
            "is sleeveless",
            "has no sleeves",
            "without sleeves",
            "is a tank style",
            "shows the arms",
        ),
        "short sleeve": (
            "has short sleeves",
            "is short sleeved",
            "has short-sleeves",
            "has t-shirt sleeves",
        ),
        "long sleeve": (
            "has long sleeves",
            "is long sleeved",
            "has full sleeves",
            "covers the arms",
        ),
    },
    "neckline": {
        "crew neck": (
            "has a crew neck",
            "has a round neck",
            "is crewneck",
            "has a high round collar line",
        ),
        "v-neck": ("has a v-neck", "has a v neck", "is vneck", "has a deep v"),
        "scoop neck": (
            "has a scoop neck",
            "has a scooped neckline",
            "has a u shaped neck",
            "has a low round neck",
        ),
        "collar": ("has a collar", "is collared", "with a collar", "has a button collar"),
    },
    "length": {
        "mini": ("is a mini", "is mini length", "is very short", "barely covers the thighs"),
        "knee-length": ("is knee length", "goes to the knee", "is knee-length", "hits the knee"),
        "midi": ("is midi", "is midi length", "goes below the knee", "is mid calf"),
        "maxi": ("is a maxi", "is floor length", "is maxi length", "goes to the floor"),
        "cropped": ("is cropped", "is a crop top", "shows the belly", "is cut short"),
        "regular length": ("is regular length", "is a normal length", "sits at the hip"),
        "longline": ("is longline", "is a long top", "goes past the hips"),
    },
    "fit": {
        "slim fit": ("is slim fit", "is fitted", "is form fitting", "hugs the body"),
        "regular fit": ("is regular fit", "is a normal fit", "is a standard cut"),
        "loose fit": ("is loose", "is loose fitting", "is baggy", "is relaxed", "is oversized"),
    },
    "graphic": {
        "plain front": (
            "is plain",
            "has no graphic",
            "has nothing printed on it",
            "has a plain front",
        ),
        "graphic print": (
            "has a graphic",
            "has a picture on it",
            "has an image on the front",
            "has a cool print",
        ),
        "text print": (
            "has words on it",
            "has writing",
            "has text on the front",
            "has lettering",
            "says something",
        ),
    },
}
# direction -> facet -> phrasings of "more"/"less" relative to the reference
COMPARING: dict[str, dict[str, tuple[str, ...]]] = {
    "more": {
        "length": ("is longer", "longer", "is a bit longer", "has a longer hem", "is much longer"),
        "sleeve": (
            "has longer sleeves",
            "longer sleeved",
            "with longer sleeves",
            "has more sleeve",
        ),
        "fit": ("is tighter", "is more fitted", "is slimmer", "fits tighter", "is snugger"),
        "lightness": (
            "is lighter",
            "is lighter in color",
            "is brighter",
            "is a paler color",
            "lighter",
        ),
    },
    "less": {
        "length": (
            "is shorter",
            "shorter",
            "is a bit shorter",
            "has a shorter length",
            "is much shorter",
        ),
        "sleeve": (
            "has shorter sleeves",
            "shorter sleeved",
            "with shorter sleeves",
            "has less sleeve",
        ),
        "fit": ("is looser", "is more flowy", "is baggier", "is a looser fit", "is roomier"),
        "lightness": (
            "is darker",
            "is a darker color",
            "is darker in color",
            "darker",
            "is a deeper shade",
        ),
    },
}
NEGATING = ("is not {v}", "isn't {v}", "no {v}", "not {v}", "is no longer {v}")
FILLERS = (
    "and is more elegant",
    "and looks nicer",
    "and is more casual",
    "and sexier",
    "and is more modern",
    "and is shinier",
    "and is less formal",
)
CONNECTORS = (" and ", ", ", " and ", " and it ", ". It ")
OPENERS = ("", "", "", "it ", "I want one that ", "the one I want ", "something that ")


def typo(word: str, rng: random.Random) -> str:
    """One edit a hurried typist makes: a dropped, doubled, swapped or wrong letter."""
    if len(word) < 4 or not word.isalpha():
        return word
    i = rng.randrange(1, len(word) - 1)
    kind = rng.randrange(4)
    if kind == 0:
        return word[:i] + word[i + 1 :]
    if kind == 1:
        return word[:i] + word[i] + word[i:]
    if kind == 2:
        return word[: i - 1] + word[i] + word[i - 1] + word[i + 1 :]
    return word[:i] + rng.choice(string.ascii_lowercase) + word[i + 1 :]


def misspell(text: str, rate: float, rng: random.Random) -> str:
    """Each word of four letters or more gets a typo with probability ``rate``."""
    if rate <= 0:
        return text
    return " ".join(typo(w, rng) if rng.random() < rate else w for w in text.split(" "))


def say(facet: str, value: str, rng: random.Random) -> str | None:
    options = SAYINGS.get(facet, {}).get(value)
    return rng.choice(options) if options else None


def negate(facet: str, value: str, rng: random.Random) -> str | None:
    """ "isn't striped": what the current item has and the target does not."""
    spoken = {
        "solid": "solid",
        "striped": "striped",
        "polka dot": "dotted",
        "floral": "floral",
        "plaid": "plaid",
        "sleeveless": "sleeveless",
        "loose fit": "loose",
        "plain front": "plain",
        "cropped": "cropped",
        "slim fit": "fitted",
    }
    word: str | None
    if facet == "color":
        word = value
    elif facet == "graphic" and value in ("graphic print", "text print"):
        return rng.choice(("has no graphic", "no print on it", "without the graphic"))
    elif facet == "neckline" and value == "collar":
        return rng.choice(("has no collar", "without a collar", "doesn't have a collar"))
    else:
        word = spoken.get(value)
    if word is None:
        return None
    return rng.choice(NEGATING).format(v=word)


def compare(facet: str, direction: str, rng: random.Random) -> str:
    return rng.choice(COMPARING[direction][facet])
