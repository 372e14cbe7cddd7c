"""The command line: help everywhere, clear one-line errors, no tracebacks."""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from studio import __version__
from studio.cli.main import build_parser, main

ROOT = Path(__file__).resolve().parents[2]


def all_command_paths(parser: argparse.ArgumentParser, prefix=()) -> list[tuple[str, ...]]:
    paths = [prefix]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                paths += all_command_paths(sub, (*prefix, name))
    return paths


@pytest.mark.parametrize("path", all_command_paths(build_parser()), ids=" ".join)
def test_every_command_has_help(path: tuple[str, ...], capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main([*path, "--help"])
    assert exit_info.value.code == 0
    assert "usage: cir-studio" in capsys.readouterr().out


def test_the_manual_explains_every_command() -> None:
    """Beyond its generated reference page (tests/unit/test_manual.py), every command is
    explained somewhere in the manual's own pages."""
    from studio.exporters.registry import formats_markdown

    # The Formats pages are generated from the format declarations (import and export).
    manual = "\n".join(
        page.read_text(encoding="utf-8") for page in sorted((ROOT / "docs").rglob("*.md"))
    ) + formats_markdown()
    missing = [
        " ".join(path)
        for path in all_command_paths(build_parser())
        if path and f"cir-studio {' '.join(path)}" not in manual
    ]
    assert missing == []


def test_version_is_the_package_version(capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit):
        main(["--version"])
    assert capsys.readouterr().out.strip() == f"cir-studio {__version__}"


def test_bad_arguments_exit_nonzero_with_usage(capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["demo", "create"])
    assert exit_info.value.code == 2
    assert "the following arguments are required: dir" in capsys.readouterr().err


def test_screenshots_need_smoke_test(capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit):
        main(["--screenshots", "x"])
    assert "--screenshots needs --smoke-test" in capsys.readouterr().err


def test_demo_create_into_a_non_empty_folder_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    (tmp_path / "keep.txt").write_text("mine")
    assert main(["demo", "create", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("cir-studio: error:") and "not empty" in err
    assert (tmp_path / "keep.txt").read_text() == "mine"


def test_demo_create_writes_a_project_and_reports_json(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    target = tmp_path / "demo"
    assert main(["demo", "create", str(target), "--images", "30", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["images"] == 30
    assert Path(summary["project"]).is_file()
    assert sum(summary["per_category"].values()) == 30
    from studio.store import Project

    with Project.open(Path(summary["project"])) as project:
        assert project.table_counts()["pairs"] == summary["pairs"] > 0  # ready to caption


def test_opening_a_missing_project_is_one_clean_line(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "studio", "--smoke-test", "--project", str(tmp_path / "nope")],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "does not exist" in result.stderr
    assert "Traceback" not in result.stderr


def _parser_at(path: tuple[str, ...]) -> argparse.ArgumentParser:
    parser = build_parser()
    for name in path:
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        parser = sub.choices[name]
    return parser


def test_every_command_that_takes_a_project_takes_demo() -> None:
    lacking = []
    for path in all_command_paths(build_parser()):
        options = {o for a in _parser_at(path)._actions for o in a.option_strings}
        if path and "--project" in options and "--demo" not in options:
            lacking.append(" ".join(path))
    assert lacking == []


@pytest.mark.parametrize(
    "argv",
    [
        ["--demo", "stats", "--json"],
        ["stats", "--demo", "--json"],
        ["attributes", "export", "--demo", "--vocabulary", "--out", "{tmp}/vocabulary.json"],
    ],
    ids=" ".join,
)
def test_demo_names_the_project_for_a_command(
    argv: list[str], demo_project_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    from studio.settings import demo_project_dir as demo_home

    shutil.copytree(demo_project_dir, demo_home())  # the demo already drawn, as after first use
    assert main([a.format(tmp=tmp_path) for a in argv]) == 0
    captured = capsys.readouterr()
    assert "--project" not in captured.err
    assert json.loads(captured.out or (tmp_path / "vocabulary.json").read_text())


@pytest.mark.parametrize(
    "argv",
    [["import", "fashioniq"], ["demo", "create"], ["stats", "--nope"], ["--nope"]],
    ids=" ".join,
)
def test_argument_errors_are_one_line(argv: list[str], capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    err = capsys.readouterr().err
    assert exit_info.value.code == 2
    assert err.count("\n") == 1 and err.startswith("cir-studio: error:"), err
    assert "usage:" not in err
    if len(argv) > 1 and not argv[1].startswith("-"):
        assert f"error: {argv[0]} {argv[1]}:" in err  # names the command it is about


def test_no_help_text_shows_a_doubled_percent_sign() -> None:
    """argparse %-formats help strings but prints descriptions as written: "95 %", not "95%%"."""
    parsers = [_parser_at(path) for path in all_command_paths(build_parser())]
    doubled = [p.prog for p in parsers if "%%" in p.format_help()]
    assert doubled == []


def test_simulate_help_says_95_percent(capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit):
        main(["simulate", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "95 % confidence intervals" in out
