"""Multi-turn transactions: FashionMT / multi-turn Fashion IQ files, validation, builder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from studio.cli.main import main
from studio.errors import ValidationError
from studio.store import Project
from studio.transactions.builder import BuildOptions, build_and_save
from studio.transactions.importer import export_transactions, import_transactions
from studio.transactions.sources import from_session_turns
from studio.transactions.store import edit_turn, iter_transactions, save_transactions

FASHIONMT = [
    {"ref": "dress-00000", "tar1": "dress-00001", "tar2": "dress-00002", "tar3": "dress-00003",
     "mod1": "is beige with long sleeves", "mod2": "is yellow with stripes",
     "mod3": "I still prefer the item from the first turn, but it is shorter"},
    {"ref": "shirt-00000", "tar1": "shirt-00001", "tar2": "shirt-00002",
     "mod1": "has a collar", "mod2": "is loose",
     "cap0": "a white shirt", "cap1": "a collared shirt", "cap2": "a loose shirt"},
    {"ref": "toptee-00000", "tar1": "toptee-00001", "mod1": "is sleeveless"},
]


@pytest.fixture
def project(demo_project_dir: Path):
    with Project.open(demo_project_dir) as project:
        yield project


def write(path: Path, data: object) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def count(project: Project, table: str = "transactions") -> int:
    return int(project.db.execute(f"SELECT count(*) FROM {table}").fetchone()[0])


def test_fashionmt_round_trip_is_equal_in_content(project: Project, tmp_path: Path) -> None:
    source = write(tmp_path / "fashionmt_dress.json", FASHIONMT)
    report = import_transactions(project, source)
    assert (report.format, report.dataset, report.added) == ("fashionmt", "fashionmt_dress", 3)
    assert count(project, "transaction_turns") == 3 + 2 + 1
    exported = tmp_path / "out.json"
    assert export_transactions(project, exported) == 3
    assert json.loads(exported.read_text(encoding="utf-8")) == FASHIONMT


def test_turn_count_is_read_from_each_entry(project: Project, tmp_path: Path) -> None:
    import_transactions(project, write(tmp_path / "mt.json", FASHIONMT))
    by_ref = {t.image_ids[0]: t for t in iter_transactions(project)}
    assert [by_ref[r].n_turns for r in ("dress-00000", "shirt-00000", "toptee-00000")] == [3, 2, 1]
    shirt = by_ref["shirt-00000"]
    assert shirt.captions == ("a white shirt", "a collared shirt", "a loose shirt")
    assert shirt.category == "shirt"
    assert [t.reference_position for t in by_ref["dress-00000"].turns] == [0, 1, 2]


def test_multiturn_fashioniq_joins_caption_pairs(project: Project, tmp_path: Path) -> None:
    data = [{"id": "dress-chain-1", "candidate": "dress-00004",
             "targets": ["dress-00005", "dress-00006"],
             "captions": [["is red", "has longer sleeves"], "is shorter"]}]
    report = import_transactions(project, write(tmp_path / "fiq_mt.json", data))
    assert report.format == "fashioniq-mt"
    (transaction,) = iter_transactions(project)
    assert transaction.external_key == "dress-chain-1"
    assert [t.text for t in transaction.turns] == ["is red and has longer sleeves", "is shorter"]
    out = tmp_path / "as_fashionmt.json"
    export_transactions(project, out)
    assert json.loads(out.read_text()) == [{
        "ref": "dress-00004", "tar1": "dress-00005", "mod1": "is red and has longer sleeves",
        "tar2": "dress-00006", "mod2": "is shorter"}]


@pytest.mark.parametrize(("content", "expected"), [
    ("[{\"ref\": ", "is not valid JSON"),
    ("{\"ref\": \"dress-00000\"}", "top level must be a JSON list"),
])
def test_unreadable_files_name_the_file(project: Project, tmp_path: Path, content: str,
                                        expected: str) -> None:
    path = tmp_path / "broken.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ValidationError, match=expected) as info:
        import_transactions(project, path)
    assert "broken.json" in str(info.value)
    assert count(project) == 0


BAD_ENTRIES = [
    ("not an object", ["dress-00000"], None, "expected an object"),
    ("missing key", {"ref": "dress-00000", "tar1": "dress-00001", "tar2": "dress-00002",
                     "mod1": "is red"}, "mod2", "missing key"),
    ("wrong schema", {"ref": "dress-00000", "tar1": "dress-00001", "mod1": "x", "colour": "red"},
     "colour", "unknown key"),
    ("zero-based", {"ref": "dress-00000", "tar0": "dress-00001", "tar1": "dress-00002",
                    "mod1": "is red"}, "tar0", "unexpected key"),
    ("wrong type", {"ref": "dress-00000", "tar1": 7, "mod1": "is red"}, "tar1", "image id"),
    ("empty text", {"ref": "dress-00000", "tar1": "dress-00001", "mod1": "  "}, "mod1",
     "modification text"),
    ("unknown image", {"ref": "dress-00000", "tar1": "dress-99999", "mod1": "is red"}, "tar1",
     "unknown image id 'dress-99999'"),
    ("duplicate", FASHIONMT[0], None, "duplicate of entry 0"),
]


@pytest.mark.parametrize(("bad", "key", "message"), [b[1:] for b in BAD_ENTRIES],
                         ids=[b[0] for b in BAD_ENTRIES])
def test_a_bad_entry_is_named_and_nothing_is_written(
    project: Project, tmp_path: Path, bad: object, key: str | None, message: str
) -> None:
    path = write(tmp_path / "mixed.json", [FASHIONMT[0], FASHIONMT[2], bad])
    with pytest.raises(ValidationError) as info:
        import_transactions(project, path)
    text = str(info.value)
    assert "mixed.json, entry 2" in text and message in text
    if key is not None:
        assert f"key {key!r}" in text
    assert "nothing was imported" in text
    assert count(project) == 0


def test_skip_invalid_imports_the_good_entries_and_reports_the_rest(
    project: Project, tmp_path: Path
) -> None:
    bad = {"ref": "dress-00000", "tar1": "nope", "mod1": "is red"}
    path = write(tmp_path / "mixed.json", [FASHIONMT[0], bad, FASHIONMT[1]])
    report = import_transactions(project, path, skip_invalid=True)
    assert report.added == 2
    assert [p.entry for p in report.skipped] == [1]
    assert "unknown image id 'nope'" in str(report.skipped[0])
    assert count(project) == 2


def test_importing_twice_creates_no_duplicates(project: Project, tmp_path: Path) -> None:
    path = write(tmp_path / "mt.json", FASHIONMT)
    import_transactions(project, path)
    again = import_transactions(project, path)
    assert (again.added, again.already_present) == (0, 3)
    assert count(project) == 3 and count(project, "transaction_turns") == 6
    other = import_transactions(project, path, dataset="copy")
    assert other.added == 3  # the same content under another dataset name is another dataset


def test_session_turns_keep_rollbacks(project: Project) -> None:
    transaction = from_session_turns("sessions", "s1", [
        ("dress-00000", "is red", "dress-00001"),
        ("dress-00001", "is longer", "dress-00002"),
        ("dress-00001", "go back to turn 1 and make it blue", "dress-00003"),
    ])
    assert [t.reference_position for t in transaction.turns] == [0, 1, 1]
    assert transaction.origin == "session"
    ids, present = save_transactions(project, [transaction], "tester")
    assert len(ids) == 1 and present == 0
    (stored,) = iter_transactions(project, origin="session")
    assert (stored.image_ids, stored.turns) == (transaction.image_ids, transaction.turns)
    assert stored.category == "dress"  # taken from the reference image
    with pytest.raises(ValueError, match="none of the earlier images"):
        from_session_turns("sessions", "s2", [("dress-00000", "x", "dress-00001"),
                                              ("dress-00009", "y", "dress-00002")])


def test_builder_drafts_similar_images_of_one_category(project: Project) -> None:
    options = BuildOptions(count=6, turns=3, seed=1, retrospective_share=1.0)
    result, ids = build_and_save(project, options, "annotator")
    assert len(ids) == 6 and "catalog.jsonl" in result.attribute_source
    for transaction in iter_transactions(project, origin="built"):
        assert len(set(transaction.image_ids)) == 4
        categories = {project.image(i).category for i in transaction.image_ids}
        assert categories == {transaction.category}
        assert all(t.status == "draft" and t.text for t in transaction.turns)
        third = transaction.turns[2].text
        assert third.startswith(("I still prefer the item from", "keep the "))
    again, new_ids = build_and_save(project, options, "annotator")
    assert new_ids == [] and len(again.transactions) == 6


def test_a_drafted_turn_describes_the_real_difference(project: Project) -> None:
    from studio.transactions.attribute_data import load_attribute_data

    build_and_save(project, BuildOptions(count=3, turns=1, retrospective_share=0.0), "a")
    data = load_attribute_data(project)
    phrases = {"blue": "blue", "long": "long sleeves", "v-neck": "v-neck"}
    for transaction in iter_transactions(project):
        reference, target = transaction.image_ids
        text = transaction.turns[0].text
        for diff in data.differences(reference, target):
            if diff.new in phrases and diff.slot in ("color", "sleeve", "neckline"):
                assert phrases[diff.new] in text


def test_accepting_a_draft_is_an_audited_edit(project: Project) -> None:
    _, (tid, *_) = build_and_save(project, BuildOptions(count=1, turns=2), "annotator")
    edit_turn(project, tid, 1, "is blue with long sleeves", "Ana")
    (transaction,) = [t for t in iter_transactions(project) if t.id == tid]
    assert transaction.turns[0].text == "is blue with long sleeves"
    assert [t.status for t in transaction.turns] == ["accepted", "draft"]
    trail = project.audit_trail("transaction_turn", f"{tid}:1")
    assert trail[-1]["actor"] == "Ana" and "draft" in trail[-1]["before"]


def test_cli_import_export_build(demo_project_dir: Path, tmp_path: Path,
                                 capsys: pytest.CaptureFixture) -> None:
    source = write(tmp_path / "mt.json", FASHIONMT)
    project = str(demo_project_dir)
    assert main(["transactions", "import", "--project", project, str(source), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["added"] == 3
    out = tmp_path / "export.json"
    assert main(["transactions", "export", "--project", project, str(out)]) == 0
    assert capsys.readouterr().out.startswith("Wrote 3 transactions")
    assert json.loads(out.read_text()) == FASHIONMT
    assert main(["transactions", "build", "--project", project, "--count", "2", "--json"]) == 0
    built = json.loads(capsys.readouterr().out)
    assert built["added"] == 2 and len(built["transactions"][0]["turns"]) == 3
    assert main(["transactions", "list", "--project", project, "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {
        "built": {"transactions": 2, "turns": 6, "draft_turns": 6},
        "mt": {"transactions": 3, "turns": 6, "draft_turns": 0},
    }
    bad = write(tmp_path / "bad.json", [{"ref": "dress-00000"}])
    assert main(["transactions", "import", "--project", project, str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("cir-studio: error:") and "bad.json, entry 0, key 'tar1'" in err


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
