"""ChatIR: dialogue files import as recorded chat dialogs; ``evaluate chatir`` gives
cumulative Hits@10 per round per questioner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from studio.chatir.importer import import_chatir
from studio.chatir.protocol import round_texts
from studio.cli.main import main
from studio.demo.placeholders import draw_placeholders
from studio.errors import ValidationError
from studio.sessions.store import list_sessions, load_session
from studio.store import Project
from studio.store.galleries import gallery


def dialog(image: str, n: int) -> dict:
    rounds = [f"a photo number {n}"] + [f"is it item {n}? yes, round {r}" for r in range(1, 11)]
    return {"img": image, "dialog": rounds}


def write_chatir(root: Path, space: list[str], targets: list[str]) -> None:
    (root / "dialogues").mkdir(parents=True)
    (root / "ChatIR_Protocol").mkdir()
    for name in ("Human_BLIP2", "ChatGPT_BLIP2"):
        data = [dialog(t, n) for n, t in enumerate(targets)]
        (root / "dialogues" / f"{name}.json").write_text(json.dumps(data))
    (root / "ChatIR_Protocol" / "Search_Space_val_tiny.json").write_text(json.dumps(space))


def test_round_texts_join_the_dialog_so_far() -> None:
    texts = round_texts(["a dog", "is it big? yes", "is it black? no"], count=4)
    assert texts == [
        "a dog",
        "a dog, is it big? yes",
        "a dog, is it big? yes, is it black? no",
        "a dog, is it big? yes, is it black? no",
    ]


def test_dialogs_become_recorded_chat_sessions(tmp_path: Path) -> None:
    space = [f"unlabeled2017/{i:012d}.jpg" for i in range(8)]
    write_chatir(tmp_path / "chatir", space, space[:3])
    with Project.create(tmp_path / "p") as project:
        report = import_chatir(project, tmp_path / "chatir", tmp_path / "img")
        assert report.datasets == {"Human_BLIP2": 3, "ChatGPT_BLIP2": 3}
        assert report.search_spaces == {"val_tiny": 8} and len(report.missing_images) == 8
        assert gallery(project, "", "val_tiny") == space
        sessions = list_sessions(project)
        assert len(sessions) == 6 and {s["mode"] for s in sessions} == {"chat"}
        recorded = load_session(project, sessions[-1]["id"])
        assert recorded.target_id == space[0] and len(recorded.turns) == 11
        assert recorded.turns[0]["text"] == "a photo number 0"
        assert recorded.turns[0]["question"] is None
        assert (recorded.turns[1]["question"], recorded.turns[1]["answer"]) == (
            "is it item 0?",
            "yes, round 1",
        )
        again = import_chatir(project, tmp_path / "chatir", tmp_path / "img")
        assert (again.dialogs_added, again.images_added) == (0, 0)
        assert len(list_sessions(project)) == 6


def test_a_bad_dialogue_file_is_refused_naming_file_and_entry(tmp_path: Path) -> None:
    space = ["unlabeled2017/a.jpg"]
    write_chatir(tmp_path / "chatir", space, space)
    bad = [dialog("unlabeled2017/a.jpg", 0), {"img": "/abs/b.jpg", "dialog": "oops"}]
    (tmp_path / "chatir/dialogues/Human_BLIP2.json").write_text(json.dumps(bad))
    with Project.create(tmp_path / "p") as project:
        with pytest.raises(ValidationError) as error:
            import_chatir(project, tmp_path / "chatir")
        assert "dialogues/Human_BLIP2.json entry [1]" in str(error.value)
        assert project.table_counts()["retrieval_sessions"] == 0


def import_and_index(tmp_path: Path) -> Path:
    """Import ``tmp_path/chatir`` with images from ``tmp_path/img`` and build a demo index."""
    project = tmp_path / "p"
    chatir, images = str(tmp_path / "chatir"), str(tmp_path / "img")
    args = ["import", "chatir", chatir, "--project", str(project), "--images", images]
    assert main(args) == 0
    assert main(["index", "build", "--project", str(project), "--model", "demo"]) == 0
    return project


@pytest.fixture
def evaluated(tmp_path: Path) -> tuple[Path, Path]:
    space = [f"unlabeled2017/{i:012d}.jpg" for i in range(40)]
    draw_placeholders(tmp_path / "img", space[:36])  # four files missing, one of them a target
    write_chatir(tmp_path / "chatir", space, [space[0], space[5], space[9], space[38]])
    project = import_and_index(tmp_path)
    return project, tmp_path


def test_evaluate_chatir_gives_cumulative_hits_per_round_per_questioner(evaluated, capsys) -> None:
    project, folder = evaluated
    capsys.readouterr()
    out, png = folder / "chatir.json", folder / "chatir.png"
    assert (
        main(
            ["evaluate", "chatir", "--project", str(project), "--json", str(out), "--png", str(png)]
        )
        == 0
    )
    printed = capsys.readouterr().out
    report = json.loads(out.read_text())
    assert set(report) == {"datasets"}
    assert set(report["datasets"]) == {"Human_BLIP2", "ChatGPT_BLIP2"}
    for row in report["datasets"].values():
        assert row["dialogs"] == 3  # the target without an image file is left out
        hits = row["hits_at_10"]
        assert len(hits) == 11 and all(0 <= h <= 100 for h in hits)
        assert hits == sorted(hits)  # cumulative: a first hit is never taken back
    assert "1 dialogs left out" in printed and "search space 36 images" in printed
    assert png.read_bytes()[:4] == b"\x89PNG"
    with Project.open(project) as opened:
        kinds = [r[0] for r in opened.db.execute("SELECT kind FROM experiment_runs")]
    assert kinds == ["chatir", "chatir"]
    both = folder / "both.png"
    assert (
        main(
            [
                "experiments",
                "plot",
                "--project",
                str(project),
                str(both),
                "--runs",
                "1,2",
                "--csv",
                str(folder / "both.csv"),
            ]
        )
        == 0
    )
    assert both.read_bytes()[:4] == b"\x89PNG"
    assert (folder / "both.csv").read_text().count("ChatIR") == 2 * 11  # a row per round
    assert (
        main(
            [
                "evaluate",
                "chatir",
                "--project",
                str(project),
                "--dataset",
                "Human_BLIP2",
                "--json",
                str(out),
            ]
        )
        == 0
    )
    assert list(json.loads(out.read_text())["datasets"]) == ["Human_BLIP2"]
    assert main(["evaluate", "chatir", "--project", str(project), "--dataset", "Nope"]) == 2
    assert "no dataset 'Nope'" in capsys.readouterr().err


def test_a_search_space_of_ten_finds_every_target_at_round_zero(tmp_path: Path) -> None:
    space = [f"unlabeled2017/{i:012d}.jpg" for i in range(10)]
    draw_placeholders(tmp_path / "img", space)
    write_chatir(tmp_path / "chatir", space, space[:4])
    project = import_and_index(tmp_path)
    out = tmp_path / "r.json"
    assert main(["evaluate", "chatir", "--project", str(project), "--json", str(out)]) == 0
    datasets = json.loads(out.read_text())["datasets"]
    assert set(datasets) == {"Human_BLIP2", "ChatGPT_BLIP2"}
    for row in datasets.values():
        assert row["hits_at_10"] == [100.0] * 11


def test_the_real_dialogue_files_import(chatir_fixtures: Path, tmp_path: Path) -> None:
    with Project.create(tmp_path / "p") as project:
        report = import_chatir(project, chatir_fixtures, tmp_path / "none")
        assert report.datasets == {"Human_BLIP2": 150, "ChatGPT_BLIP2": 150}
        assert report.search_spaces == {"val_2k": 2000}
        assert report.targets_outside_search_space == 0 and report.problems == []
        lengths = {len(load_session(project, s["id"]).turns) for s in list_sessions(project)}
        assert lengths == {11}
