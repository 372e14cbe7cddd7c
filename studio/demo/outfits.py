"""Demo outfits: generated pictures of a figure wearing 2-4 garments, with their parts
drawn and every region, attribute and outfit value known (the ground truth is stored as
an imported annotation), so the Outfit view and the outfit exports have work offline.

Deterministic for a seed. Each picture draws a scene background (studio, street, beach,
park), a head, and either a dress or a top with pants/shorts/a skirt, shoes, sometimes a
hat or a bag; sleeves, a collar and pockets are drawn as parts of their garment. Colours
and patterns are the attributes; style, occasion and season follow from the garments.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path

from studio.hashing import file_digest
from studio.jobs import CancelToken, ProgressCallback, no_progress
from studio.outfits.ontology import load_ontology, seed_studio_ontology
from studio.outfits.records import PICTURE_CATEGORY, dumps
from studio.store import Project
from studio.store.database import utc_now
from studio.store.records import ImageRecord
from studio.store.repos import outfits as repo

WIDTH, HEIGHT = 320, 480
FOLDER = "outfits"
COLOURS = {
    "black": (30, 30, 34), "white": (236, 236, 232), "grey": (140, 140, 145),
    "red": (200, 40, 46), "orange": (236, 130, 40), "yellow": (240, 205, 60),
    "green": (60, 150, 80), "blue": (50, 100, 200), "navy": (30, 45, 95),
    "purple": (120, 60, 160), "pink": (236, 140, 180), "brown": (120, 80, 50),
    "beige": (215, 195, 160),
}
MATERIALS = {
    "dress": "silk", "shirt, blouse": "cotton", "top, t-shirt, sweatshirt": "cotton",
    "sweater": "wool", "pants": "denim", "shorts": "cotton", "skirt": "linen",
    "shoe": "leather", "bag, wallet": "leather", "hat": "wool",
}
SCENES = {
    "studio": (222, 222, 226), "street": (150, 150, 155), "beach": (236, 216, 160),
    "park": (140, 190, 120),
}


@dataclass
class Drawn:
    category: str
    role: str
    polygon: list[float]
    colour: str
    pattern: str
    parts: list[Drawn] = field(default_factory=list)
    attributes: list[tuple[str, str]] = field(default_factory=list)


def _rect(x: float, y: float, w: float, h: float) -> list[float]:
    return [x, y, x + w, y, x + w, y + h, x, y + h]


def _outfit(rng: random.Random) -> tuple[list[Drawn], dict[str, list[str]]]:
    """The garments of one picture and its outfit values."""
    colours = list(COLOURS)
    pattern = rng.choice(["plain (pattern)"] * 3 + ["stripe", "dot", "check"])
    garments: list[Drawn] = []
    dress = rng.random() < 0.3
    sleeve = rng.choice(["wrist-length", "short (length)"])
    arm = 120 if sleeve == "wrist-length" else 55
    if dress:
        body = Drawn("dress", "garment", [120, 95, 200, 95, 230, 330, 90, 330],
                     rng.choice(colours), pattern)
        body.attributes.append(("length", rng.choice(["knee (length)", "mini (length)"])))
    else:
        body = Drawn(rng.choice(["shirt, blouse", "top, t-shirt, sweatshirt", "sweater"]),
                     "garment", _rect(115, 95, 90, 120), rng.choice(colours), pattern)
        if body.category == "shirt, blouse":
            body.parts.append(Drawn("collar", "part", [135, 95, 160, 112, 185, 95, 160, 104],
                                    "white", "plain (pattern)"))
    body.parts += [
        Drawn("sleeve", "part", _rect(95, 100, 20, arm), body.colour, pattern,
              attributes=[("length", sleeve)]),
        Drawn("sleeve", "part", _rect(205, 100, 20, arm), body.colour, pattern,
              attributes=[("length", sleeve)]),
    ]
    garments.append(body)
    if not dress:
        kind = rng.choice(["pants", "pants", "shorts", "skirt"])
        height = {"pants": 200, "shorts": 80, "skirt": 110}[kind]
        bottom = Drawn(kind, "garment", _rect(118, 215, 84, height),
                       rng.choice(["blue", "navy", "black", "brown", "beige"]), "plain (pattern)")
        if kind != "skirt":
            bottom.parts.append(Drawn("pocket", "part", _rect(125, 230, 18, 22),
                                      bottom.colour, "plain (pattern)"))
        garments.append(bottom)
    shoe_colour = rng.choice(["black", "white", "brown"])
    for x in (122, 168):
        garments.append(Drawn("shoe", "garment", _rect(x, 420, 32, 18), shoe_colour,
                              "plain (pattern)"))
    if rng.random() < 0.3:
        garments.append(Drawn("hat", "garment", [125, 40, 195, 40, 210, 55, 110, 55],
                              rng.choice(colours), "plain (pattern)"))
    elif rng.random() < 0.3:
        garments.append(Drawn("bag, wallet", "garment", _rect(228, 200, 40, 34),
                              rng.choice(colours), "plain (pattern)"))
    scene = rng.choice(list(SCENES))
    if dress:
        style, occasion = rng.choice([("elegant", "party"), ("bohemian", "date")])
    elif garments[0].category == "shirt, blouse" and garments[1].category == "pants":
        style, occasion = "business", "work"
    elif garments[1].category == "shorts":
        style, occasion = "sporty", "sport"
    else:
        style, occasion = rng.choice([("casual", "everyday"), ("streetwear", "everyday")])
    season = "summer" if sleeve == "short (length)" or scene == "beach" else rng.choice(
        ["spring", "autumn", "winter"])
    return garments, {"style": [style], "occasion": [occasion], "season": [season],
                      "scene": [scene]}


def _draw(path: Path, garments: list[Drawn], scene: str) -> None:
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (WIDTH, HEIGHT), SCENES[scene])
    draw = ImageDraw.Draw(image)
    if scene == "street":
        draw.rectangle((0, 380, WIDTH, HEIGHT), fill=(90, 90, 95))
    draw.ellipse((135, 45, 185, 95), fill=(224, 188, 160))
    for garment in garments:
        for item in [garment, *garment.parts]:
            points = list(zip(item.polygon[0::2], item.polygon[1::2], strict=True))
            draw.polygon(points, fill=COLOURS[item.colour], outline=(20, 20, 20))
            xs, ys = item.polygon[0::2], item.polygon[1::2]
            box = (min(xs), min(ys), max(xs), max(ys))
            if item.pattern == "stripe":
                for y in range(int(box[1]) + 4, int(box[3]), 10):
                    draw.line((box[0] + 2, y, box[2] - 2, y), fill=(250, 250, 250), width=3)
            elif item.pattern == "dot":
                for y in range(int(box[1]) + 6, int(box[3]), 14):
                    for x in range(int(box[0]) + 6, int(box[2]), 14):
                        draw.ellipse((x, y, x + 4, y + 4), fill=(250, 250, 250))
            elif item.pattern == "check":
                for x in range(int(box[0]) + 6, int(box[2]), 12):
                    draw.line((x, box[1], x, box[3]), fill=(20, 20, 20), width=1)
                for y in range(int(box[1]) + 6, int(box[3]), 12):
                    draw.line((box[0], y, box[2], y), fill=(20, 20, 20), width=1)
    image.save(path, quality=90)


def add_demo_outfits(
    project: Project, folder: Path, count: int = 300, seed: int = 0, *,
    progress: ProgressCallback = no_progress, cancel: CancelToken | None = None,
) -> int:
    """Draw ``count`` outfit pictures into ``folder/outfits`` and store them with their
    ground truth (one audited change); returns how many pictures were added."""
    cancel = cancel or CancelToken()
    rng = random.Random(seed)
    target = Path(folder) / FOLDER
    target.mkdir(parents=True, exist_ok=True)
    drawn = []
    for index in range(count):
        cancel.raise_if_cancelled()
        garments, values = _outfit(rng)
        name = f"outfit-{index:05d}"
        _draw(target / f"{name}.jpg", garments, values["scene"][0])
        drawn.append((name, garments, values))
        progress(index + 1, count, "drawing outfits")
    images = [
        ImageRecord(id=name, path=f"{FOLDER}/{name}.jpg", category=PICTURE_CATEGORY, width=WIDTH,
                    height=HEIGHT, title=f"Outfit {index}", source="demo",
                    content_hash=file_digest(target / f"{name}.jpg"))
        for index, (name, _, _) in enumerate(drawn)
    ]
    with project.change("demo", "outfits.demo", "outfit_import", "demo") as record:
        project.add_images(images)
        seed_studio_ontology(project)
        ontology = load_ontology(project)
        now = utc_now()
        position = repo.next_picture_position(project)
        for name, garments, values in drawn:
            _store(project, ontology, name, garments, values, position, now)
            position += 1
        record["after"] = {"pictures": len(drawn)}
    return len(drawn)


def _store(project: Project, ontology, name: str, garments: list[Drawn],  # noqa: ANN001
           values: dict[str, list[str]], position: int, now: str) -> None:
    top = garments[0]
    repo.insert_picture(project, {
        "image_id": name,
        "general": f"A {values['style'][0]} outfit: "
        + ", ".join(f"{g.colour} {g.category.split(',')[0]}" for g in garments) + ".",
        "concise": f"{top.colour} {top.category.split(',')[0]}",
        "description_source": "imported", "dataset": "demo", "external_id": None,
        "raw": None, "position": position, "updated_at": now,
    })
    order = 0

    def label(table: str, owner: object, value_id: int, at: int) -> None:
        owner_key = "region_id" if table == "outfit_region_attributes" else "image_id"
        value_key = "attribute_id" if table == "outfit_region_attributes" else "value_id"
        repo.upsert_label(project, table, {
            owner_key: owner, value_key: value_id, "source": "imported", "model": "",
            "confidence": None, "status": "accepted", "author": "demo", "reviewer": "",
            "position": at, "updated_at": now,
        })

    def region(item: Drawn, garment_id: int | None) -> int:
        nonlocal order
        category = ontology.find("category", item.category)
        xs, ys = item.polygon[0::2], item.polygon[1::2]
        region_id = repo.insert_region(project, {
            "image_id": name, "garment_id": garment_id, "role": item.role,
            "category_id": category.id,
            "box": dumps([min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys)]),
            "polygon": dumps([item.polygon]), "rle": None, "source": "imported",
            "model": "", "confidence": None, "status": "accepted", "author": "demo",
            "reviewer": "", "external_id": None, "raw": None, "position": order,
            "updated_at": now,
        })
        order += 1
        words = [("color", item.colour), ("textile pattern", item.pattern), *item.attributes]
        for at, (supercategory, word) in enumerate(words):
            entry = ontology.find("attribute", word, supercategory)
            if entry is not None:
                label("outfit_region_attributes", region_id, entry.id, at)
        return region_id

    for garment in garments:
        material = MATERIALS.get(garment.category)
        if material and ("material", material) not in garment.attributes:
            garment.attributes.append(("material", material))
        garment_id = region(garment, None)
        for part in garment.parts:
            region(part, garment_id)
    at = 0
    for field_name, names in values.items():
        for value in names:
            entry = ontology.find("outfit", value, field_name)
            if entry is not None:
                label("outfit_attributes", name, entry.id, at)
                at += 1
