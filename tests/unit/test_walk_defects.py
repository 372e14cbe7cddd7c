"""Defects found walking through the studio as a new user (issue 18), the Qt-free ones."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from studio.cli.main import build_parser, main
from studio.store import Project


def all_parsers(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    found = [parser]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                found += all_parsers(sub)
    return found


def test_no_help_text_shows_a_doubled_percent_sign() -> None:
    """argparse %-formats help strings but prints descriptions as written: "95 %", not "95%%"."""
    doubled = [p.prog for p in all_parsers(build_parser()) if "%%" in p.format_help()]
    assert doubled == []


def test_simulate_help_says_95_percent(capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit):
        main(["simulate", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "95 % confidence intervals" in out


def test_a_refused_transaction_file_is_one_line_naming_file_and_entries(
    demo_project_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    bad = [{"ref": "dress-00000", "tar1": f"dress-9999{n}", "mod1": "is red"} for n in range(8)]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad), encoding="utf-8")
    code = main(["transactions", "import", str(path), "--project", str(demo_project_dir)])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("cir-studio: error: ")
    assert "bad.json, entry 0" in err and "unknown image id 'dress-99990'" in err
    assert "… and 3 more" in err and "--skip-invalid" in err
    with Project.open(demo_project_dir) as project:
        assert project.db.execute("SELECT count(*) FROM transactions").fetchone()[0] == 0


def _unordered_duplicates(project: Project) -> int:
    rows = project.db.execute("SELECT reference_id, target_id FROM pairs").fetchall()
    return len(rows) - len({frozenset(row) for row in rows})


def test_mining_pairs_two_images_once_unless_mirrors_are_asked_for(
    demo_project_dir: Path, tmp_path: Path
) -> None:
    import shutil

    from studio.pairs.mining import mine_pairs

    mirrored_copy = tmp_path / "mirrored"
    shutil.copytree(demo_project_dir, mirrored_copy)
    with Project.open(mirrored_copy) as project:
        mine_pairs(project, "tfidf", 60, mirrored=True)
        assert _unordered_duplicates(project) > 0  # the demo has look-alikes: A→B and B→A
    with Project.open(demo_project_dir) as project:
        report = mine_pairs(project, "tfidf", 60)
        assert report.added > 0
        assert _unordered_duplicates(project) == 0
        mine_pairs(project, "tfidf", 60)  # a second run adds no mirror of the first's pairs
        assert _unordered_duplicates(project) == 0


def test_pairs_mine_has_a_mirrored_flag(demo_project_dir: Path, capsys) -> None:
    assert main(["pairs", "mine", "--count", "60", "--mirrored", "--json",
                 "--project", str(demo_project_dir)]) == 0
    with Project.open(demo_project_dir) as project:
        assert _unordered_duplicates(project) > 0


def test_a_fresh_demo_has_attributes_and_simulate_runs_on_it(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    folder = tmp_path / "demo"
    assert main(["demo", "create", str(folder), "--images", "60", "--pairs", "0"]) == 0
    assert "attribute labels" in capsys.readouterr().out
    with Project.open(folder) as project:
        labelled = project.db.execute(
            "SELECT count(DISTINCT image_id) FROM image_attributes"
        ).fetchone()[0]
        assert labelled == 60
    code = main(["simulate", "--project", str(folder), "--n", "3", "--turns", "1"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "history/attribute: 3 dialogs" in out
