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
    assert (
        main(
            [
                "pairs",
                "mine",
                "--count",
                "60",
                "--mirrored",
                "--json",
                "--project",
                str(demo_project_dir),
            ]
        )
        == 0
    )
    with Project.open(demo_project_dir) as project:
        assert _unordered_duplicates(project) > 0


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


def _rated_project(folder: Path, items: int) -> None:
    """``items`` turns of one dataset rated done by one rater with spread-out scores."""
    from studio.quality.criteria import CRITERION_KEYS
    from studio.quality.ratings import next_item, save_scores, set_status
    from studio.quality.sampling import SampleOptions, create_sample
    from studio.transactions.records import Transaction, sequential_turns
    from studio.transactions.store import save_transactions

    with Project.open(folder) as project:
        save_transactions(
            project,
            [
                Transaction(
                    "mt",
                    f"k{n}",
                    (f"dress-{n:05d}", f"dress-{n + 1:05d}"),
                    sequential_turns(["is red"]),
                )
                for n in range(items)
            ],
            "lead",
        )
        create_sample(project, SampleOptions(raters=("Ana",), share=1.0, per_item=1), "lead")
        for n in range(items):
            item = next_item(project, "main", "Ana")
            score = 1 if n % 2 else 5  # as far apart as the scale allows
            save_scores(project, item.assignment_id, "Ana", dict.fromkeys(CRITERION_KEYS, score))
            set_status(project, item.assignment_id, "Ana", "done")


def test_report_intervals_stay_within_0_and_100_and_few_items_are_marked(
    demo_project_dir: Path,
) -> None:
    from studio.quality.report import build_report
    from studio.quality.report_export import table_rows

    _rated_project(demo_project_dir, 2)
    with Project.open(demo_project_dir) as project:
        report = build_report(project, indicators=False)
    cell = report.rows["mt"]["accuracy"]
    assert cell.items == 2 and not cell.reliable
    assert cell.low == 0.0 and cell.high == 100.0  # the raw t interval is far wider
    _, rows = table_rows(report)
    assert rows[0][1] == "50.0 % (0.0–100.0) †"
    assert any("fewer than 3 items" in note for note in report.notes)
    assert report.to_json()["datasets"]["mt"]["accuracy"]["reliable"] is False


def test_spearman_under_ten_items_shows_n_and_is_marked() -> None:
    from studio.quality.report_export import rho_text

    assert rho_text((0.5, 4)) == "+0.50 (n=4) †"
    assert rho_text((0.5, 12)) == "+0.50 (n=12)"
    assert rho_text((None, 2)) == "– (n=2)"


def test_chart_error_bars_stay_on_the_axes_and_the_legend_covers_no_bar(
    demo_project_dir: Path,
) -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.patches import Rectangle

    from studio.quality.chart import draw
    from studio.quality.report import build_report

    _rated_project(demo_project_dir, 2)
    with Project.open(demo_project_dir) as project:
        report = build_report(project, indicators=False)
    figure = Figure(figsize=(7.5, 4.0))
    canvas = FigureCanvasAgg(figure)
    draw(report, figure)
    canvas.draw()
    axes = figure.axes[0]
    renderer = canvas.get_renderer()
    for line in axes.lines + [
        c
        for coll in axes.containers
        for c in getattr(coll, "lines", ())
        if hasattr(c, "get_segments")
    ]:
        for y in getattr(line, "get_ydata", lambda: [])():
            assert 0.0 <= y <= 100.0
    segments = 0
    for container in axes.containers:
        errorbar = getattr(container, "errorbar", None)
        if errorbar is not None:
            for collection in errorbar.lines[2]:
                for segment in collection.get_segments():
                    segments += 1
                    assert all(0.0 <= y <= 100.0 for _, y in segment)
    assert segments > 0  # the chart drew error bars, so the check above looked at some
    legend = axes.get_legend().get_window_extent(renderer)
    bars = [p for p in axes.patches if isinstance(p, Rectangle)]
    assert bars
    assert not any(legend.overlaps(bar.get_window_extent(renderer)) for bar in bars)
    figure_box = figure.bbox
    assert figure_box.x0 <= legend.x0 and legend.x1 <= figure_box.x1  # not cut either


def test_dashboard_data_counts_what_people_did(demo_project_dir: Path) -> None:
    from datetime import date

    from studio.captions.records import CaptionPolicy
    from studio.captions.store import submit_caption, undo_save
    from studio.dashboard_data import dashboard_data
    from studio.demo.showcase import fill_showcase
    from studio.pairs.mining import mine_pairs

    with Project.open(demo_project_dir) as project:
        empty = dashboard_data(project)
        assert empty.captions_per_day == {} and empty.ratings == {}
        assert empty.labels_per_type == {}  # the test demo has no labels yet
        fill_showcase(project, captions=8)
        mine_pairs(project, "tfidf", 5)
        data = dashboard_data(project)
        today = date.today().isoformat()
        assert data.captions_per_day == {"Ana": {today: 4}, "Ben": {today: 4}}
        # a caption undone and submitted again counts once
        pair = project.db.execute("SELECT max(id) FROM pairs").fetchone()[0]
        caption, before = submit_caption(project, pair, "Ana", "is red", CaptionPolicy(2, True))
        undo_save(project, caption.id, "Ana", before)
        submit_caption(project, pair, "Ana", "is red", CaptionPolicy(2, True))
        assert dashboard_data(project).captions_per_day["Ana"][today] == 5
        labels = data.labels_per_type
        decided = sum(per["accepted"] + per["rejected"] for per in labels.values())
        assert (
            decided
            == project.db.execute(
                "SELECT count(DISTINCT image_id || ':' || attribute_id) FROM image_attributes "
                "WHERE status != 'suggested'"
            ).fetchone()[0]
            > 0
        )
        assert data.ratings == {"Ana": (8, 18), "Ben": (8, 18)}
        assert data.totals["captions"] == 8
