"""Simulated users mention only true differences, and refer back as FashionMT does."""

from __future__ import annotations

import re

import pytest

from studio.language.turns import parse_turn_text
from studio.simulation.users import (
    AttributeDifferenceUser,
    ChatAnswerer,
    RetrospectiveUser,
    comparative_phrase,
    differences,
)

VALUES = {
    "color": ["red", "blue", "black", "white", "navy"],
    "sleeve": ["sleeveless", "short sleeve", "long sleeve"],
    "length": ["mini", "knee-length", "midi", "maxi"],
    "pattern": ["solid", "striped", "floral"],
}
TARGET = {"color": "navy", "sleeve": "long sleeve", "length": "maxi", "pattern": "solid"}
CURRENT = {"color": "white", "sleeve": "short sleeve", "length": "maxi", "pattern": "floral"}


def mentioned_values(text: str) -> set[str]:
    return {v for values in VALUES.values() for v in values if re.search(rf"\b{v}\b", text)}


@pytest.mark.parametrize("seed", range(20))
def test_direct_texts_mention_only_true_differences(seed: int) -> None:
    user = AttributeDifferenceUser(seed=seed, max_facets=3)
    text = user.describe(TARGET, CURRENT, VALUES)
    true_new = {TARGET[f] for f in differences(TARGET, CURRENT)}
    assert mentioned_values(text) and mentioned_values(text) <= true_new


@pytest.mark.parametrize("seed", range(20))
def test_comparative_texts_point_the_right_way(seed: int) -> None:
    user = AttributeDifferenceUser(seed=seed, max_facets=3, comparative=1.0)
    text = user.describe(TARGET, CURRENT, VALUES)
    assert "lighter" not in text and "shorter" not in text  # navy is darker; longer sleeves
    assert mentioned_values(text) <= {TARGET[f] for f in differences(TARGET, CURRENT)}


def test_comparatives_by_hand() -> None:
    assert comparative_phrase("color", "navy", "white") == "is darker"
    assert comparative_phrase("length", "mini", "maxi") == "shorter"
    assert comparative_phrase("sleeve", "long sleeve", "sleeveless") == "has longer sleeves"
    assert comparative_phrase("pattern", "solid", "floral") is None


def test_noise_names_wrong_values_when_asked() -> None:
    user = AttributeDifferenceUser(seed=1, max_facets=3, noise=1.0)
    text = user.describe(TARGET, CURRENT, VALUES)
    assert not mentioned_values(text) & {TARGET[f] for f in differences(TARGET, CURRENT)}


def test_the_same_seed_writes_the_same_texts() -> None:
    first = [AttributeDifferenceUser(seed=4, comparative=0.5).describe(TARGET, CURRENT, VALUES)
             for _ in range(2)]
    assert first[0] == first[1]


def test_retrospective_user_rolls_back_to_a_closer_earlier_item() -> None:
    start = {"color": "red", "sleeve": "sleeveless", "length": "mini", "pattern": "floral"}
    good = {"color": "navy", "sleeve": "long sleeve", "length": "midi", "pattern": "solid"}
    worse = {"color": "red", "sleeve": "short sleeve", "length": "mini", "pattern": "floral"}
    user = RetrospectiveUser(seed=0, retrospect=1.0)
    text = user.turn(3, TARGET, [start, good, worse], VALUES)
    parsed = parse_turn_text(text)
    assert parsed.kind == "rollback" and parsed.rollback_to == 1
    assert "maxi" in parsed.text  # what still differs from the first turn's item


def test_retrospective_user_keeps_a_facet_an_earlier_item_had() -> None:
    start = {"color": "red", "sleeve": "sleeveless", "length": "mini", "pattern": "floral"}
    navy = {"color": "navy", "sleeve": "sleeveless", "length": "mini", "pattern": "striped"}
    now = {"color": "red", "sleeve": "long sleeve", "length": "mini", "pattern": "solid"}
    user = RetrospectiveUser(seed=0, retrospect=1.0)
    parsed = parse_turn_text(user.turn(3, TARGET, [start, navy, now], VALUES))
    assert parsed.kind == "combination"
    assert parsed.keeps[0].attribute == "color" and parsed.keeps[0].turn == 1


def test_chat_answerer_tells_the_targets_value() -> None:
    assert ChatAnswerer().answer("color", TARGET) == "navy"
    assert ChatAnswerer().answer("fit", TARGET) == "unknown"


def test_realistic_users_speak_relative_negated_and_misspelt_but_true() -> None:
    from studio.language.reader import read_caption
    from studio.simulation.users import preset

    texts = [AttributeDifferenceUser(seed=s, max_facets=3, style="realistic",
                                     **{**preset("realistic"), "typo_rate": 0.0, "noise": 0.0})
             .describe(TARGET, CURRENT, VALUES) for s in range(60)]
    requests = [r for t in texts for r in read_caption(t)]
    ops = {r.op for r in requests}
    assert {"more", "is", "not"} <= ops  # comparatives, values and negations all occur
    # Every reading agrees with the truth: navy is darker than white, the target's
    # sleeves are longer, and nothing negated is a value the target has.
    assert not any(r.facet == "lightness" and r.op == "more" for r in requests)
    assert not any(r.facet == "sleeve" and r.op == "less" for r in requests)
    assert not any(r.op == "not" and r.value in TARGET.values() for r in requests)
    assert len(set(texts)) > 40  # paraphrased, not one template


def test_realistic_typos_come_at_the_stated_rate() -> None:
    import random

    from studio.language.phrasing import misspell

    words = ["sleeves"] * 2000
    typed = misspell(" ".join(words), 0.1, random.Random(0)).split(" ")
    changed = sum(a != b for a, b in zip(words, typed, strict=True))
    assert 150 < changed < 250


def test_realistic_chat_answers_are_read_back_to_the_value() -> None:
    from studio.language.reader import read_caption

    answerer = ChatAnswerer(style="realistic", seed=3)
    for facet in ("sleeve", "pattern"):
        said = {r.value for s in range(10) for r in read_caption(answerer.answer(facet, TARGET))}
        assert TARGET[facet] in said


def test_an_unknown_user_style_is_one_clear_error() -> None:
    from studio.errors import StudioError
    from studio.simulation.runner import RunConfig

    with pytest.raises(StudioError,
                       match="available user styles are: catalog, realistic, learned"):
        RunConfig(users="robots")
    assert RunConfig().users == "learned" and RunConfig(users="catalog").label.endswith(
        "catalog users")
