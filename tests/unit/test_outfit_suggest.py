"""Zero-shot region suggestions: top k per region, reviewable, never over a decision."""

from __future__ import annotations

from pathlib import Path

from studio.demo.outfits import add_demo_outfits
from studio.outfits import editing
from studio.outfits.records import effective
from studio.outfits.store import load_outfits
from studio.outfits.suggest import review_suggestions, suggest_region_attributes
from studio.store import Project


def model_rows(project: Project) -> list:
    return [label for o in load_outfits(project) for labels in o.region_labels.values()
            for label in labels if label.source == "model"]


def test_suggestions_per_region_respect_decisions_and_rerun_cleanly(
    tmp_path: Path, demo_model
) -> None:
    with Project.create(tmp_path / "p", image_root=tmp_path) as project:
        add_demo_outfits(project, tmp_path, count=3, seed=1)
        outfit = load_outfits(project)[0]
        region = outfit.regions[0]
        held = {label.value_id for label in effective(outfit.region_labels[region.id])}
        summary = suggest_region_attributes(project, "bot", "demo", model=demo_model, top_k=4)
        regions = sum(len(o.regions) for o in load_outfits(project))
        assert summary["regions"] == regions
        rows = model_rows(project)
        assert rows and all(label.status == "suggested" for label in rows)
        mine = [label for label in rows if label.owner == region.id]
        assert len(mine) == 4 and not {label.value_id for label in mine} & held
        assert all(0.0 <= (label.confidence or 0) <= 1.0 for label in mine)
        # A person rejects one suggestion; a re-run keeps that decision and adds nothing on it.
        target = mine[0].value_id
        editing.review_label(project, "ana", editing.REGION_LABELS, region.id, target,
                             "rejected")
        suggest_region_attributes(project, "bot", "demo", model=demo_model, top_k=4)
        again = [label for label in model_rows(project) if label.owner == region.id]
        assert [label.status for label in again if label.value_id == target] == ["rejected"]
        assert len([label for label in again if label.status == "suggested"]) == 4
        # Bulk review: one attribute accepted on many regions at once.
        others = [label for label in model_rows(project)
                  if label.value_id == again[-1].value_id and label.status == "suggested"]
        assert review_suggestions(project, "ana", again[-1].value_id,
                                  [int(label.owner) for label in others], "accepted") >= 1
        assert project.audit_trail("outfits", again[-1].value_id)[-1]["actor"] == "ana"


def test_cli_bulk_review_decides_one_attribute_everywhere(tmp_path: Path, capsys) -> None:
    from studio.cli.main import main
    from studio.outfits.ontology import load_ontology
    from studio.store.repos import outfits as repo

    with Project.create(tmp_path / "p", image_root=tmp_path) as project:
        add_demo_outfits(project, tmp_path, count=2, seed=1)
        red = load_ontology(project).find("attribute", "red", "color")
        regions = [r["id"] for r in repo.region_rows(project)][:3]
        with project.writing("outfits"):
            for region_id in regions:
                repo.upsert_label(project, "outfit_region_attributes", {
                    "region_id": region_id, "attribute_id": red.id, "source": "model",
                    "model": "m", "confidence": 0.5, "status": "suggested", "author": "bot",
                    "reviewer": "", "position": 9, "updated_at": "2026-01-01",
                })
    assert main(["outfits", "review", "--project", str(tmp_path / "p"), "--attribute",
                 "red", "--reject"]) == 0
    assert "Rejected 'red' on 3 regions." in capsys.readouterr().out
    with Project.open(tmp_path / "p") as project:
        assert repo.undecided_suggestions(project, red.id, None) == []
