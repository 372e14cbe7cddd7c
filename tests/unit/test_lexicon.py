"""One lexicon: the reader, the review flags, the simulated users and the messages agree
on colours, negations and plurals, because they all take them from ``studio.language``."""

from __future__ import annotations

import random

import pytest

from studio.captions.flags import COLOUR_FAMILIES, text_flags
from studio.language import lexicon, phrasing
from studio.language.reader import Request, read_caption
from studio.simulation.users import LIGHTNESS, direct_phrase
from studio.wording import count

SAID_COLOURS = sorted(phrasing.SAYINGS["color"])


@pytest.mark.parametrize("colour", sorted({*SAID_COLOURS, *LIGHTNESS, *set().union(*COLOUR_FAMILIES)}))
def test_every_colour_the_studio_says_or_compares_is_one_the_reader_reads(colour: str) -> None:
    assert colour in lexicon.COLOR_NAMES
    assert Request("color", "is", colour) in read_caption(direct_phrase("color", colour))


@pytest.mark.parametrize("colour", SAID_COLOURS)
@pytest.mark.parametrize("template", phrasing.NEGATING)
def test_every_negation_a_simulated_user_says_is_read_as_not(template: str, colour: str) -> None:
    text = template.format(v=colour)
    assert Request("color", "not", colour) in read_caption(text), text


@pytest.mark.parametrize("negation", [n for n in lexicon.NEGATIONS if " " not in n])
def test_a_caption_the_reader_reads_as_a_negation_is_not_taken_for_the_reference(
    negation: str,
) -> None:
    """"never red" when the reference is red asks for something else, like "not red"."""
    text = f"{negation} red and longer"
    assert any(r.op == "not" for r in read_caption(text)) or negation in lexicon.LESS_WORDS
    flags = text_flags(f"{negation} red", reference_title="Red Floral Dress",
                       target_title="Blue Striped Dress")
    assert "reference_only" not in {flag.kind for flag in flags}


@pytest.mark.parametrize("value", ["long sleeve", "short sleeve", "cap sleeve", "elbow sleeve",
                                   "3/4 sleeve"])
def test_the_plural_a_simulated_user_says_is_the_one_the_reader_takes_back(value: str) -> None:
    """ "has long sleeves": the users' plural and the reader's singular are one rule."""
    assert read_caption(direct_phrase("sleeve", value)) == [Request("sleeve", "is", value)]
    last = value.split()[-1]
    assert lexicon.singular(lexicon.plural(last)) == last


@pytest.mark.parametrize(("word", "plural"), [
    ("caption", "captions"), ("entry", "entries"), ("match", "matches"), ("person", "people"),
    ("status", "statuses"), ("box", "boxes"), ("dress", "dresses"), ("day", "days"),
])
def test_messages_and_the_vocabulary_form_plurals_alike(word: str, plural: str) -> None:
    assert lexicon.plural(word) == plural
    assert count(2, word) == f"2 {plural}"


def test_pair_mining_and_the_flags_leave_out_the_same_filler_words() -> None:
    from studio.pairs.tfidf import title_words

    assert title_words("Women's One Shoulder Dress From Size 10") == ["shoulder", "dress", "10"]
    assert not set(title_words(" ".join(lexicon.STOP_WORDS)))


def test_the_simulated_users_phrasing_is_read_back_for_every_colour_they_say() -> None:
    rng = random.Random(0)
    for colour in SAID_COLOURS:
        negated = phrasing.negate("color", colour, rng)
        assert negated is not None
        assert Request("color", "not", colour) in read_caption(negated)
