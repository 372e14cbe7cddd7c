"""OmniFashion dialogue samples: every task family, common chat format, seeded."""

from __future__ import annotations

import json
import re
from pathlib import Path

from studio.cli.main import main
from studio.outfits import editing
from studio.outfits.fashionpedia import import_fashionpedia
from studio.outfits.omnifashion import TASKS, export_omnifashion
from studio.outfits.ontology import load_ontology
from studio.store import Project
from tests.outfit_samples import write_sample


def annotated_project(tmp_path: Path) -> Path:
    path = write_sample(tmp_path / "data")
    folder = tmp_path / "project"
    with Project.create(folder, image_root=tmp_path / "data" / "images") as project:
        import_fashionpedia(project, path, tmp_path / "data" / "images")
        ontology = load_ontology(project)

        def value(kind: str, name: str, supercategory: str) -> int:
            entry = ontology.find(kind, name, supercategory)
            assert entry is not None
            return entry.id

        for image_id, style, scene in (("a", "casual", "street"), ("b", "formal", "office")):
            editing.set_outfit_value(project, "ann", image_id, value("outfit", style, "style"))
            editing.set_outfit_value(project, "ann", image_id, value("outfit", scene, "scene"))
            editing.set_outfit_value(project, "ann", image_id,
                                     value("outfit", "summer", "season"))
            editing.set_descriptions(project, "ann", image_id, f"A {style} look.", style)
        shirt = next(r for r in project_regions(project) if r["external_id"] == 1)
        editing.set_region_attribute(project, "ann", shirt["id"], value("attribute", "blue",
                                                                         "color"))
        editing.set_region_attribute(project, "ann", shirt["id"], value("attribute", "denim",
                                                                         "material"))
    return folder


def project_regions(project: Project) -> list[dict]:
    from studio.store.repos import outfits as repo

    return repo.region_rows(project)


def test_every_task_family_is_written_in_the_chat_format(tmp_path: Path) -> None:
    folder = annotated_project(tmp_path)
    with Project.open(folder) as project:
        summary = export_omnifashion(project, tmp_path / "a.jsonl", seed=1)
        export_omnifashion(project, tmp_path / "b.jsonl", seed=1)
        export_omnifashion(project, tmp_path / "c.jsonl", seed=2)
    assert set(summary["tasks"]) == set(TASKS)
    assert all(summary["tasks"][task] > 0 for task in TASKS), summary["tasks"]
    lines = [json.loads(line) for line in (tmp_path / "a.jsonl").read_text().splitlines()]
    assert len(lines) == summary["samples"]
    for sample in lines:
        human, gpt = sample["conversations"]
        assert (human["from"], gpt["from"]) == ("human", "gpt")
        assert human["value"].count("<image>") == len(sample["images"]) >= 1
        assert gpt["value"].strip()
    colour = next(s for s in lines if s["task"] == "attribute_color")
    assert colour["images"] == ["a.jpg"] and "blue" in colour["conversations"][1]["value"]
    several = [s for s in lines if s["task"] in ("retrieval", "comparison")]
    assert all(len(s["images"]) >= 2 for s in several)
    # Same seed, same file; another seed words things differently.
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()
    assert (tmp_path / "a.jsonl").read_bytes() != (tmp_path / "c.jsonl").read_bytes()


def test_cli_prints_counts_per_task(tmp_path: Path, capsys) -> None:
    folder = annotated_project(tmp_path)
    assert main(["export", "omnifashion", "--project", str(folder), "--seed", "4",
                 str(tmp_path / "o.jsonl")]) == 0
    out = capsys.readouterr().out
    for task in TASKS:
        assert f"  {task}: " in out


def test_the_sentences_use_articles_numbers_and_adjectives_as_english_does(
    tmp_path: Path,
) -> None:
    """Pants are "a pair of pants", a stripe pattern is "striped", an appliqué is "an"."""
    from tests.outfit_samples import ATTRIBUTES, CATEGORIES, rect, small_document

    document = small_document()
    document["categories"] = [*CATEGORIES, {"id": 5, "name": "applique", "supercategory":
                                            "decorations", "level": 2, "taxonomy_id": "c5"}]
    document["attributes"] = [*ATTRIBUTES, {"id": 3, "name": "applique(a)", "supercategory":
                                            "textile finishing, manufacturing techniques",
                                            "level": 1, "taxonomy_id": "a3"}]
    document["annotations"][0]["attribute_ids"] = [0, 3]  # a striped shirt with an appliqué
    document["annotations"][2]["attribute_ids"] = [0]  # striped pants
    document["annotations"].append(
        {"id": 6, "image_id": 7, "category_id": 5, "attribute_ids": [],
         "segmentation": [rect(40, 30, 10, 10)], "area": 100.0, "bbox": [40, 30, 10, 10],
         "iscrowd": 0})
    path = write_sample(tmp_path / "data", document)
    texts: list[str] = []
    with Project.create(tmp_path / "p", image_root=tmp_path / "data" / "images") as project:
        import_fashionpedia(project, path, tmp_path / "data" / "images")
        for seed in range(12):
            export_omnifashion(project, tmp_path / f"s{seed}.jsonl", seed=seed)
            for line in (tmp_path / f"s{seed}.jsonl").read_text().splitlines():
                texts += [turn["value"] for turn in json.loads(line)["conversations"]]
    every = "\n".join(texts)
    for wrong in (r"\ba pants", r"\bis stripe\b", r"\ba applique", r"applique a\b",
                  r"\bthe pants (is|has|does)\b", r"\b(is|does) the pants\b"):
        assert not re.search(wrong, every, re.IGNORECASE), wrong
    assert "a pair of pants" in every and "an applique" in every and "striped" in every
