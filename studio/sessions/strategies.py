"""Composition strategies: how a session's turns become one query.

Every strategy sees the same history (each turn's reference vector, modification text
vector and the facet values the text asks for) and returns a ``Query``: a unit vector to
search with and, optionally, facet constraints that re-rank the nearest candidates.

- ``text``: the last turn's text alone.
- ``image``: the current reference image alone.
- ``sum``: weighted image + text sum, the classic zero-shot composed-retrieval baseline.
- ``history`` (default): carries every turn forward. The vector adds the reference to all
  turns' texts (older turns decay but never vanish), and the constraints collect what each
  turn asked for, a later turn overriding an earlier one on the same facet (turn 4's "make
  it blue" replaces turn 1's "red"), combination turns contributing the kept facet of the
  named turn's image. So a request made in turn 1 is not forgotten in turn 4.
- ``combiner:NAME``: a Combiner trained on the project's triplets (``cir-studio train
  combiner``) composes the reference and the last text. ``history+combiner:NAME`` is the
  history-aware strategy with that combiner as its base composition (reference + the
  decayed sum of every turn's text), keeping its facet constraints.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from studio.errors import StudioError
from studio.sessions.constraints import MEASURE_MARGIN, Constraint, scale_position


@dataclass(frozen=True)
class TurnInput:
    """One turn as a strategy sees it (after rollback has chosen the reference)."""

    reference: np.ndarray | None
    text_vector: np.ndarray | None
    # facet -> what the text asks for: a value, or a Constraint (several values, excluded
    # values, or more/less than the reference)
    asked: Mapping[str, str | Constraint] = field(default_factory=dict)
    kept: Mapping[str, str] = field(default_factory=dict)  # facet -> value kept from a turn


@dataclass(frozen=True)
class Query:
    vector: np.ndarray
    constraints: Mapping[str, str | Constraint] = field(default_factory=dict)


def _unit(vector: np.ndarray) -> np.ndarray:
    norm = float(np.linalg.norm(vector))
    return (vector / norm).astype(np.float32) if norm > 0 else vector.astype(np.float32)


class Strategy:
    name = ""
    label = ""
    description = ""

    def compose(self, turns: Sequence[TurnInput]) -> Query:
        raise NotImplementedError


class TextOnly(Strategy):
    name, label = "text", "Text only"
    description = "The last turn's text alone; ignores the reference image."

    def compose(self, turns: Sequence[TurnInput]) -> Query:
        last = turns[-1]
        if last.text_vector is None:
            raise StudioError("The text-only strategy needs a modification text.")
        return Query(_unit(last.text_vector))


class ImageOnly(Strategy):
    name, label = "image", "Image only"
    description = "The current reference image alone; ignores the text."

    def compose(self, turns: Sequence[TurnInput]) -> Query:
        last = turns[-1]
        if last.reference is None:
            raise StudioError("The image-only strategy needs a reference image; chat sessions "
                              "have none.")
        return Query(_unit(last.reference))


class WeightedSum(Strategy):
    name, label = "sum", "Image + text sum"
    description = "w·image + (1−w)·text of the last turn, the classic zero-shot baseline."

    def __init__(self, image_weight: float = 0.5) -> None:
        if not 0.0 <= image_weight <= 1.0:
            raise StudioError("The image weight must lie between 0 and 1.")
        self.image_weight = image_weight

    def compose(self, turns: Sequence[TurnInput]) -> Query:
        last = turns[-1]
        parts = []
        if last.reference is not None:
            parts.append(self.image_weight * _unit(last.reference))
        if last.text_vector is not None:
            parts.append((1.0 - self.image_weight) * _unit(last.text_vector))
        if not parts:
            raise StudioError("A turn needs a reference image or a text.")
        return Query(_unit(np.sum(parts, axis=0)))


class Composer(Protocol):
    """A trained composition model: image and text features in, unit queries out."""

    @property
    def name(self) -> str: ...

    def compose(self, images: np.ndarray, texts: np.ndarray) -> np.ndarray: ...


class CombinerSource(Protocol):
    """Where ``combiner:NAME`` comes from: the combiners trained for the model in use."""

    def names(self) -> list[str]: ...

    def load(self, name: str) -> Composer: ...


def _base_vector(base: Composer | None, image_weight: float, reference: np.ndarray | None,
                 text: np.ndarray | None) -> np.ndarray:
    """Reference and text made one vector: by ``base`` when given and both exist, else summed."""
    if base is not None and reference is not None and text is not None:
        return base.compose(_unit(reference)[None, :], _unit(text)[None, :])[0]
    parts = []
    if reference is not None:
        parts.append(image_weight * _unit(reference))
    if text is not None:
        parts.append((1.0 - image_weight) * _unit(text))
    if not parts:
        raise StudioError("A turn needs a reference image or a text.")
    return _unit(np.sum(parts, axis=0))


class TrainedCombiner(Strategy):
    label = "Trained combiner"

    def __init__(self, combiner: Composer) -> None:
        self.combiner = combiner
        self.name = f"combiner:{combiner.name}"
        self.label = f"Combiner {combiner.name}"
        self.description = (f"The combiner '{combiner.name}' trained on this project's "
                            "triplets composes the reference and the last text (a turn "
                            "without a reference uses its text alone).")

    def compose(self, turns: Sequence[TurnInput]) -> Query:
        last = turns[-1]
        return Query(_base_vector(self.combiner, 0.0 if last.reference is None else 0.5,
                                  last.reference, last.text_vector))


class HistoryAware(Strategy):
    name, label = "history", "History-aware (default)"
    description = (
        "Reference + every turn's text (older turns decay), and facet constraints gathered "
        "from all turns, later turns overriding earlier ones; combination turns keep the "
        "named turn's facet."
    )

    def __init__(self, image_weight: float = 0.5, decay: float = 0.6,
                 base: Composer | None = None) -> None:
        self.image_weight = image_weight
        self.decay = decay
        self.base = base
        if base is not None:
            self.name = f"history+combiner:{base.name}"
            self.label = f"History-aware on combiner {base.name}"

    def compose(self, turns: Sequence[TurnInput]) -> Query:
        last = turns[-1]
        texts = [
            (self.decay ** (len(turns) - 1 - i)) * _unit(turn.text_vector)
            for i, turn in enumerate(turns)
            if turn.text_vector is not None
        ]
        text = _unit(np.sum(texts, axis=0)) if texts else None
        constraints: dict[str, str | Constraint] = {}
        for turn in turns:
            constraints.update(turn.kept)
            constraints.update(turn.asked)
        return Query(_base_vector(self.base, self.image_weight, last.reference, text),
                     constraints)


STRATEGIES: dict[str, type[Strategy]] = {
    cls.name: cls for cls in (HistoryAware, WeightedSum, TextOnly, ImageOnly)
}
DEFAULT_STRATEGY = HistoryAware.name


COMBINER_PREFIX = "combiner:"
HISTORY_ON = "history+"


def strategy_names(combiners: CombinerSource | None = None) -> list[str]:
    """Every strategy name that ``make_strategy`` accepts with ``combiners``."""
    trained = combiners.names() if combiners is not None else []
    return [*STRATEGIES, *(COMBINER_PREFIX + n for n in trained),
            *(f"{HISTORY_ON}{COMBINER_PREFIX}{n}" for n in trained)]


def with_base(strategy: str, base: str | None) -> str:
    """``--strategy history --base combiner:NAME`` as one strategy name."""
    if not base:
        return strategy
    if strategy != HistoryAware.name or not base.startswith(COMBINER_PREFIX):
        raise StudioError("--base takes combiner:NAME and only with the history strategy "
                          "(e.g. --strategy history --base combiner:mine).")
    return HISTORY_ON + base


def make_strategy(name: str, combiners: CombinerSource | None = None) -> Strategy:
    """The strategy called ``name``; ``combiner:NAME`` needs the project's ``combiners``."""
    if name in STRATEGIES:
        return STRATEGIES[name]()
    base_name = name[len(HISTORY_ON):] if name.startswith(HISTORY_ON) else name
    if base_name.startswith(COMBINER_PREFIX) and combiners is not None:
        trained = base_name[len(COMBINER_PREFIX):]
        if trained in combiners.names():
            combiner = combiners.load(trained)
            return HistoryAware(base=combiner) if base_name != name else TrainedCombiner(combiner)
    available = strategy_names(combiners)
    if combiners is None or len(available) == len(STRATEGIES):
        available.append("combiner:NAME (after 'cir-studio train combiner')")
    raise StudioError(
        f"Unsupported strategy '{name}'. The available strategies are: " + ", ".join(available)
    )


