"""One export list: `cir-studio export NAME` and File → Export are generated from the
declarations in studio/exporters/formats/, with every earlier flag."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from studio.cli.main import build_parser, main
from studio.errors import StudioError
from studio.exporters.registry import export_format, export_formats, formats_markdown

LEGACY_FLAGS = {
    name: {"--source", "--json", "--project", "--demo"}
    for name in ("fashioniq", "cirr", "jsonl", "circo", "hf", "ranking", "cirr-submission",
                 "circo-submission")
}
LEGACY_FLAGS["ranking"] |= {"--model", "--device", "--k", "--strategy"}
LEGACY_FLAGS["cirr-submission"] |= {"--model", "--device", "--split"}
LEGACY_FLAGS["circo-submission"] |= {"--model", "--device", "--split", "--strategy"}
LEGACY_FLAGS["hf"] |= {"--annotations-only", "--split"}
LEGACY_FLAGS |= {name: {"--json", "--project", "--demo"}
                 for name in ("fashionpedia", "fashionx", "omnifashion")}
LEGACY_FLAGS["omnifashion"] |= {"--seed"}


def export_parsers() -> dict[str, argparse.ArgumentParser]:
    top = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    kinds = next(a for a in top.choices["export"]._actions
                 if isinstance(a, argparse._SubParsersAction))
    return dict(kinds.choices)


def test_the_command_line_offers_every_declared_export() -> None:
    assert list(export_parsers()) == list(export_formats())
    assert set(LEGACY_FLAGS) < set(export_formats())


@pytest.mark.parametrize("name", sorted(LEGACY_FLAGS))
def test_every_earlier_export_flag_is_still_taken(name: str) -> None:
    flags = {flag for action in export_parsers()[name]._actions for flag in action.option_strings}
    assert LEGACY_FLAGS[name] <= flags


def test_an_unknown_export_names_the_available_ones() -> None:
    with pytest.raises(StudioError, match="Unsupported export format 'csv'"):
        export_format("csv")


def test_the_formats_page_lists_every_export() -> None:
    page = formats_markdown()
    for name in export_formats():
        assert f"`cir-studio export {name}`" in page


def test_export_jsonl_says_what_it_wrote(demo_project_dir: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "pairs.jsonl"
    assert main(["export", "jsonl", str(out), "--project", str(demo_project_dir)]) == 0
    lines = capsys.readouterr().out.splitlines()
    written = out.read_text(encoding="utf-8").splitlines()
    assert lines[-1] == f"Written to {out}"
    assert lines[0].startswith(f"{len(written)} pairs with ")


def test_export_fashionmt_writes_back_what_import_fashionmt_read(
    demo_project_dir: Path, tmp_path: Path, capsys
) -> None:
    looks = [{"ref": "dress-00000", "tar1": "dress-00001", "mod1": "is beige"}]
    source = tmp_path / "looks.json"
    source.write_text(json.dumps(looks), encoding="utf-8")
    project = str(demo_project_dir)
    assert main(["import", "fashionmt", str(source), "--project", project]) == 0
    out = tmp_path / "out.json"
    assert main(["export", "fashionmt", str(out), "--project", project, "--dataset", "looks",
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[-1])["transactions"] == 1
    assert json.loads(out.read_text(encoding="utf-8")) == looks
