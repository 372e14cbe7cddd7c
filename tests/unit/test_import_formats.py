"""One import list: every format is one declaration, and `cir-studio import NAME`, File →
Import and the manual's "Formats in" page are all generated from it."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from studio.cli.main import build_parser, main
from studio.errors import StudioError
from studio.exporters.registry import formats_markdown
from studio.importers.registry import import_format, import_formats

# Every flag each `import NAME` had before the list was one, and `transactions import`'s
# (less --format, which the name now says): scripts that use them keep working.
LEGACY_FLAGS = {
    "fashioniq": {"--images", "--skip-invalid", "--json", "--project", "--demo"},
    "cirr": {"--images", "--skip-invalid", "--json", "--project", "--demo"},
    "circo": {"--images", "--skip-invalid", "--json", "--project", "--demo"},
    "chatir": {"--images", "--skip-invalid", "--json", "--project", "--demo"},
    "folder": {"--metadata", "--skip-invalid", "--json", "--project", "--demo"},
    "hf": {"--json", "--project", "--demo"},
    "fashionpedia": {"--images", "--ontology", "--json", "--project", "--demo"},
    "fashionx": {"--images", "--ontology", "--json", "--project", "--demo"},
    "fashionmt": {"--dataset", "--skip-invalid", "--id-from", "--json", "--project", "--demo"},
    "fashioniq-mt": {"--dataset", "--skip-invalid", "--id-from", "--json", "--project",
                     "--demo"},
    "attributes": {"--json", "--project", "--demo"},
}


def import_parsers() -> dict[str, argparse.ArgumentParser]:
    top = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    command = top.choices["import"]
    kinds = next(a for a in command._actions if isinstance(a, argparse._SubParsersAction))
    return dict(kinds.choices)


def test_the_command_line_offers_every_declared_format(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["import", "--help"])
    shown = capsys.readouterr().out
    assert list(import_parsers()) == list(import_formats())
    assert len(import_formats()) >= 11
    for name in import_formats():
        assert f"    {name}" in shown


@pytest.mark.parametrize("name", sorted(LEGACY_FLAGS))
def test_every_earlier_flag_is_still_taken(name: str) -> None:
    flags = {flag for action in import_parsers()[name]._actions for flag in action.option_strings}
    assert LEGACY_FLAGS[name] <= flags


@pytest.mark.parametrize("name", list(import_formats()))
def test_each_declared_option_is_an_argument(name: str) -> None:
    parser = import_parsers()[name]
    by_dest = {action.dest: action for action in parser._actions}
    for option in import_format(name).options:
        action = by_dest[option.name]
        if option.flag is None:
            assert action.option_strings == []
        else:
            assert option.flag in action.option_strings
            assert action.default == option.default
            assert list(action.choices or ()) == list(option.choices)


def test_an_unknown_format_names_the_available_ones() -> None:
    with pytest.raises(StudioError, match="Unsupported import format 'coco'. The available "
                       "formats are: attributes, chatir"):
        import_format("coco")


def test_the_formats_page_lists_every_format_with_its_options() -> None:
    page = formats_markdown()
    assert page.startswith("# Formats in")
    for fmt in import_formats().values():
        assert f"`cir-studio import {fmt.name}`" in page
        for option in fmt.options:
            assert f"`{option.cli()}`" in page
    assert "`--id-from {stem,path}`: " in page and "(default: stem)" in page


FASHIONMT = [{"ref": "dress-00000", "tar1": "dress-00001", "mod1": "is beige"},
             {"ref": "shirt-00000", "tar1": "shirt-00001", "mod1": "has a collar"}]


def test_import_fashionmt_reads_transactions_as_transactions_import_does(
    demo_project_dir: Path, tmp_path: Path, capsys
) -> None:
    source = tmp_path / "looks.json"
    source.write_text(json.dumps(FASHIONMT), encoding="utf-8")
    project = str(demo_project_dir)
    assert main(["import", "fashionmt", str(source), "--project", project,
                 "--dataset", "looks"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("Imported 2 transactions into dataset 'looks' (0 already present")
    assert err == ""  # no progress bar: a quick check, then one write
    assert main(["import", "fashionmt", str(source), "--project", project, "--dataset", "looks",
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["already_present"] == 2
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"ref": "dress-00000"}]), encoding="utf-8")
    assert main(["import", "fashionmt", str(bad), "--project", project]) == 2
    assert "bad.json, entry 0, key 'tar1'" in capsys.readouterr().err


def test_import_attributes_merges_a_vocabulary(demo_project_dir: Path, tmp_path: Path,
                                               capsys) -> None:
    extra = tmp_path / "extra.json"
    extra.write_text(json.dumps([{"name": "mesh panel", "type": "part"}]), encoding="utf-8")
    assert main(["import", "attributes", str(extra), "--project", str(demo_project_dir)]) == 0
    assert capsys.readouterr().out.strip() == "Vocabulary: 1 attributes added, 0 updated."


def test_an_import_that_needs_an_existing_project_does_not_make_one(tmp_path: Path,
                                                                     capsys) -> None:
    source = tmp_path / "looks.json"
    source.write_text(json.dumps(FASHIONMT), encoding="utf-8")
    assert main(["import", "fashionmt", str(source), "--project", str(tmp_path / "new")]) == 2
    assert not (tmp_path / "new").exists()


def test_a_format_is_one_file_the_registry_finds(tmp_path: Path, monkeypatch) -> None:
    from studio.importers.registry import by_name, declared

    package = tmp_path / "more_formats"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "coco.py").write_text(
        "from studio.importers.registry import ImportFormat, Option, Outcome\n"
        "FORMAT = ImportFormat(name='coco', title='COCO captions', description='COCO',\n"
        "    options=(Option('file', 'file', 'the captions file'),),\n"
        "    read=lambda project, **options: options, outcome=lambda r: Outcome('done'))\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    [found] = by_name(declared("more_formats"), "import").values()
    assert found.name == "coco" and found.run(None, {"file": "c.json"})["file"] == "c.json"
