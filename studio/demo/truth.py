"""The demo catalog's true attributes in the words of the starter vocabulary.

The demo (``studio.demo.catalog``) knows every garment's colour, pattern, sleeve,
neckline, length, fit and print; this maps each value to the starter attribute that names
it, so extraction and model suggestions on the demo can be scored against the truth.
"""

from __future__ import annotations

from pathlib import Path

from studio.demo.catalog import ATTRIBUTE_VALUES, CatalogItem, read_catalog

_NAMES: dict[str, dict[str, str]] = {
    "pattern": {
        "solid": "solid", "stripes": "striped", "dots": "polka dot",
        "floral": "floral", "plaid": "plaid",
    },
    "sleeve": {"sleeveless": "sleeveless", "short": "short sleeve", "long": "long sleeve"},
    "neckline": {"crew": "crew neck", "v-neck": "v-neck", "scoop": "scoop neck", "collar": "collar"},
    "length": {
        "mini": "mini", "knee": "knee-length", "midi": "midi", "maxi": "maxi",
        "cropped": "cropped", "regular": "regular length", "long": "longline",
    },
    "fit": {"slim": "slim fit", "regular": "regular fit", "loose": "loose fit"},
    "graphic": {"none": "plain front", "graphic": "graphic print", "text": "text print"},
}


def vocabulary_name(attribute: str, value: str) -> str:
    """The starter attribute for one catalog value (colours are named as they are)."""
    return value if attribute == "color" else _NAMES[attribute][value]


def all_demo_names() -> set[str]:
    return {
        vocabulary_name(attribute, value)
        for values in ATTRIBUTE_VALUES.values()
        for attribute, options in values.items()
        for value in options
    }


def item_truth(item: CatalogItem) -> set[str]:
    return {vocabulary_name(a, v) for a, v in item.attributes.items()}


def catalog_truth(root: Path) -> dict[str, set[str]]:
    """image id -> true starter attributes, from ``root/catalog.jsonl``."""
    return {item.id: item_truth(item) for item in read_catalog(root)}
