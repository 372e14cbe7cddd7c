"""The words the caption reader knows: phrases → what they ask for (CAPTION_READING.md).

Each table maps a phrase (words separated by single spaces, after folding and with hyphens
turned into spaces) to a *reading*: an absolute value of a facet, a comparative direction,
or a marker word (negation, "more", "less") that changes the reading of the phrase after
it. Values are names from ``resources/vocabulary/facets.json``; the test suite checks that
every value here is one of them. The reader matches the longest phrase at each position,
so "navy blue" wins over "navy", "short sleeves" over "short", "no sleeves" over "no".

This is the studio's one list of colours (``COLOR_NAMES`` and their ``COLOR_SYNONYMS``),
of negations (``NEGATIONS``) and of stop words (``STOP_WORDS``), and its one way of
folding text and of forming plurals and singulars (``fold``, ``plural``, ``singular``):
the caption reader, the review flags, pair mining, the vocabulary matcher, part words,
the simulated users and the messages' counts all use these.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from itertools import product

# fmt: off

# -- absolute facets ------------------------------------------------------------------

COLOR_NAMES = (
    "black", "white", "grey", "red", "pink", "orange", "yellow", "green", "blue", "navy",
    "purple", "beige", "brown", "cream", "ivory", "khaki", "olive", "teal", "turquoise",
    "burgundy", "coral", "mint", "lavender", "mustard", "gold", "silver", "charcoal", "camel",
    "tan", "taupe", "nude", "blush", "fuchsia", "emerald", "sage", "rust", "copper", "bronze",
    "multicolor", "neon", "pastel", "light blue", "sky blue", "royal blue", "dark green",
    "hot pink", "peach", "salmon", "plum", "wine", "aqua", "mauve", "cyan", "lime", "indigo",
    "dusty rose", "champagne", "light grey", "dark grey", "black and white",
)
COLOR_SYNONYMS = {
    "gray": "grey", "greyish": "grey", "grayish": "grey", "heather grey": "grey",
    "heather gray": "grey", "light gray": "light grey", "dark gray": "dark grey",
    "navy blue": "navy", "dark blue": "navy", "midnight blue": "navy", "maroon": "burgundy",
    "hunter green": "dark green", "forest green": "dark green", "baby blue": "light blue",
    "pale blue": "light blue", "brownish": "brown", "reddish": "red", "bluish": "blue",
    "greenish": "green", "pinkish": "pink", "purplish": "purple", "yellowish": "yellow",
    "whiter": "white", "blacker": "black", "redder": "red", "violet": "purple",
    "magenta": "fuchsia", "golden": "gold", "off white": "cream", "creme": "cream",
    "multi color": "multicolor", "multicolored": "multicolor", "multi colored": "multicolor",
    "multicoloured": "multicolor", "multi colour": "multicolor", "multicolour": "multicolor",
    "multi colour print": "multicolor", "multitude of colors": "multicolor",
    "multiple colors": "multicolor", "rainbow": "multicolor", "white and black": "black and white",
    "black white": "black and white", "black & white": "black and white",
    "light pink": "pink", "light purple": "purple", "light green": "green",
    "light brown": "brown", "tangerine": "orange", "lilac": "lavender", "cranberry": "burgundy",
    "denim": "blue", "jean": "blue", "army green": "olive", "kelly green": "green",
    "lime green": "lime", "neon green": "neon", "sky": "sky blue", "lemon": "yellow",
    "tannish": "tan", "ivory white": "ivory", "wine red": "wine",
}
PATTERN_PHRASES = {
    "solid": "solid", "solid colored": "solid", "solid color": "solid", "one color": "solid",
    "single color": "solid", "no pattern": "solid", "striped": "striped", "stripes": "striped",
    "stripe": "striped", "stripey": "striped", "stripy": "striped", "pinstripe": "pinstripe",
    "pinstriped": "pinstripe", "pin stripe": "pinstripe", "polka dot": "polka dot",
    "polka dots": "polka dot", "polka dotted": "polka dot", "dots": "polka dot",
    "dotted": "polka dot", "spots": "polka dot", "spotted": "polka dot", "dot pattern": "polka dot",
    "floral": "floral", "flowers": "floral", "flowery": "floral", "flowered": "floral",
    "flower print": "floral", "flower pattern": "floral", "florals": "floral",
    "plaid": "plaid", "tartan": "plaid", "checked": "checked", "checkered": "checked",
    "check pattern": "checked", "check print": "checked", "checks": "checked",
    "gingham": "gingham", "houndstooth": "houndstooth", "paisley": "paisley",
    "animal print": "animal print", "tiger print": "animal print", "tiger stripes": "animal print",
    "snake print": "animal print", "snakeskin": "animal print", "cheetah print": "leopard print",
    "leopard": "leopard print", "leopard print": "leopard print", "cheetah": "leopard print",
    "zebra": "zebra print", "zebra print": "zebra print", "camouflage": "camouflage",
    "camo": "camouflage", "geometric": "geometric", "tie dye": "tie-dye", "tie dyed": "tie-dye",
    "chevron": "chevron", "argyle": "argyle", "color block": "color block",
    "colorblock": "color block", "color blocked": "color block", "abstract print": "abstract print",
    "abstract pattern": "abstract print", "tropical": "tropical print",
    "tropical print": "tropical print", "botanical": "botanical print", "leaves": "botanical print",
    "leaf print": "botanical print", "palm leaves": "botanical print", "stars": "star print",
    "star print": "star print", "hearts": "heart print", "heart print": "heart print",
}
SLEEVE_PHRASES = {
    "sleeveless": "sleeveless", "tank": "sleeveless", "tank top": "sleeveless",
    "straps": "sleeveless", "strap": "sleeveless", "strappy": "sleeveless", "strapped": "sleeveless",
    "strap sleeves": "sleeveless", "shoulder straps": "sleeveless", "vest top": "sleeveless",
    "thin straps": "spaghetti strap", "spaghetti straps": "spaghetti strap",
    "spaghetti strap": "spaghetti strap", "skinny straps": "spaghetti strap",
    "strapless": "strapless", "tube top": "strapless", "short sleeve": "short sleeve",
    "short sleeves": "short sleeve", "short sleeved": "short sleeve", "long sleeve": "long sleeve",
    "long sleeves": "long sleeve", "long sleeved": "long sleeve", "longed sleeved": "long sleeve",
    "3/4 sleeve": "3/4 sleeve", "3/4 sleeves": "3/4 sleeve", "3/4 length sleeves": "3/4 sleeve",
    "three quarter sleeves": "3/4 sleeve", "three quarter length sleeves": "3/4 sleeve",
    "quarter sleeves": "3/4 sleeve", "elbow sleeves": "elbow sleeve",
    "elbow length sleeves": "elbow sleeve", "half sleeves": "elbow sleeve",
    "half sleeve": "elbow sleeve", "cap sleeves": "cap sleeve", "cap sleeve": "cap sleeve",
    "capped sleeves": "cap sleeve", "more short sleeved": "short sleeve",
}
# A negation followed by these words is read as the value, not as "not" it.
NEGATED_PHRASES = {
    ("sleeve", "sleeveless"): ("sleeves", "sleeve", "sleeved", "arms"),
    ("sleeve", "strapless"): ("straps", "strap", "shoulder straps"),
    ("graphic", "plain front"): ("graphic", "graphics", "graphic print", "design", "designs",
                                 "print", "image", "images", "picture", "pictures", "logo design",
                                 "writing", "decoration"),
    ("neckline", "off the shoulder"): ("shoulders", "shoulder"),
}
NECKLINE_PHRASES = {
    "crew neck": "crew neck", "crewneck": "crew neck", "round neck": "crew neck",
    "round neckline": "crew neck", "crew": "crew neck", "v neck": "v-neck", "vneck": "v-neck",
    "v neckline": "v-neck", "v shaped neck": "v-neck", "deep v": "plunging neckline",
    "scoop neck": "scoop neck", "scoop": "scoop neck", "scoop neckline": "scoop neck",
    "u neck": "scoop neck", "u shaped neck": "scoop neck", "u shaped neckline": "scoop neck",
    "collar": "collar", "collared": "collar", "a collar": "collar", "boat neck": "boat neck",
    "bateau": "boat neck", "cowl neck": "cowl neck", "cowl": "cowl neck", "halter": "halter neck",
    "halter neck": "halter neck", "halter top": "halter neck", "high neck": "high neck",
    "high neckline": "high neck", "mock neck": "mock neck", "turtleneck": "turtleneck",
    "turtle neck": "turtleneck", "square neck": "square neck", "square neckline": "square neck",
    "sweetheart": "sweetheart neckline", "sweetheart neckline": "sweetheart neckline",
    "plunging": "plunging neckline", "plunging neckline": "plunging neckline",
    "off the shoulder": "off the shoulder", "off shoulder": "off the shoulder",
    "open shoulders": "off the shoulder", "open shoulder": "off the shoulder",
    "cold shoulder": "off the shoulder", "one shoulder": "one shoulder",
    "one shouldered": "one shoulder", "single shoulder": "one shoulder", "henley": "henley",
    "mandarin collar": "mandarin collar", "polo": "polo collar", "polo collar": "polo collar",
    "peter pan collar": "peter pan collar", "shawl collar": "shawl collar",
    "spread collar": "spread collar", "button down collar": "button-down collar",
}
LENGTH_PHRASES = {
    "mini": "mini", "mini dress": "mini", "knee length": "knee-length", "knee": "knee-length",
    "at the knee": "knee-length", "to the knee": "knee-length", "midi": "midi",
    "below the knee": "midi", "below knee": "midi", "calf length": "midi", "tea length": "midi",
    "maxi": "maxi", "floor length": "maxi", "full length": "maxi", "ankle length": "ankle-length",
    "cropped": "cropped", "crop top": "cropped", "crop": "cropped", "tunic": "tunic",
    "longline": "longline",
}
FIT_PHRASES = {
    "slim fit": "slim fit", "regular fit": "regular fit", "loose": "loose fit",
    "loose fit": "loose fit", "loose fitting": "loose fit", "loosely fitted": "loose fit",
    "bodycon": "bodycon", "body con": "bodycon", "boxy": "boxy", "tailored": "tailored",
}
GRAPHIC_PHRASES = {
    "plain": "plain front", "plain front": "plain front", "plainer": "plain front",
    "graphic": "graphic print", "graphics": "graphic print", "graphic print": "graphic print",
    "graphic tee": "graphic print", "picture": "graphic print", "pictures": "graphic print",
    "image": "graphic print", "images": "graphic print", "art": "graphic print",
    "artwork": "graphic print", "motif": "graphic print", "screen tee": "graphic print",
    "screen print": "graphic print", "photo": "photo print", "photograph": "photo print",
    "photo print": "photo print", "cartoon": "cartoon print", "cartoons": "cartoon print",
    "cartoon print": "cartoon print", "mario": "cartoon print", "mickey": "cartoon print",
    "minnie": "cartoon print", "pokemon": "cartoon print", "pikachu": "cartoon print",
    "spongebob": "cartoon print", "snoopy": "cartoon print", "hello kitty": "cartoon print",
    "logo": "logo", "logos": "logo", "emblem": "logo", "emblems": "logo", "insignia": "logo",
    "brand name": "logo", "words": "text print", "word": "text print", "wording": "text print",
    "wordy": "text print", "lettering": "text print", "letters": "text print",
    "writing": "text print", "written": "text print", "text": "text print",
    "text print": "text print", "slogan": "text print", "quote": "text print",
    "saying": "text print", "phrase": "text print", "font": "text print", "script": "text print",
    "printed words": "text print", "foreign language": "text print",
}
# Depicted things: an object or figure shown on a garment is a graphic print (convention 6).
DEPICTED = (
    "animal", "animals", "bird", "birds", "cat", "cats", "dog", "dogs", "horse", "lion",
    "tiger face", "monkey", "bear", "owl", "dolphin", "dolphins", "fish", "shark", "eagle",
    "wolf", "skull", "skulls", "skeleton", "person", "people", "man", "woman", "girl", "boy",
    "face", "faces", "character", "characters", "superhero", "robot", "car", "cars", "truck",
    "motorcycle", "bike", "guitar", "gun", "flag", "hat", "wine glass", "beer", "tree",
    "trees", "mountain", "mountains", "sun", "moon", "planet", "band members",
    "portrait", "drawing", "illustration", "figure", "dinosaur", "dragon", "butterfly",
)
GRAPHIC_PHRASES.update({word: "graphic print" for word in DEPICTED})

ABSOLUTE: dict[str, dict[str, str]] = {
    "color": {**{name: name for name in COLOR_NAMES}, **COLOR_SYNONYMS},
    "pattern": PATTERN_PHRASES,
    "sleeve": SLEEVE_PHRASES,
    "neckline": NECKLINE_PHRASES,
    "length": LENGTH_PHRASES,
    "fit": FIT_PHRASES,
    "graphic": GRAPHIC_PHRASES,
}

# -- comparative dimensions -------------------------------------------------------------

COMPARATIVE: dict[str, tuple[str, str]] = {}  # phrase -> (facet, "more" | "less")


def _comparatives(facet: str, direction: str, phrases: tuple[str, ...]) -> None:
    for phrase in phrases:
        COMPARATIVE[phrase] = (facet, direction)


_comparatives("length", "more", (
    "longer", "long", "longer length", "more long", "lengthier", "taller", "longer skirt",
    "longer hem", "longer hemline", "less short",
))
_comparatives("length", "less", (
    "shorter", "short", "shorter length", "shorter skirt", "shorter bottom", "shorter hem",
    "shorter hemline", "more short", "less long", "above the knee", "short dress",
    "short skirt",
))
_comparatives("sleeve", "more", (
    "longer sleeves", "longer sleeve", "longer sleeved", "has sleeves", "with sleeves",
    "sleeved", "have sleeves", "more sleeves", "more sleeve", "longer arms", "has arms",
))
_comparatives("sleeve", "less", (
    "shorter sleeves", "shorter sleeve", "shorter sleeved", "less sleeves", "less sleeve", "smaller sleeves",
    "shorter arms",
))
_comparatives("lightness", "more", (
    "lighter", "brighter", "paler", "lighter color", "lighter colored", "light colored",
    "light color", "light coloured", "bright colored", "brightly colored", "more bright",
    "less dark", "whiter shade", "lighter shade", "lighter in color", "light in color",
))
_comparatives("lightness", "less", (
    "darker", "dark", "dark colored", "dark coloured", "dark color", "darker color",
    "darker colored", "duller", "less bright", "more dark", "deeper color", "dimmer",
    "darker shade", "less light",
))
_comparatives("fit", "more", (
    "tighter", "tight", "tight fitting", "tighter fitting", "fits tight", "slimmer",
    "more fitted", "fitted", "form fitting", "more form fitting", "fitted at the waist",
    "more fitting", "tighter fit", "snug", "snugger", "figure hugging", "more tight",
    "less loose", "skinnier", "body hugging", "fitted look",
))
_comparatives("fit", "less", (
    "looser", "looser fit", "looser fitting", "flowy", "more flowy", "more flowing",
    "flowing", "baggier", "baggy", "less fitted", "less tight", "more loose", "roomier",
    "wider", "oversized", "relaxed", "flowier", "billowy",
))
_comparatives("colorful", "more", (
    "more colorful", "colorful", "more colors", "more color", "brighter colors", "vibrant",
    "more vibrant", "colourful", "more colourful", "more colours", "many colors", "busier",
))
_comparatives("colorful", "less", (
    "less colorful", "less colourful", "less color", "less colors", "fewer colors",
    "monochrome", "monochromatic", "more subdued", "subdued", "less vibrant",
    "less vividly colored", "less vividly coloured", "less vivid", "more muted", "muted",
    "duller colors", "less busy",
))

# -- words that change the reading of what follows ----------------------------------------

NEGATIONS = (
    "no", "not", "without", "non", "isn't", "isnt", "doesn't", "doesnt", "don't", "dont",
    "lacks", "lacking", "minus", "nor", "never", "instead of", "rather than", "has not",
    "does not have", "doesn't have", "doesnt have", "not have", "removed", "remove",
    "lose", "no more", "free of", "no longer", "not anymore", "except",
)
MORE_WORDS = ("more", "extra", "much more", "even more", "slightly more", "a bit more")
LESS_WORDS = ("less", "fewer", "slightly less", "a bit less", "much less")
# After a brightness or colourfulness word these nouns show it is about a detail (convention
# 12, 11): "a brighter logo", "a colorful slogan".
DETAIL_NOUNS = (
    "logo", "logos", "graphic", "graphics", "print", "design", "designs", "flowers", "flower",
    "letters", "lettering", "words", "writing", "text", "slogan", "image", "images",
    "picture", "pictures", "emblem", "art", "pattern", "stripes", "dots", "font", "accents",
    "trim", "detail", "details", "buttons", "belt", "straps",
)
# Words that say nothing about the wanted item on their own (articles, "is", "and", "color",
# the garment's name). A simulated person's caption holds these and phrases the reader
# reads as what it was asked, nothing else (``CaptionReader.unread_words``).
FUNCTION_WORDS = frozenset(["a", "an", "the", "and", "or", "but", "with", "is", "are", "it", "its", "it's", "i", "want", "one", "that", "this", "be", "to", "of", "in", "on", "than", "also", "has", "have", "very", "bit", "little", "much", "more", "less", "same", "color", "colour", "colored", "coloured", "dress", "dresses", "shirt", "shirts", "top", "tee", "t", "tshirt", "blouse", "as", "so", "too", "just", "slightly", "somewhat", "quite", "front"])
# Style words: how the item feels, which CAPTION_READING.md reads as no request ("sexier",
# "more elegant", "more revealing"). A simulated person with nothing to ask may say only
# these ("is more formal"), as people do in about one caption in ten.
STYLE_WORDS = frozenset(["revealing", "formal", "casual", "sexy", "sexier", "feminine", "shiny", "shinier", "whimsical", "simple", "simpler", "sporty", "sportier", "humorous", "modest", "masculine", "elegant", "conservative", "chic", "fashionable", "fancy", "fancier", "girly", "sleek", "bold", "bolder", "modern", "cute", "trendy", "classy", "dressy", "professional", "youthful", "playful", "flirty", "edgy", "classic", "different", "similar", "identical", "exactly", "like", "looks", "looking", "style", "stylish"])
# "X and Y" said as a pair gives the single value "black and white" (convention 4).
PAIRS = {("black", "white"): "black and white", ("white", "black"): "black and white"}


# Real words near a known word, never "corrected" into it ("back" is not "black",
# "peplum" not "plum"). Rare words outside this list may be read as typos.
REAL_WORDS = """back bled blade lack black lace laced lacy face plan plant plans pain paint plate slack
past pass paste sleek sheer shear shirt shirts skirt skirts short shorts sport sporty spot stripes
trim tanks thank think thin thing things tight light night right sight fight might
white while whale whole wine wire wise word work worn ward warm wore more mere mode moda
lose loss lost last less lens bless dress dresses press cress stress tress tee tees tea
team tear dark darn dart bark barn park part card cart hard harm farm yarn near neat neck
nice line lines lined linen liner lion loin long song tong longs lone tone tons tore torn
sore sort soft loft left lift list lest best bust must gust dust just rust rush brush blush
plush plus pluse slim slip slit slid slide side sides wide wider widen tide tied tier tile
tire fire five fine find kind kid kit knit knot knots note nots pink punk pick pack peck
navy wavy gravy neon noon moon mood good gold bold cold colt told toll tall till fill
mall malt belt bolt boat coat goat moat coast coats beat bead bear dear tear gear rear
wear were here there their these those then than that this thus solo soul sole slob
cap caps cape capes crop crops drop drops stop top tops toe toes ties tie dye dyed dyes
flow flows flower flowers floor flood blood brood broad board bead beads bird birds
plain plaid plead braid bride pride prude print prints pint points point paint
floral flora coral moral mural sheep cheap cheek check checks chick chic choc
buttons formal patterned patterns small same higher looks like shinier shiny shiner lower
around buttoned necked blouse blouses dressy fuller leather letter gown gowns contains girly
both rounded tiny wars four shades draping decorative figures game theme deeply pure waste
jeans shape sports cartoonish cool rock earth love mainly thigh skin lots peplum better outs
sportier cami pictured from manly designed photographic glasses cast printing blousy silky
satin ruffle ruffles ruffled frills pleated sequin sequins belted fancy casual sexy sexier
simple cute pretty flare flared skater wrap zipper hood hoodie pocket pockets cotton silk
velvet wool jersey lighter darker taller smaller bigger larger thicker thinner lower showing
colors colours coloring shown shows sleeve sleeves
"""

# Words that name nothing on their own in titles and captions ("a", "with", "women's"):
# pair mining's TF-IDF and the review flags leave them out.
STOP_WORDS = frozenset(["a", "an", "and", "the", "is", "are", "it", "its", "with", "of", "in", "on", "has", "have", "to", "for", "this", "that", "one", "as", "at", "by", "or", "be", "s", "from", "size", "women", "womens", "men", "mens"])

# fmt: on


def fold(text: str) -> str:
    """Lower-case without accents: the form both text and terms are compared in."""
    if text.isascii():  # nothing to decompose, and casefold is lower for ASCII
        return text.lower()
    decomposed = unicodedata.normalize("NFKD", text)
    stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return unicodedata.normalize("NFC", stripped).casefold()


# Nouns whose plural no rule gives.
IRREGULAR_PLURALS = {"person": "people"}
_NO_SINGULAR = ("ss", "us", "is", "os", "as")


def plural(word: str) -> str:
    """The plural of one English word: "dress" → "dresses", "entry" → "entries"."""
    if word in IRREGULAR_PLURALS:
        return IRREGULAR_PLURALS[word]
    if re.search(r"[^aeiou]y$", word):
        return word[:-1] + "ies"
    if re.search(r"(s|x|z|ch|sh)$", word):
        return word + "es"
    return word + "s"


@lru_cache(maxsize=16384)
def singular(word: str) -> str | None:
    """A singular for a word that looks plural, else None ("dress", "canvas" stay)."""
    if len(word) < 4 or not word.endswith("s") or word.endswith(_NO_SINGULAR):
        return None
    if word.endswith("ies"):
        return word[:-3] + "y"
    if re.search(r"(ss|x|z|ch|sh)es$", word):
        return word[:-2]
    return word[:-1]


def phrase_table() -> dict[str, tuple[str, str, str | None]]:
    """Every phrase → (kind, facet or marker, value) where kind is is|cmp|neg|more|less."""
    table: dict[str, tuple[str, str, str | None]] = {}
    for facet, phrases in ABSOLUTE.items():
        for phrase, value in phrases.items():
            table.setdefault(phrase, ("is", facet, value))
    for phrase, (facet, direction) in COMPARATIVE.items():
        table[phrase] = ("cmp", facet, direction)
    for (facet, value), objects in NEGATED_PHRASES.items():
        for negation, obj in product(
            (
                "no",
                "without",
                "not",
                "has not",
                "doesn't have",
                "doesnt have",
                "does not have",
                "not have",
                "none",
            ),
            objects,
        ):
            table[f"{negation} {obj}"] = ("is", facet, value)
    for phrase in NEGATIONS:
        table.setdefault(phrase, ("neg", "", None))
    for phrase in MORE_WORDS:
        table.setdefault(phrase, ("more", "", None))
    for phrase in LESS_WORDS:
        table.setdefault(phrase, ("less", "", None))
    return table
