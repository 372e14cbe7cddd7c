"""Rollback and combination are recognised in typed text, and not invented where absent."""

from __future__ import annotations

import pytest

from studio.language.turns import (
    FACET_WORDS,
    FACETS,
    Keep,
    ParsedTurn,
    keep_phrase,
    parse_turn_text,
    phrase_turn,
    resolve_turn,
    turn_reference,
)


@pytest.mark.parametrize(
    ("text", "turn", "rest"),
    [
        ("go back to turn 2", 2, ""),
        ("Go back to the second turn and make it red", 2, "make it red"),
        ("I still prefer the item from the second turn, and it has shorter sleeves",
         2, "it has shorter sleeves"),
        ("Compared to this one I prefer the one in the first turn but with longer sleeves",
         1, "with longer sleeves"),
        ("I would rather choose the third one", 3, ""),
        ("I would rather choose the item from the 2nd turn, in blue", 2, "in blue"),
        ("back to the previous one please", -1, "please"),
    ],
)
def test_rollback_templates_are_recognised(text: str, turn: int, rest: str) -> None:
    parsed = parse_turn_text(text)
    assert parsed.kind == "rollback"
    assert parsed.rollback_to == turn
    assert parsed.text == rest


def test_combination_collects_every_kept_attribute() -> None:
    parsed = parse_turn_text(
        "keep the colour of turn 1 and the neckline of the second turn, but shorter"
    )
    assert parsed.kind == "combination"
    assert parsed.keeps == (Keep("color", 1), Keep("neckline", 2))
    assert parsed.text == "shorter"


def test_fashionmt_keep_template() -> None:
    parsed = parse_turn_text("Keep the pattern in the first turn and make it sleeveless")
    assert parsed.keeps == (Keep("pattern", 1),)
    assert parsed.text == "make it sleeveless"


@pytest.mark.parametrize(
    "text",
    [
        "is red with longer sleeves",
        "I prefer blue",
        "has a second button on the collar",
        "make it like the previous one but longer",
        "keep the colour",
        "the first thing I want is stripes",
        "is back to basics with a turn-down collar",
    ],
)
def test_ordinary_captions_are_not_misread(text: str) -> None:
    parsed = parse_turn_text(text)
    assert parsed.kind == "composed"
    assert parsed.rollback_to is None and parsed.keeps == ()
    assert parsed.text == text


def test_previous_turn_resolves_relative_to_the_current_turn() -> None:
    assert resolve_turn(-1, current_turn=4) == 3
    assert resolve_turn(2, current_turn=4) == 2


TURNS = [*range(1, 13), -1]
TEXTS = ["", "is red with longer sleeves", "it is darker"]


@pytest.mark.parametrize("turn", TURNS)
@pytest.mark.parametrize("text", TEXTS)
def test_a_written_rollback_reads_back_as_itself(turn: int, text: str) -> None:
    written = ParsedTurn(text, rollback_to=turn)
    assert parse_turn_text(phrase_turn(written)) == written


@pytest.mark.parametrize("facet", FACETS)
@pytest.mark.parametrize("turn", TURNS)
def test_a_written_keep_reads_back_as_itself(facet: str, turn: int) -> None:
    for text in TEXTS:
        written = ParsedTurn(text, keeps=(Keep(facet, turn),))
        assert parse_turn_text(phrase_turn(written)) == written
        both = ParsedTurn(text, rollback_to=3, keeps=(Keep(facet, turn), Keep("color", 2)))
        assert parse_turn_text(phrase_turn(both)) == both


def test_the_phrases_read_as_a_shopper_writes() -> None:
    assert phrase_turn(ParsedTurn("is red", rollback_to=2)) == (
        "I still prefer the item from the second turn, and is red"
    )
    assert keep_phrase([Keep("color", 1), Keep("sleeve", -1)]) == (
        "keep the colour of the first turn and the sleeves of the previous turn"
    )
    assert turn_reference(14) == "turn 14"


def test_every_facet_word_names_its_facet() -> None:
    for word, facet in FACET_WORDS.items():
        assert parse_turn_text(f"keep the {word} of turn 1").keeps == (Keep(facet, 1),)
