"""Which attributes extraction finds in product text, and which it must not."""

from __future__ import annotations

import pytest

from studio.attributes.matcher import AttributeMatcher
from studio.attributes.records import VocabularyEntry
from studio.attributes.vocabulary_io import starter_vocabulary
from studio.demo.catalog import plan_catalog
from studio.demo.truth import item_truth

VOCABULARY = [
    VocabularyEntry("floral", "texture", ("flower print", "à fleurs")),
    VocabularyEntry("polka dot", "texture", ("dotted",)),
    VocabularyEntry("v-neck", "part", ()),
    VocabularyEntry("sleeveless", "part", ("tank",)),
    VocabularyEntry("ruffles", "part", ("frill",)),
    VocabularyEntry("dress", "shape", ()),
    VocabularyEntry("pleat", "texture", ()),
    VocabularyEntry("plain front", "style", ()),
    VocabularyEntry("solid", "texture", ("plain",)),
    VocabularyEntry("red", "color", ()),
    VocabularyEntry("crêpe", "fabric", ()),
    VocabularyEntry("t-shirt", "shape", ()),
]


@pytest.fixture(scope="module")
def matcher() -> AttributeMatcher:
    return AttributeMatcher(VOCABULARY)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("A red dress", ["red", "dress"]),
        ("RED DRESS", ["red", "dress"]),  # any case
        ("Reddish tones", []),  # word boundary: not inside a longer word
        ("a tankini and a retank", []),
        ("Bored? No.", []),  # "red" inside "Bored"
        ("Floral, red.", ["floral", "red"]),  # punctuation is a boundary
        ("two dresses", ["dress"]),  # plural -es
        ("with pleats", ["pleat"]),  # plural -s of a singular entry
        ("one ruffle at the hem", ["ruffles"]),  # singular of a plural entry
        ("frills everywhere", ["ruffles"]),  # plural of a synonym
        ("a V-Neck top", ["v-neck"]),  # hyphen, case
        ("a v neck top", ["v-neck"]),  # space instead of hyphen
        ("a vneck top", ["v-neck"]),  # no separator
        ("Polka-Dot print", ["polka dot"]),
        ("polka dots all over", ["polka dot"]),  # multi-word, plural last word
        ("polka\u2011dot", ["polka dot"]),  # non-breaking hyphen
        ("Robe à fleurs", ["floral"]),  # accented multi-word synonym
        ("Robe A FLEURS", ["floral"]),  # accents dropped in the text
        ("Crepe blouse", ["crêpe"]),  # accents dropped in the text, kept in the vocabulary
        ("Kleid à fleursé", []),  # letters after an accented word keep the boundary
        ("a plain front tee", ["plain front"]),  # the longest spelling wins
        ("a plain tee", ["solid"]),
        ("a floral t-shirt", ["floral", "t-shirt"]),
        ("flower print and floral", ["floral"]),  # reported once
        ("", []),
    ],
)
def test_matching_rules(matcher: AttributeMatcher, text: str, expected: list[str]) -> None:
    assert matcher.find(text) == expected


def test_title_and_description_are_both_read(matcher: AttributeMatcher) -> None:
    assert matcher.find("Red Dress", "It is sleeveless with ruffles.") == [
        "red", "dress", "sleeveless", "ruffles"
    ]


def test_non_latin_scripts_keep_word_boundaries() -> None:
    matcher = AttributeMatcher([VocabularyEntry("платье", "shape", ()),
                                VocabularyEntry("κόκκινο", "color", ())])
    assert matcher.find("Красное ПЛАТЬЕ") == ["платье"]
    assert matcher.find("платьев") == []
    assert matcher.find("Κόκκινο φόρεμα") == ["κόκκινο"]


def test_an_empty_vocabulary_finds_nothing() -> None:
    assert AttributeMatcher([]).find("red dress") == []


def test_starter_vocabulary_reads_the_demo_catalog_exactly() -> None:
    """Every true attribute of 2,000 demo items is found in their text, and nothing else."""
    matcher = AttributeMatcher(starter_vocabulary())
    wrong = [
        (item.id, sorted(set(matcher.find(item.title, item.description)) ^ item_truth(item)))
        for item in plan_catalog(2000, seed=0)
        if set(matcher.find(item.title, item.description)) != item_truth(item)
    ]
    assert wrong == []


def test_one_regex_serves_the_whole_starter_vocabulary() -> None:
    matcher = AttributeMatcher(starter_vocabulary())
    assert matcher.regex is not None
    assert matcher.find("A navy blue, sleeveless maxi dress in organic cotton with a tie waist") \
        == ["navy", "sleeveless", "maxi", "organic cotton", "tie waist"]