RERANK_WEIGHT = 0.15  # per facet constraint, added to (or taken from) a cosine score


@dataclass(frozen=True)
class CodedColumn:
    """A facet's labels as integer codes (-1 where unknown), for ``constraint_bonus``.

    Comparing integers instead of Python strings row by row is what keeps a keystroke's
    re-ranking of a 100,000-image gallery under a millisecond; the rule stays the same.
    """

    codes: np.ndarray
    lookup: Mapping[str, int]

    @classmethod
    def of(cls, labels: Sequence[str | None]) -> CodedColumn:
        lookup: dict[str, int] = {}
        codes = np.fromiter(
            (-1 if label is None else lookup.setdefault(label, len(lookup)) for label in labels),
            dtype=np.int32,
            count=len(labels),
        )
        return cls(codes, lookup)

    def __getitem__(self, rows: np.ndarray) -> CodedColumn:
        return CodedColumn(self.codes[rows], self.lookup)

    def known(self) -> np.ndarray:
        return self.codes >= 0

    def equals_any(self, values: Sequence[str]) -> np.ndarray:
        wanted = [self.lookup[v] for v in values if v in self.lookup]
        return np.isin(self.codes, wanted) if wanted else np.zeros(len(self.codes), dtype=bool)


def constraint_bonus(
    values: Mapping[str, np.ndarray | CodedColumn],
    constraints: Mapping[str, str | Constraint],
    weight: float = RERANK_WEIGHT,
) -> np.ndarray | float:
    """The re-ranking rule, once: +``weight`` per satisfied constraint, −``weight`` per
    contradicted one, nothing where the item's facet is unknown.

    ``values[facet]`` holds each item's value of that facet (``None`` if unknown, or a
    ``CodedColumn``), all aligned with the items being ranked. A plain string constraint wants that value.
    A ``Constraint`` wants one of its values and none of its excluded ones (with no wanted
    value, any known value other than the excluded ones satisfies it), or, when
    comparative, a value above (``more``) or below (``less``) its anchor: ``values`` then
    holds floats (the scale position or the measure, NaN if unknown), and an item within
    the facet's margin of the anchor counts as not satisfying it.
    """
    bonus: np.ndarray | float = 0.0
    for facet, wanted in constraints.items():
        column = values[facet]
        if isinstance(wanted, str):
            wanted = Constraint(facet, (wanted,))
        if wanted.direction is not None:
            if wanted.anchor is None:
                continue  # the reference's value is unknown: nothing to compare with
            numbers = np.asarray(column, dtype=np.float64)
            known = ~np.isnan(numbers)
            sign = 1.0 if wanted.direction == "more" else -1.0
            margin = MEASURE_MARGIN.get(facet, 0.0)
            with np.errstate(invalid="ignore"):
                match = known & (sign * (numbers - wanted.anchor) > margin)
            bonus = bonus + weight * match - weight * (known & ~match)
            continue
        known = (
            column.known() if isinstance(column, CodedColumn)
            else column != None  # noqa: E711 (element-wise on an object array)
        )
        if wanted.wanted:
            match = _equals_any(column, wanted.wanted)
            bonus = bonus + weight * match - weight * (known & ~match)
        if wanted.excluded:
            banned = _equals_any(column, wanted.excluded)
            if wanted.wanted:
                bonus = bonus - weight * banned
            else:
                bonus = bonus + weight * (known & ~banned) - weight * banned
    return bonus


