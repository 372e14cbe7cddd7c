"""How a text becomes a search, once: the live caption rank and retrieval sessions share it.

A text is read into requests ("red", "not pink", "darker"), the requests become
constraints relative to the reference, and the encoder reads the affirmative text (without
"not pink": CLIP-like encoders read "not pink" much like "pink"). The strategy composes the
query vector; the gallery is scored by it and re-ranked by ``constraint_bonus``. If the
caption rank an annotator sees took another path than the sessions and evaluations, a
caption could look better to its author than it is to the retrieval it is written for.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from studio.language.reader import Request
from studio.sessions.constraints import MEASURED, Constraint, constraints_from_requests
from studio.sessions.strategies import constraint_column

if TYPE_CHECKING:
    from studio.image_measures import ImageMeasures


@dataclass(frozen=True)
class ReadText:
    """What one text asks for: its requests, their constraints and the encoder's words."""

    requests: list[Request]
    constraints: dict[str, Constraint]
    phrase: str  # what the text encoder reads


def read_text(
    text: str,
    read_requests: Callable[[str], list[Request]],
    encoder_text: Callable[[str], str] | None,
    reference_facets: Mapping[str, str],
    reference_measure: Callable[[str], float | None],
    anchor_label: str = "the reference",
    kept: Sequence[str] = (),
) -> ReadText:
    """Read ``text`` against the reference; ``kept`` values (a combination turn's) are
    said in words too, so the vector moves toward them."""
    requests = read_requests(text) if text else []
    constraints = constraints_from_requests(
        requests, reference_facets, reference_measure, anchor_label
    )
    affirmative = encoder_text(text) if text and encoder_text is not None else text
    phrase = ", ".join([affirmative, *kept]).strip(", ")
    return ReadText(requests, constraints, phrase)


def compared_column(
    facet: str,
    constraint: str | Constraint,
    names: Sequence[str | None],
    facets: Mapping[str, Mapping[str, str]],
    measures: ImageMeasures | None,
) -> np.ndarray:
    """The float column a comparative constraint ("darker", "longer") is checked against,
    for the images ``names``: a measure, or the label's place on its scale (NaN unknown)."""
    if facet in MEASURED:
        if measures is None:
            return np.full(len(names), np.nan)
        return measures.column(names, facet)
    labels = [facets.get(name or "", {}).get(facet) for name in names]
    return constraint_column(facet, constraint, labels)
