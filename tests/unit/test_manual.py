"""The manual (docs/, mkdocs.yml) builds in strict mode, every top-level command has its
generated reference page, and every page of docs/ is in the nav."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from studio.cli.main import build_parser

ROOT = Path(__file__).resolve().parents[2]


def top_level_commands() -> list[str]:
    import argparse

    parser = build_parser()
    subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return list(subparsers.choices)


def nav_pages(nav) -> list[str]:
    pages: list[str] = []
    for entry in nav:
        target = next(iter(entry.values())) if isinstance(entry, dict) else entry
        pages += nav_pages(target) if isinstance(target, list) else [target]
    return pages


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(out)],
        cwd=ROOT, capture_output=True, text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert built.returncode == 0, built.stdout + built.stderr
    return out


def test_the_manual_builds_strictly_with_a_page_per_command(site: Path) -> None:
    commands = top_level_commands()
    assert len(commands) > 15  # the parser really was read
    missing = [name for name in commands if not (site / "cli" / f"{name}.html").is_file()]
    assert missing == []
    for name in commands:  # each page is that command's reference, with its subcommands
        page = (site / "cli" / f"{name}.html").read_text(encoding="utf-8")
        assert f"cir-studio {name}" in page
    assert (site / "cli" / "cir-studio.html").is_file()  # the options of cir-studio itself
    assert (site / "index.html").is_file()


def test_a_new_option_appears_in_the_reference_by_itself() -> None:
    sys.path.insert(0, str(ROOT / "docs" / "hooks"))
    try:
        import cli_reference
    finally:
        sys.path.remove(str(ROOT / "docs" / "hooks"))
    pages = cli_reference.command_pages()
    import argparse

    parser = build_parser()
    subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, command in subparsers.choices.items():
        page = pages[f"cli/{name}.md"]
        for action in command._actions:  # the command's own options, every one of them
            for option in action.option_strings:
                if option not in ("-h", "--help"):
                    assert f"`{option}" in page, (name, option)


def test_every_page_of_docs_is_in_the_nav() -> None:
    from mkdocs.config import load_config

    config = load_config(str(ROOT / "mkdocs.yml"))
    config = config.plugins.on_config(config)  # the hook adds the generated pages
    listed = set(nav_pages(config["nav"]))
    pages = {
        path.relative_to(ROOT / "docs").as_posix()
        for path in (ROOT / "docs").rglob("*.md")
    }
    assert sorted(pages - listed) == []
    assert {f"cli/{name}.md" for name in top_level_commands()} <= listed  # added by the hook


def test_the_readme_is_short_and_points_into_the_manual() -> None:
    """The README says what the studio is, how to run and test it and where the manual is;
    everything else lives in docs/. Its links lead to files that exist."""
    import re

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 150
    assert "python3 dev.py studio" in readme and "python3 dev.py test" in readme
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", readme)
    local = [link for link in links if not link.startswith("http")]
    assert "docs/index.md" in local
    assert [link for link in local if not (ROOT / link).exists()] == []
