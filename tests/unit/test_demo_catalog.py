"""The demo catalog: deterministic, well-formed, readable back from its own text."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest
from PIL import Image

from studio.demo.catalog import (
    ATTRIBUTE_VALUES,
    CATEGORIES,
    TEXT_PHRASES,
    CatalogItem,
    generate_catalog,
    plan_catalog,
    read_catalog,
)
from studio.demo.garments import draw_garment
from studio.jobs import CancelToken, JobCancelled

N = 60
KEYS = ["id", "file", "category", "split", "title", "description", "attributes"]


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("demo")
    generate_catalog(root, N, seed=3, image_size=224, workers=2)
    return root


def mentioned(attribute: str, category: str, text: str) -> set[str]:
    """Values of ``attribute`` named in ``text`` by whole-word phrase search."""
    found = set()
    for value in ATTRIBUTE_VALUES[category][attribute]:
        for phrase in TEXT_PHRASES[attribute][value]:
            if re.search(rf"(?<![a-z]){re.escape(phrase)}(?![a-z])", text.lower()):
                found.add(value)
    return found


def test_same_seed_gives_identical_files_and_other_seed_differs(tmp_path: Path, generated: Path):
    again = tmp_path / "again"
    generate_catalog(again, N, seed=3, image_size=224, workers=1)  # serial vs parallel too
    assert (again / "catalog.jsonl").read_bytes() == (generated / "catalog.jsonl").read_bytes()
    for name in ("dress-00000.jpg", "shirt-00007.jpg", "toptee-00019.jpg"):
        assert (again / "images" / name).read_bytes() == (generated / "images" / name).read_bytes()
    assert plan_catalog(N, seed=4) != plan_catalog(N, seed=3)
    item = plan_catalog(N, seed=3)[0]
    assert draw_garment(item, 224, 4).tobytes() != draw_garment(item, 224, 3).tobytes()


def test_catalog_lines_are_complete_and_consistent(generated: Path):
    lines = (generated / "catalog.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == N
    rows = [json.loads(line) for line in lines]
    assert all(list(row) == KEYS for row in rows)
    ids = [row["id"] for row in rows]
    assert len(set(ids)) == N
    assert all(re.fullmatch(r"(dress|shirt|toptee)-\d{5}", i) for i in ids)
    assert all(row["file"] == f"images/{row['id']}.jpg" for row in rows)
    assert Counter(row["category"] for row in rows) == {c: N // 3 for c in CATEGORIES}
    items = read_catalog(generated)
    assert [it.to_json() for it in items] == rows


def test_splits_are_roughly_70_15_15_within_every_category():
    items = plan_catalog(600, seed=1)
    for category in CATEGORIES:
        counts = Counter(it.split for it in items if it.category == category)
        assert counts == {"train": 140, "val": 30, "test": 30}
    small = Counter(it.split for it in plan_catalog(N, seed=1))
    assert set(small) == {"train", "val", "test"}
    assert 0.6 < small["train"] / N < 0.8


def test_attributes_are_allowed_and_stated_in_the_text():
    for item in plan_catalog(300, seed=5):
        allowed = ATTRIBUTE_VALUES[item.category]
        assert set(item.attributes) == set(allowed)
        text = f"{item.title}. {item.description}"
        for name, value in item.attributes.items():
            assert value in allowed[name]
            assert mentioned(name, item.category, text) == {value}, (name, value, text)
            if value != "none":  # "none" is stated as "plain front"/"clean front"
                stem = value.removesuffix("s")  # "stripes" is also stated as "striped"
                assert stem in text.lower(), (value, text)


def test_shirts_are_never_sleeveless_and_dresses_have_no_graphic():
    items = plan_catalog(300, seed=2)
    assert all(it.attributes["sleeve"] != "sleeveless" for it in items if it.category == "shirt")
    assert all("graphic" not in it.attributes for it in items if it.category == "dress")


def test_images_are_decodable_rgb_and_at_least_224_pixels(generated: Path):
    for item in read_catalog(generated)[::7]:
        with Image.open(generated / item.file) as image:
            image.load()
            assert image.format == "JPEG"
            assert image.mode == "RGB"
            assert min(image.size) >= 224


def test_attributes_change_the_picture():
    """Two items differing only in colour (or length) must not look the same."""
    item = plan_catalog(3, seed=0)[0]
    other_color = "red" if item.attributes["color"] != "red" else "blue"
    recoloured = CatalogItem(
        **{**item.to_json(), "attributes": {**item.attributes, "color": other_color}}
    )
    assert draw_garment(item, 224, 0).tobytes() != draw_garment(recoloured, 224, 0).tobytes()


@pytest.mark.parametrize("workers", [1, 2])
def test_cancel_stops_the_job_and_writes_no_catalog(tmp_path: Path, workers: int):
    token = CancelToken()
    calls: list[int] = []

    def progress(done: int, total: int, message: str = "") -> None:
        calls.append(done)
        if done > 0:
            token.cancel()

    with pytest.raises(JobCancelled):
        generate_catalog(
            tmp_path, N, seed=0, image_size=224, progress=progress, cancel=token, workers=workers
        )
    assert not (tmp_path / "catalog.jsonl").exists()
    assert [p.name for p in tmp_path.iterdir()] == []  # the staging folder is gone too
    assert calls[-1] < N


def test_progress_reaches_the_total(tmp_path: Path):
    seen: list[tuple[int, int]] = []
    summary = generate_catalog(
        tmp_path,
        12,
        seed=0,
        image_size=224,
        progress=lambda d, t, m="": seen.append((d, t)),
        workers=1,
    )
    assert seen[0] == (0, 12) and seen[-1] == (12, 12)
    assert summary.count == 12 and sum(summary.per_split.values()) == 12
    assert summary.per_category == {"dress": 4, "shirt": 4, "toptee": 4}


def test_read_catalog_names_file_and_line_of_a_bad_entry(tmp_path: Path):
    good = json.dumps(plan_catalog(3, seed=0)[0].to_json())
    (tmp_path / "catalog.jsonl").write_text(f"{good}\n{{not json\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"catalog\.jsonl, line 2"):
        read_catalog(tmp_path)
    bad = json.loads(good)
    bad["attributes"]["color"] = "chartreuse"
    (tmp_path / "catalog.jsonl").write_text(f"{good}\n\n{json.dumps(bad)}\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"line 3: .*chartreuse"):
        read_catalog(tmp_path)


def test_the_catalog_file_follows_the_umask_like_the_pictures(tmp_path: Path) -> None:
    import os

    previous = os.umask(0o022)
    try:
        generate_catalog(tmp_path / "demo", 30, seed=1, image_size=224, workers=1)
    finally:
        os.umask(previous)
    catalog = tmp_path / "demo" / "catalog.jsonl"
    picture = next((tmp_path / "demo" / "images").iterdir())
    assert oct(catalog.stat().st_mode & 0o777) == oct(picture.stat().st_mode & 0o777) == "0o644"


def _nearest_colour_pixels(image: Image.Image, name: str) -> int:
    """How many pixels are nearer the demo colour ``name`` than any other demo colour."""
    import numpy as np

    from studio.demo.garments import COLOR_RGB

    names = list(COLOR_RGB)
    pixels = np.asarray(image.convert("RGB"), dtype=np.int64).reshape(-1, 1, 3)
    palette = np.array([COLOR_RGB[n] for n in names], dtype=np.int64).reshape(1, -1, 3)
    nearest = ((pixels - palette) ** 2).sum(axis=2).argmin(axis=1)  # first of equals, as min()
    return int((nearest == names.index(name)).sum())


def test_print_colours_name_the_colour_the_print_is_drawn_in():
    """A print's recorded colour ("navy with white dots", "black with white lettering")
    is what the print adds to the picture: the same garment drawn plain shows far less of
    it. Recording it leaves every picture as it was."""
    from studio.demo.garments import print_colours

    checked = Counter()
    for item in plan_catalog(90, seed=0):
        found = print_colours(item, 0)
        assert set(found) <= {"pattern", "graphic"}
        if "graphic" in found:
            assert item.attributes.get("graphic", "none") != "none"
        if "pattern" in found:
            assert item.attributes["pattern"] != "solid"
        for where, name in found.items():
            assert name != item.attributes["color"]
            if checked[where] >= 4 or (where == "graphic" and item.attributes["pattern"] != "solid"):
                continue
            plain = CatalogItem(**{**item.to_json(), "attributes": {
                **item.attributes, "pattern": "solid" if where == "pattern"
                else item.attributes["pattern"],
                **({"graphic": "none"} if where == "graphic" else {})}})
            printed = _nearest_colour_pixels(draw_garment(item, 224, 0), name)
            bare = _nearest_colour_pixels(draw_garment(plain, 224, 0), name)
            assert printed > bare + (600 if where == "pattern" else 30), (item.id, where, name)
            checked[where] += 1
    assert checked["pattern"] == 4 and checked["graphic"] == 4