def _equals_any(column: np.ndarray | CodedColumn, values: Sequence[str]) -> np.ndarray:
    if isinstance(column, CodedColumn):
        return column.equals_any(values)
    match = np.zeros(np.shape(column), dtype=bool)
    for value in values:
        match |= np.asarray(column == value, dtype=bool)
    return match


def rerank(
    ids: Sequence[str],
    scores: Sequence[float] | np.ndarray,
    facets_of: Mapping[str, Mapping[str, str]],
    constraints: Mapping[str, str | Constraint],
    weight: float = RERANK_WEIGHT,
) -> tuple[list[str], np.ndarray]:
    """Re-rank ids by ``constraint_bonus``; stable, so ties keep their retrieval order."""
    if not constraints:
        return list(ids), np.asarray(scores, dtype=np.float32)
    values = {
        facet: constraint_column(facet, constraint,
                                 [facets_of.get(i, {}).get(facet) for i in ids])
        for facet, constraint in constraints.items()
    }
    adjusted = np.asarray(scores, dtype=np.float64) + constraint_bonus(values, constraints, weight)
    order = np.argsort(-adjusted, kind="stable")
    return [ids[i] for i in order], adjusted[order].astype(np.float32)


def constraint_column(facet: str, constraint: str | Constraint,
                      labels: Sequence[str | None]) -> np.ndarray:
    """The column ``constraint_bonus`` compares: labels, or scale positions (NaN unknown)
    for a comparative constraint on an ordinal facet. Measured facets (lightness,
    colourfulness) have no labels; their columns come from ``studio.image_measures``."""
    if isinstance(constraint, Constraint) and constraint.direction is not None:
        positions = [scale_position(facet, label) for label in labels]
        return np.array([np.nan if p is None else p for p in positions], dtype=np.float64)
    return np.array(list(labels), dtype=object)
