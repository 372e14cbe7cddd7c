"""The caption reader reads CAPTION_READING.md's own examples the way the page says."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from resources import resource_path
from studio.cli.main import main
from studio.language import lexicon
from studio.language.reader import CaptionReader, Request, read_caption


def reads(text: str) -> set[tuple[str, str, str | None]]:
    return {(r.facet, r.op, r.value) for r in read_caption(text)}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("is shorter", {("length", "less", None)}),
        ("has longer sleeves", {("sleeve", "more", None)}),
        ("is darker", {("lightness", "less", None)}),
        ("is tighter", {("fit", "more", None)}),
        ("more colorful", {("colorful", "more", None)}),
        ("is less colorful", {("colorful", "less", None)}),
        ("is looser", {("fit", "less", None)}),
        ("not striped", {("pattern", "not", "striped")}),
        ("without the flowers", {("pattern", "not", "floral")}),
        ("no logo", {("graphic", "not", "logo")}),
        ("isn't black", {("color", "not", "black")}),
        ("has no sleeves", {("sleeve", "is", "sleeveless")}),
        ("less red", set()),
        ("more red", {("color", "is", "red")}),
        ("black and white", {("color", "is", "black and white")}),
        (
            "red with white dots",
            {("color", "is", "red"), ("color", "is", "white"), ("pattern", "is", "polka dot")},
        ),
        ("a darker pink", {("color", "is", "pink"), ("lightness", "less", None)}),
        ("dark purple", {("color", "is", "purple")}),
        ("is dark", {("lightness", "less", None)}),
        ("navy blue", {("color", "is", "navy")}),
        ("floor length", {("length", "is", "maxi")}),
        ("a brighter logo", {("graphic", "is", "logo")}),
        ("tank top", {("sleeve", "is", "sleeveless")}),
        ("no straps and no sleeves", {("sleeve", "is", "strapless")}),
        ("doesn't have a collar", {("neckline", "not", "collar")}),
        ("round neck", {("neckline", "is", "crew neck")}),
        ("all black", {("color", "is", "black"), ("pattern", "is", "solid")}),
        ("is sexier and more elegant", set()),
        ("is gayer", set()),
        ("is no longer dotted", {("pattern", "not", "polka dot")}),
    ],
)
def test_reads_the_examples_of_the_reading_page(text: str, expected: set) -> None:
    assert reads(text) == expected


def test_typos_are_read_by_intent_but_real_words_are_left_alone() -> None:
    assert reads("is blak with strips") == {("color", "is", "black"), ("pattern", "is", "striped")}
    assert reads("has not sleeves") == {("sleeve", "is", "sleeveless")}
    assert reads("has an open back") == set()  # "back" is a word, not a misspelt "black"


def test_several_values_of_one_facet_are_all_kept() -> None:
    said = reads("black and white with red letters")
    assert {
        ("color", "is", "black and white"),
        ("color", "is", "red"),
        ("graphic", "is", "text print"),
    } == said


def test_every_value_the_lexicon_gives_is_a_facet_value() -> None:
    facets = json.loads(Path(resource_path("vocabulary", "facets.json")).read_text())["facets"]
    for facet, phrases in lexicon.ABSOLUTE.items():
        allowed = set(lexicon.COLOR_NAMES) if facet == "color" else set(facets[facet]["attributes"])
        assert set(phrases.values()) <= allowed, facet


def test_a_project_vocabulary_adds_its_own_spellings() -> None:
    reader = CaptionReader({"blood orange": ("color", "orange")})
    assert Request("color", "is", "orange") in reader.read("is blood orange")


def test_captions_read_prints_one_json_line_per_caption(
    capsys: pytest.CaptureFixture, tmp_path: Path
) -> None:
    lines = tmp_path / "captions.txt"
    lines.write_text("is shorter\nhas no logo\n", encoding="utf-8")
    assert main(["captions", "read", "--json", "--file", str(lines)]) == 0
    out = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert out == [
        {"text": "is shorter", "requests": [{"facet": "length", "op": "less", "value": None}]},
        {"text": "has no logo", "requests": [{"facet": "graphic", "op": "not", "value": "logo"}]},
    ]
    assert main(["captions", "read", "is tighter"]) == 0
    assert "more fit" in capsys.readouterr().out


def test_captions_read_without_input_is_one_clear_error(capsys: pytest.CaptureFixture) -> None:
    assert main(["captions", "read"]) == 2
    assert "Give at least one caption" in capsys.readouterr().err


def test_the_affirmative_text_drops_only_negated_phrases() -> None:
    from studio.language.reader import default_reader

    reader = default_reader()
    assert reader.affirmative_text("is blue, not red") == "is blue"
    assert reader.affirmative_text("has no sleeves") == "has no sleeves"  # = sleeveless
    assert reader.affirmative_text("is shorter") == "is shorter"
