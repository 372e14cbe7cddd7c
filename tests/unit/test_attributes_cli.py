"""``cir-studio attributes …``: extract, export, import and clear errors."""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path

import pytest

from studio.attributes.query import all_labels
from studio.cli.main import main
from studio.store import Project


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_extract_then_export_and_import_labels(demo_project_dir: Path, tmp_path: Path,
                                               capsys) -> None:
    project = str(demo_project_dir)
    code, out, _ = run(capsys, "attributes", "extract", "--project", project, "--json",
                       "--user", "ana")
    summary = json.loads(out)
    assert code == 0 and summary["images"] == 60 and summary["added"] == summary["labels"] > 300
    code, out, _ = run(capsys, "attributes", "extract", "--project", project, "--json")
    assert json.loads(out)["added"] == 0  # idempotent

    code, out, _ = run(capsys, "attributes", "export", "--project", project)
    lines = [json.loads(line) for line in out.splitlines()]
    assert len(lines) == summary["labels"]
    assert set(lines[0]) == {"image_id", "attribute", "type", "source", "model", "confidence",
                             "status"}
    assert {(x["source"], x["confidence"], x["status"]) for x in lines} == {
        ("text", 1.0, "suggested")
    }

    labels_file = tmp_path / "labels.jsonl"
    code, _, _ = run(capsys, "attributes", "export", "--project", project, "--out",
                     str(labels_file))
    fresh = tmp_path / "fresh"
    shutil.copytree(demo_project_dir, fresh, ignore=shutil.ignore_patterns("*.cache"))
    with Project.open(fresh) as other:
        other.db.execute("DELETE FROM image_attributes")
    code, out, _ = run(capsys, "attributes", "import", "--project", str(fresh), str(labels_file))
    assert code == 0 and "rows changed" in out
    with Project.open(fresh) as other, Project.open(demo_project_dir) as original:
        assert [lb.to_json() for lb in all_labels(other)] == [
            lb.to_json() for lb in all_labels(original)
        ]
    code, out, _ = run(capsys, "attributes", "import", "--project", str(fresh), str(labels_file))
    assert "0 rows changed" in out  # twice: nothing new

    code, out, _ = run(capsys, "attributes", "export", "--project", project, "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert len(rows) == summary["labels"] and rows[0]["source"] == "text"


def test_vocabulary_export_and_import(demo_project_dir: Path, tmp_path: Path, capsys) -> None:
    project = str(demo_project_dir)
    run(capsys, "attributes", "extract", "--project", project)
    target = tmp_path / "vocabulary.csv"
    code, _, err = run(capsys, "attributes", "export", "--project", project, "--vocabulary",
                       "--out", str(target))
    assert code == 0 and "373 attributes" in err
    assert target.read_text(encoding="utf-8").startswith("name,type,synonyms\n")
    extra = tmp_path / "extra.json"
    extra.write_text(json.dumps([{"name": "mesh panel", "type": "part"}]), encoding="utf-8")
    code, out, _ = run(capsys, "attributes", "import", "--project", project, str(extra))
    assert code == 0 and "1 attributes added" in out


@pytest.mark.parametrize(
    ("content", "suffix", "message"),
    [
        ('[{"name": "navy", "type": "colour"}]', ".json", "entry 1 ('navy'): unknown type"),
        ('{"image_id": "nope", "attribute": "red"}\n', ".jsonl", "line 1: no image 'nope'"),
        ('{"image_id": "dress-00000", "attribute": "red", "status": "maybe"}\n', ".jsonl",
         "line 1: status 'maybe'"),
        ('{"image_id": "dress-00000", "attribute": "sparkle"}\n', ".jsonl",
         "'sparkle' is not in the vocabulary"),
    ],
)
def test_bad_imports_are_one_line_naming_file_and_entry(
    demo_project_dir: Path, tmp_path: Path, capsys, content: str, suffix: str, message: str
) -> None:
    run(capsys, "attributes", "extract", "--project", str(demo_project_dir))
    bad = tmp_path / f"bad{suffix}"
    bad.write_text(content, encoding="utf-8")
    code, _, err = run(capsys, "attributes", "import", "--project", str(demo_project_dir),
                       str(bad))
    assert code == 2
    assert err.startswith("cir-studio: error:") and err.count("\n") == 1
    assert str(bad) in err and message in err


def test_suggest_with_an_unknown_model_is_one_clear_line(demo_project_dir: Path, capsys) -> None:
    code, _, err = run(capsys, "attributes", "suggest", "--project", str(demo_project_dir),
                       "--model", "nonsense:thing")
    assert code == 2 and "Unsupported model backend 'nonsense'" in err
