"""Simulated users: what a person who knows the target would type at each turn.

Every simulator sees the target's facets and the current reference's facets (the item
the session carried forward) and writes one turn. They never state something false
unless noise is asked for: the texts mention only real differences.

- ``AttributeDifferenceUser``: direct ("is blue with long sleeves") or comparative
  ("is darker and has longer sleeves") phrases for up to ``max_facets`` differing facets.
- ``RetrospectiveUser``: the same, but from turn 3 on it refers back as FashionMT does —
  a *rollback* when an earlier turn's item was closer to the target than the current one,
  a *combination* when an earlier item had a facet value the target shares and the
  current one lacks.
- ``ChatAnswerer``: answers the questioner's facet question with the target's value.

Two styles (``style``): ``catalog`` speaks the catalog's own words in fixed templates (the
original, easy users); ``realistic`` speaks as Fashion IQ's annotators do (see
``studio.language.phrasing``): mostly comparatives relative to the reference on the ordinal scales
(length, sleeve, fit) and on colour lightness, negations of what the reference has,
several facets per turn, paraphrases and out-of-vocabulary words, style words that carry
nothing, and typos at ``typo_rate`` per word. ``preset("realistic")`` gives the settings
the ``simulate`` command and ``bench/bench_simulation.py`` use by default.
Dataset captions (the ground-truth relative captions of imported pairs) are used by the
single-turn protocols in ``studio.simulation.protocols``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from studio.language import phrasing
from studio.language.reader import Request
from studio.language.salience import Visibility
from studio.language.turns import Keep, ParsedTurn, phrase_turn

Facets = Mapping[str, str]

# Facets with an order, for comparative phrases: (values in order, word for "more").
ORDERED = {
    "length": (("cropped", "mini", "regular length", "knee-length", "midi", "longline",
                "maxi", "ankle-length"), ("longer", "shorter")),
    "sleeve": (("strapless", "spaghetti strap", "sleeveless", "cap sleeve", "short sleeve",
                "elbow sleeve", "3/4 sleeve", "long sleeve"),
               ("has longer sleeves", "has shorter sleeves")),
    "fit": (("bodycon", "slim fit", "tailored", "regular fit", "boxy", "loose fit", "oversized"),
            ("looser", "tighter")),
}
LIGHTNESS = {
    "white": 0.97, "beige": 0.85, "yellow": 0.82, "pink": 0.75, "orange": 0.65, "grey": 0.55,
    "green": 0.45, "red": 0.42, "blue": 0.4, "purple": 0.33, "brown": 0.3, "navy": 0.18,
    "black": 0.05,
}
DIRECT = {
    "color": "is {v}", "pattern": "is {v}", "sleeve": "has {v}s", "neckline": "has a {v}",
    "length": "is {v}", "fit": "is {v}", "graphic": "has a {v}",
}
PARAPHRASE_OPENERS = ("", "I want one that ", "make it so it ", "something that ")


def _sayable(captioner: Any, request: Request) -> bool:
    can_say = getattr(captioner, "can_say", None)
    return can_say is None or bool(can_say(request))


#: A detail of an item that is not a facet of its own: the colour its print is drawn in
#: ("navy with white dots", "black with white lettering"), where the world knows it (the
#: demo world's ``studio.demo.garments.print_colours``). Learned users may name it beside
#: the item's colour; it is never a difference by itself.
PRINT_COLOR = "print color"
#: How often a learned user who names a two-coloured target's colour names both: 18 % of
#: the Fashion IQ captions that name a colour name two (or "black and white"); with it,
#: learned users on the demo world (half its garments show a print colour, drawn as often
#: as people name them) name two in about as many of theirs.
SECOND_COLOUR = 0.27


#: What people also call a value of the demo world's pictures: Fashion IQ's annotators call
#: the word or the emblem printed on a chest "a logo" (280 of their graphic requests, beside
#: 438 text prints and 813 graphic prints), and the demo world's chest prints are a word
#: ("NYC", "LOVE") or a one-colour motif (a star, a heart, a sun). A learned user may name
#: such a print as people do, as often as they did, where the other item's front does not
#: show one too (then "a logo" tells nothing apart).
ALSO_CALLED: dict[tuple[str, str], tuple[str, ...]] = {
    ("graphic", "text print"): ("logo",),
    ("graphic", "graphic print"): ("logo",),
}


def differences(target: Facets, current: Facets) -> list[str]:
    """Facets on which the target differs from the current item (known on both sides)."""
    return sorted(f for f in target
                  if f != PRINT_COLOR and f in current and current[f] != target[f])


def direct_phrase(facet: str, value: str) -> str:
    if facet == "sleeve" and value in ("sleeveless", "strapless"):
        return f"is {value}"
    if facet == "graphic" and value == "plain front":
        return "has a plain front"
    return DIRECT.get(facet, "is {v}").format(v=value)


def comparative_phrase(facet: str, target: str, current: str) -> str | None:
    if facet == "color" and target in LIGHTNESS and current in LIGHTNESS:
        if abs(LIGHTNESS[target] - LIGHTNESS[current]) < 0.08:
            return None
        return "is darker" if LIGHTNESS[target] < LIGHTNESS[current] else "is lighter"
    if facet in ORDERED:
        order, (more, less) = ORDERED[facet]
        if target in order and current in order:
            return more if order.index(target) > order.index(current) else less
    return None


def join(phrases: Sequence[str]) -> str:
    if len(phrases) <= 1:
        return "".join(phrases)
    return ", ".join(phrases[:-1]) + " and " + phrases[-1]


STYLES = ("catalog", "realistic", "learned")
# Settings of each style's users; explicit arguments override them.
PRESETS: dict[str, dict[str, float]] = {
    "catalog": {"comparative": 0.3, "typo_rate": 0.0, "negation": 0.0, "filler": 0.0,
                "noise": 0.0},
    # noise: the two annotators of a real Fashion IQ pair contradict each other on ~3.5 %
    # of pairs (bench/bench_caption_flags.py), so people do misstate a value now and then.
    "realistic": {"comparative": 0.6, "typo_rate": 0.03, "negation": 0.25, "filler": 0.15,
                  "noise": 0.03},
    # learned: the captioner's templates already carry people's typos, fillers and
    # paraphrases, so only what to say is drawn here (how often people compare or negate).
    "learned": {"comparative": 0.5, "typo_rate": 0.0, "negation": 0.15, "filler": 0.0,
                "noise": 0.03},
}


#: How many colours a garment of each pattern shows (a solid one: its own; a print adds
#: its contrast colour, a floral or plaid one more). Learned users may say "more colorful"
#: for a change of pattern, as Fashion IQ's annotators do (colorful/more and /less are
#: ~2 % of the requests the reader finds in their captions).
PATTERN_COLOURS = {
    "solid": 1, "striped": 2, "polka dot": 2, "pinstripe": 2, "checked": 2, "gingham": 2,
    "houndstooth": 2, "chevron": 2, "argyle": 2, "star print": 2, "heart print": 2,
    "floral": 3, "plaid": 3, "paisley": 3, "tropical print": 3, "abstract print": 3,
    "botanical print": 3, "camouflage": 3, "tie-dye": 3, "color block": 3,
    "geometric": 2, "animal print": 2, "leopard print": 2, "zebra print": 2,
}


def preset(style: str) -> dict[str, float]:
    return dict(PRESETS[style])


def direction(facet: str, target: str, current: str) -> tuple[str, str] | None:
    """(dimension, "more"/"less") in which the target differs from the current item."""
    if facet == "color":
        if target in LIGHTNESS and current in LIGHTNESS:
            gap = LIGHTNESS[target] - LIGHTNESS[current]
            if abs(gap) >= 0.08:
                return "lightness", "more" if gap > 0 else "less"
        return None
    if facet in ORDERED:
        order = ORDERED[facet][0]
        if target in order and current in order and target != current:
            higher = order.index(target) > order.index(current)
            if facet == "fit":  # the scale runs tight to loose; "more" fit is tighter
                higher = not higher
            return facet, "more" if higher else "less"
    return None


def learned_direction(facet: str, target: str, current: str) -> tuple[str, str] | None:
    """``direction``, and for a change of pattern the change in colourfulness."""
    if facet == "pattern":
        have, want = PATTERN_COLOURS.get(current), PATTERN_COLOURS.get(target)
        if have is None or want is None or have == want:
            return None
        return "colorful", "more" if want > have else "less"
    return direction(facet, target, current)


@dataclass
class AttributeDifferenceUser:
    """Describes the target relative to the current item from their facets."""

    seed: int = 0
    max_facets: int = 2
    comparative: float = 0.0  # share of phrases given in comparative form when possible
    noise: float = 0.0  # chance to drop a difference and name a wrong value instead
    paraphrase: bool = False
    name: str = "attribute"
    style: str = "catalog"  # "catalog" (fixed templates) or "realistic" (language/phrasing.py)
    typo_rate: float = 0.0  # realistic: chance per word of four letters or more
    negation: float = 0.0  # realistic: chance to say what the reference has and is unwanted
    filler: float = 0.0  # realistic: chance to add a style word that carries nothing
    captioner: Any = None  # learned: a PhraseCaptioner (None: the shipped one)
    category: str | None = None  # learned: the items' category, to choose as its people did
    # learned: how visible a facet's change is between the current item and the target,
    # (facet, target value, current value) -> v or None (``studio.language.salience``).
    # Used when the captioner learned salience; None: facets by people's counts alone.
    visibility: Visibility | None = None
    # The visibility against the item carried forward from turn i (history[i]), set by the
    # runner, which knows the pictures; ``turn`` binds ``visibility`` from it.
    visibility_at: Callable[[int], Visibility | None] | None = None

    def __post_init__(self) -> None:
        if self.style not in STYLES:
            raise ValueError(f"style must be one of {STYLES}, got {self.style!r}")
        self.random = random.Random(self.seed)
        self.last_requests: list[Request] = []  # what the last text meant to say

    def describe(self, target: Facets, current: Facets, all_values: Mapping[str, Sequence[str]],
                 opener: bool = True) -> str:
        if self.style == "learned":
            text = self._learned(target, current, all_values)
            return text if opener else text[:1].lower() + text[1:]
        if self.style == "realistic":
            return self._realistic(target, current, all_values, opener)
        diffs = differences(target, current)
        self.random.shuffle(diffs)
        phrases = []
        for facet in diffs[: self.max_facets]:
            value = target[facet]
            if self.noise and self.random.random() < self.noise:
                wrong = [v for v in all_values.get(facet, ()) if v != value]
                value = self.random.choice(wrong) if wrong else value
            phrase = None
            if self.comparative and self.random.random() < self.comparative:
                phrase = comparative_phrase(facet, value, current[facet])
            phrases.append(phrase or direct_phrase(facet, value))
        if not phrases:
            phrases = ["is the same but a little different"] if not target else [
                direct_phrase(f, v) for f, v in list(target.items())[:1]]
        text = join(phrases)
        if self.paraphrase:
            text = self.random.choice(PARAPHRASE_OPENERS) + text
        return text

    def _realistic(self, target: Facets, current: Facets,
                   all_values: Mapping[str, Sequence[str]], opener: bool) -> str:
        rng = self.random
        diffs = differences(target, current)
        rng.shuffle(diffs)
        count = min(self.max_facets, rng.choice((1, 1, 2, 2, 3)))
        phrases = []
        for facet in diffs[:count]:
            value = target[facet]
            if self.noise and rng.random() < self.noise:
                wrong = [v for v in all_values.get(facet, ()) if v != value]
                value = rng.choice(wrong) if wrong else value
            phrase = None
            way = direction(facet, value, current[facet])
            if way is not None and rng.random() < self.comparative:
                phrase = phrasing.compare(way[0], way[1], rng)
                if facet == "color" and rng.random() < 0.4:  # "is a darker navy"
                    phrase = f"is a {'lighter' if way[1] == 'more' else 'darker'} {value}"
            negatable = facet != "graphic" or value == "plain front"  # "no print" ≠ another
            if phrase is None and negatable and rng.random() < self.negation:
                negated = phrasing.negate(facet, current[facet], rng)
                if negated is not None:
                    said = phrasing.say(facet, value, rng)
                    phrase = negated if said is None or rng.random() < 0.5 else f"{said}, {negated}"
            if phrase is None:
                phrase = phrasing.say(facet, value, rng) or direct_phrase(facet, value)
            phrases.append(phrase)
        if not phrases:
            phrases = ["is almost the same but a little different"]
        if rng.random() < self.filler:
            phrases.append(rng.choice(phrasing.FILLERS).removeprefix("and "))
        text = phrases[0]
        for phrase in phrases[1:]:
            text += rng.choice(phrasing.CONNECTORS) + phrase
        if opener:
            text = rng.choice(phrasing.OPENERS) + text
        return phrasing.misspell(text, self.typo_rate, rng)

    def requests_for(self, target: Facets, current: Facets,
                     all_values: Mapping[str, Sequence[str]]) -> list[Request]:
        """What a person would ask for: up to three real differences, some compared, some
        negated, now and then a wrong value (``noise``)."""
        rng = self.random
        diffs = differences(target, current)
        rng.shuffle(diffs)
        count = min(self.max_facets, rng.choice((1, 1, 2, 2, 3)))
        out: list[Request] = []
        for facet in diffs[:count]:
            value = target[facet]
            if self.noise and rng.random() < self.noise:
                wrong = [v for v in all_values.get(facet, ()) if v != value]
                value = rng.choice(wrong) if wrong else value
            way = direction(facet, value, current[facet])
            if way is not None and rng.random() < self.comparative:
                out.append(Request(way[0], way[1]))  # type: ignore[arg-type]
                continue
            if facet != "graphic" and rng.random() < self.negation:
                out.append(Request(facet, "not", current[facet]))
                if rng.random() < 0.5:
                    continue
            out.append(Request(facet, "is", value))
        return list(dict.fromkeys(out))

    def _learned_requests(self, target: Facets, current: Facets,
                          all_values: Mapping[str, Sequence[str]]) -> list[Request]:
        """What to say, chosen as the captioner's people chose: as many requests per
        caption as they wrote (none now and then), facets as often as they named them,
        comparatives and negations as often as they used them for that facet.

        A comparative goes one way for a given pair, while the counts of naming or
        negating a value cover pairs of both ways; so naming and negating are weighed
        by the share of people's comparatives that went this pair's way ("darker" is 55 %
        of Fashion IQ's lightness comparatives, so a darker pair's colour is named
        against the darker count with 55 % of the colour-naming count)."""
        rng, model, kind = self.random, self.captioner, self.category
        wanted = model.how_many(rng, kind)
        diffs = differences(target, current)
        out: list[Request] = []
        while diffs and len(out) < wanted:
            weights = [self._facet_weight(f, target[f], current[f])
                       * self._value_weight(f, target[f], all_values) for f in diffs]
            if not any(weights):
                break
            facet = rng.choices(diffs, weights)[0]
            diffs.remove(facet)
            value = target[facet]
            if self.noise and rng.random() < self.noise:
                wrong = [v for v in all_values.get(facet, ()) if v != value]
                value = rng.choice(wrong) if wrong else value
            way = learned_direction(facet, value, current[facet])
            said = float(model.op_weight(facet, "is", kind))
            negated = float(model.op_weight(facet, "not", kind))
            compared = 0.0
            if way is not None:
                compared = model.op_weight(way[0], way[1], kind)
                other = "less" if way[1] == "more" else "more"
                both = compared + model.op_weight(way[0], other, kind)
                share = compared / both if both else 0.0
                said, negated = said * share, negated * share
            pick = rng.choices(("is", "cmp", "not"), (said + 1, compared, negated))[0]
            request: Request
            if pick == "cmp" and way is not None:
                request = Request(way[0], way[1])  # type: ignore[arg-type]
            elif pick == "not":
                request = Request(facet, "not", current[facet])
            else:
                request = Request(facet, "is", value)
            # a value nobody wrote and the reader cannot read ("regular length") would be
            # words said for nothing: compare instead where the pair goes one way, else
            # leave the facet unsaid
            if not _sayable(model, request) and way is not None:
                request = Request(way[0], way[1])  # type: ignore[arg-type]
            request = self._as_people_call_it(request, target[facet], current[facet])
            if _sayable(model, request):
                out.extend(self._both_colours(request, target))
        return list(dict.fromkeys(out))

    def _as_people_call_it(self, request: Request, target: str, current: str) -> Request:
        """``request``, or now and then the same value in another name people use for it
        (``ALSO_CALLED``: "has a logo" for a word on the chest), in proportion to how often
        people used each name; only where the other item's value has no such name, so the
        name still tells the two apart."""
        if request.op not in ("is", "not") or request.value is None:
            return request
        names = ALSO_CALLED.get((request.facet, request.value), ())
        other = current if request.op == "is" else target
        names = tuple(n for n in names if n not in ALSO_CALLED.get((request.facet, other), ()))
        counts = getattr(self.captioner, "value_counts", None)
        if not names or not counts:
            return request
        # a name shared by several values ("logo") counts for each in its share
        shares = [counts.get((request.facet, request.value), 0)] + [
            counts.get((request.facet, n), 0) / sum(
                n in also for (f, _), also in ALSO_CALLED.items() if f == request.facet)
            for n in names]
        pick = self.random.choices(range(len(shares)), shares)[0] if any(shares) else 0
        if pick == 0:
            return request
        renamed = Request(request.facet, request.op, names[pick - 1])
        return renamed if _sayable(self.captioner, renamed) else request

    def _both_colours(self, request: Request, target: Facets) -> list[Request]:
        """``request``, or for the colour of a target with a coloured print now and then
        both its colours, as people say them ("is black with white lettering", "is black
        and white"): the reader reads each colour of a garment as a colour request."""
        second = target.get(PRINT_COLOR)
        if (request.facet != "color" or request.op != "is" or not second
                or second == request.value or self.random.random() >= SECOND_COLOUR):
            return [request]
        if {request.value, second} == {"black", "white"}:
            both = Request("color", "is", "black and white")
            if _sayable(self.captioner, both):
                return [both]
        also = Request("color", "is", second)
        return [request, also] if _sayable(self.captioner, also) else [request]

    def _facet_weight(self, facet: str, value: str, current: str) -> float:
        """How often people named this facet (its comparatives included, both ways, as a
        change of colour may be said "lighter" or "darker"), times how much likelier than
        usual people were to name a change as visible as this one, where the captioner
        learned that and the pictures are known."""
        model, kind = self.captioner, self.category
        weight = sum(model.op_weight(facet, op, kind) for op in ("is", "not", "more", "less"))
        way = learned_direction(facet, value, current)
        if way is not None and way[0] != facet:
            weight += model.op_weight(way[0], "more", kind) + model.op_weight(way[0], "less", kind)
        salience = getattr(model, "salience", None)
        if salience is not None and self.visibility is not None:
            seen = self.visibility(facet, value, current)
            if seen is not None:
                return float(weight) * salience.weight(facet, seen)
        return float(weight)

    def _value_weight(self, facet: str, value: str,
                      all_values: Mapping[str, Sequence[str]]) -> float:
        """How much likelier than the facet's average value people were to name this one:
        Fashion IQ's annotators name black 38 times as often as beige, so a learned user
        names a black target's colour more readily than a beige one's, and what the users
        of a world with as many beige items as black ones say is spread over the values as
        people's captions are. ``all_values``: the values of the world (the runner's); 1
        where they or the captioner's counts are unknown."""
        counts = getattr(self.captioner, "value_counts", None)
        values = list(all_values.get(facet, ()))
        if not counts or value not in values or len(values) < 2:
            return 1.0
        seen = [counts.get((facet, v), 0) + 1 for v in values]  # +1: a value nobody named
        return len(values) * (counts.get((facet, value), 0) + 1) / sum(seen)

    def _look_from(self, position: int) -> None:
        """See the pictures of history[position] and the target (where the runner knows them)."""
        if self.visibility_at is not None:
            self.visibility = self.visibility_at(position)

    def _learned(self, target: Facets, current: Facets,
                 all_values: Mapping[str, Sequence[str]]) -> str:
        if self.captioner is None:
            from studio.language.captioner import shipped_captioner

            self.captioner = shipped_captioner()
        self.last_requests = self._learned_requests(target, current, all_values)
        text = self.captioner.say(self.last_requests, self.random)
        return phrasing.misspell(text, self.typo_rate, self.random)

    def turn(self, number: int, target: Facets, history: Sequence[Facets],
             all_values: Mapping[str, Sequence[str]]) -> str:
        """The text of turn ``number`` given the items carried forward so far."""
        self._look_from(len(history) - 1)
        return self.describe(target, history[-1], all_values)


@dataclass
class RetrospectiveUser(AttributeDifferenceUser):
    """Adds FashionMT-style rollback and combination turns from turn 3 on."""

    retrospect: float = 0.6  # chance that a turn from 3 on refers back when it can
    name: str = "retrospective"

    def turn(self, number: int, target: Facets, history: Sequence[Facets],
             all_values: Mapping[str, Sequence[str]]) -> str:
        # history[i] is the item carried forward from turn i (history[0]: the start image).
        current = history[-1]
        self._look_from(len(history) - 1)
        if number >= 3 and len(history) >= 3 and self.random.random() < self.retrospect:
            earlier = range(1, len(history) - 1)
            misses = {i: len(differences(target, history[i])) for i in earlier}
            best = min(misses, key=lambda i: (misses[i], -i), default=None)
            if best is not None and misses[best] < len(differences(target, current)):
                self._look_from(best)  # said against that earlier item
                rest = self.describe(target, history[best], all_values, opener=False)
                return phrase_turn(ParsedTurn(f"it {rest}", rollback_to=best))
            for i in earlier:
                kept = [f for f in differences(target, current) if history[i].get(f) == target[f]]
                if kept:
                    facet = self.random.choice(kept)
                    rest = self.describe(target, {**current, facet: target[facet]}, all_values,
                                         opener=False)
                    return phrase_turn(ParsedTurn(f"it {rest}", keeps=(Keep(facet, i),)))
        return self.describe(target, current, all_values)


@dataclass
class ChatAnswerer:
    """Answers a facet question with the target's value ("unknown" if it has none);
    realistic answers are worded as a person would ("it has no sleeves", "gray")."""

    name: str = "chat"
    style: str = "catalog"
    seed: int = 0
    typo_rate: float = 0.0
    captioner: Any = None  # learned: a PhraseCaptioner (None: the shipped one)

    def __post_init__(self) -> None:
        self.random = random.Random(self.seed)
        self.last_requests: list[Request] = []

    def answer(self, facet: str, target: Facets) -> str:
        value = target.get(facet)
        self.last_requests = [] if value is None else [Request(facet, "is", value)]
        if value is None:
            return "unknown" if self.style == "catalog" else "I can't tell"
        if self.style == "catalog":
            return value
        if self.style == "learned":
            if self.captioner is None:
                from studio.language.captioner import shipped_captioner

                self.captioner = shipped_captioner()
            said = self.captioner.say(self.last_requests, self.random)
            return phrasing.misspell(said, self.typo_rate, self.random)
        said = phrasing.say(facet, value, self.random) or value
        said = self.random.choice((f"it {said}", said, said.removeprefix("is ")))
        return phrasing.misspell(said, self.typo_rate, self.random)


def describe_target(target: Facets, category: str, rng: random.Random) -> str:
    """A chat session's opening description: the category and one facet of the target."""
    if not target:
        return f"a {category}"
    facet = rng.choice(sorted(target))
    return f"a {category} that {direct_phrase(facet, target[facet])}"
