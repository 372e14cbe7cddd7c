"""What a turn's requests mean for ranking: one constraint per facet.

The caption reader (``studio.language.reader``) turns a text into requests; a session
turns those into constraints on the gallery:

- ``is`` values: the item's facet value should be one of them ("red with white dots":
  red or white);
- ``not`` values: the item's value should not be one of them ("not striped");
- ``more``/``less``: relative to the turn's reference item (the *anchor*). Length, sleeve
  and fit compare positions on the ordinal scales below; lightness and colourfulness
  compare values measured from each image's pixels (``studio.image_measures``).

A later turn's constraint replaces an earlier one on the same facet (the strategies merge
dicts keyed by facet). ``describe`` writes them for the timeline: "length < turn 2's item,
colour ≠ red".
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from studio.language.reader import Request

# Ordinal scales, low to high: "more" means a higher position. Fit runs loosest to
# tightest, since the reading schema's fit/more is "tighter".
SCALES: dict[str, tuple[str, ...]] = {
    "length": (
        "cropped",
        "mini",
        "regular length",
        "tunic",
        "knee-length",
        "midi",
        "longline",
        "maxi",
        "ankle-length",
    ),
    "sleeve": (
        "strapless",
        "spaghetti strap",
        "sleeveless",
        "cap sleeve",
        "short sleeve",
        "elbow sleeve",
        "3/4 sleeve",
        "long sleeve",
    ),
    "fit": ("loose fit", "boxy", "regular fit", "tailored", "slim fit", "bodycon"),
}
MEASURED = ("lightness", "colorful")
# Measured values closer than this to the anchor count as "the same", not more or less.
MEASURE_MARGIN = {"lightness": 0.04, "colorful": 0.03}
_WORDS = {"color": "colour", "colorful": "colourfulness"}


@dataclass(frozen=True)
class Constraint:
    facet: str
    wanted: tuple[str, ...] = ()
    excluded: tuple[str, ...] = ()
    direction: str | None = None  # "more" | "less" relative to the anchor
    anchor: float | None = None  # the reference item's position or measure
    anchor_label: str = "the reference"

    @property
    def comparative(self) -> bool:
        return self.direction is not None

    def describe(self) -> str:
        word = _WORDS.get(self.facet, self.facet)
        if self.direction is not None:
            sign = ">" if self.direction == "more" else "<"
            note = "" if self.anchor is not None else " (unknown there)"
            return f"{word} {sign} {self.anchor_label}{note}"
        parts = []
        if self.wanted:
            parts.append(f"{word} = {' or '.join(self.wanted)}")
        if self.excluded:
            parts.append(f"{word} \u2260 {' or '.join(self.excluded)}")
        return ", ".join(parts)


def scale_position(facet: str, value: str | None) -> float | None:
    scale = SCALES.get(facet)
    if scale is None or value is None or value not in scale:
        return None
    return float(scale.index(value))


def constraints_from_requests(
    requests: Sequence[Request],
    reference_facets: Mapping[str, str],
    reference_measure: Callable[[str], float | None],
    anchor_label: str,
) -> dict[str, Constraint]:
    """One constraint per facet; ``is`` wins over a comparative on the same facet."""
    wanted: dict[str, list[str]] = {}
    excluded: dict[str, list[str]] = {}
    directions: dict[str, str] = {}
    for request in requests:
        if request.op == "is" and request.value is not None:
            wanted.setdefault(request.facet, []).append(request.value)
        elif request.op == "not" and request.value is not None:
            excluded.setdefault(request.facet, []).append(request.value)
        elif request.op in ("more", "less"):
            directions.setdefault(request.facet, request.op)
    out: dict[str, Constraint] = {}
    for facet in [*wanted, *excluded, *directions]:
        if facet in out:
            continue
        if facet in wanted or facet in excluded:
            out[facet] = Constraint(
                facet,
                tuple(wanted.get(facet, ())),
                tuple(v for v in excluded.get(facet, ()) if v not in wanted.get(facet, ())),
            )
            continue
        if facet in MEASURED:
            anchor = reference_measure(facet)
        else:
            anchor = scale_position(facet, reference_facets.get(facet))
        out[facet] = Constraint(
            facet, direction=directions[facet], anchor=anchor, anchor_label=anchor_label
        )
    return out


def describe(constraints: Mapping[str, Constraint | str]) -> str:
    """The constraints in force, for the timeline ("length < turn 2's item, colour = red")."""
    parts = []
    for facet, constraint in constraints.items():
        if isinstance(constraint, Constraint):
            parts.append(constraint.describe())
        else:
            parts.append(f"{_WORDS.get(facet, facet)} = {constraint}")
    return ", ".join(p for p in parts if p)
