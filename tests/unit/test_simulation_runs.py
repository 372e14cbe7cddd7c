"""Batch runs on the demo model: shared seeded dialogs, determinism, outputs, protocols."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from studio.cli.main import main
from studio.sessions.setup import load_session_context
from studio.simulation.runner import RunConfig, dialog_list, run_simulation
from studio.store import Project


@pytest.fixture
def context(indexed_demo_dir: Path):
    project = Project.open(indexed_demo_dir)
    yield load_session_context(project, "demo", "cpu")
    project.close()


def test_every_method_gets_the_same_seeded_dialogs(context) -> None:
    first = dialog_list(context, 8, seed=3, split=None)
    assert first == dialog_list(context, 8, seed=3, split=None)
    assert first != dialog_list(context, 8, seed=4, split=None)
    categories = {image.id: image.category for image in context.project.iter_images()}
    assert all(categories[t] == categories[s] and t != s for t, s in first)


def test_a_run_is_deterministic_and_reports_every_turn(context) -> None:
    config = RunConfig(strategy="history", simulator="retrospective", turns=4, n=6, split=None)
    one, two = run_simulation(context, config), run_simulation(context, config)
    assert one.ranks == two.ranks and one.texts == two.texts
    rows = one.summary()["per_turn"]
    assert [row["turn"] for row in rows] == [1, 2, 3, 4]
    assert set(rows[0]["recall_at"]) == {"1", "5", "10", "20", "50"}
    hits = [row["hits_at_10"]["value"] for row in rows]
    assert hits == sorted(hits)  # cumulative: never decreases


def test_chat_runs_start_at_round_zero(context) -> None:
    result = run_simulation(context, RunConfig(simulator="chat", turns=3, n=4, split=None))
    assert [row["turn"] for row in result.per_turn()] == [0, 1, 2, 3]
    assert all(text.startswith("a ") for text in (t[0] for t in result.texts))


def test_simulate_cli_writes_json_csv_png_and_stores_the_run(
    indexed_demo_dir: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out.json"
    code = main(["simulate", "--project", str(indexed_demo_dir), "--strategy", "sum",
                 "--turns", "2", "--n", "5", "--split", "all", "--seed", "0",
                 "--json", str(out), "--csv", str(tmp_path / "out.csv"),
                 "--png", str(tmp_path / "out.png")])
    assert code == 0
    data = json.loads(out.read_text())
    assert [row["turn"] for row in data["per_turn"]] == [1, 2]
    assert {"turn", "recall_at", "percentile", "hits_at_10", "mean_rank"} <= set(data["per_turn"][0])
    assert (tmp_path / "out.csv").read_text().startswith("label,turn,R@1")
    assert (tmp_path / "out.png").read_bytes()[:4] == b"\x89PNG"
    with Project.open(indexed_demo_dir) as project:
        assert project.db.execute("SELECT count(*) FROM experiment_runs").fetchone()[0] == 1
    assert main(["experiments", "plot", "--project", str(indexed_demo_dir),
                 str(tmp_path / "all.png")]) == 0


def test_unknown_simulator_is_one_clear_error(indexed_demo_dir: Path, capsys) -> None:
    assert main(["simulate", "--project", str(indexed_demo_dir), "--simulator", "oracle"]) == 2
    assert "Unsupported simulator 'oracle'" in capsys.readouterr().err


def test_fashioniq_protocol_on_captioned_pairs(context) -> None:
    from studio.captions.store import submit_caption
    from studio.simulation.protocols import evaluate_fashioniq
    from studio.store.database import utc_now

    project = context.project
    images = [image for image in project.iter_images() if image.category == "dress"]
    split = images[0].split
    images = [image for image in images if image.split == split]
    for number, (reference, target) in enumerate(zip(images[:4], images[4:8], strict=True)):
        cursor = project.db.execute(
            "INSERT INTO pairs (reference_id, target_id, category, split, method, source, "
            "external_key, created_at) VALUES (:id, :id_2, 'dress', :split, 'manual', 't', :number, :now)",
            {
                "id": reference.id,
                "id_2": target.id,
                "split": split,
                "number": str(number),
                "now": utc_now(),
            })
        colour = context.facets[target.id]["color"]
        submit_caption(project, int(cursor.lastrowid), "ana", f"is {colour}")
        submit_caption(project, int(cursor.lastrowid), "bo", "is different")
    report = evaluate_fashioniq(context, split, strategy="sum")
    dress = report["categories"]["dress"]
    assert dress["queries"] == 4 and dress["gallery"] == len(images)
    assert 0.0 <= dress["R@10"] <= dress["R@50"] == 100.0


def test_simulate_says_when_a_run_has_fewer_dialogs_than_asked(
    indexed_demo_dir: Path, capsys
) -> None:
    code = main(["simulate", "--project", str(indexed_demo_dir), "--turns", "1", "--n", "900",
                 "--split", "all"])
    assert code == 0
    out = capsys.readouterr().out
    ran = int(out.split(": ", 1)[1].split(" dialogs", 1)[0])
    assert ran < 900
    assert f"Ran {ran} dialogs, not 900" in out


@pytest.mark.slow
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
