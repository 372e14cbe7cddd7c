"""The quality report: percentages, t intervals, Krippendorff's alpha, indicators, exports."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from studio.cli.main import main
from studio.quality.criteria import CRITERION_KEYS, to_percent
from studio.quality.embedding_source import ArrayEmbedder
from studio.quality.indicators import compute_indicators, refers_back
from studio.quality.krippendorff import krippendorff_alpha
from studio.quality.ratings import next_item, save_scores, set_status
from studio.quality.report import build_report
from studio.quality.report_export import to_csv, to_markdown
from studio.quality.sampling import SampleOptions, create_sample
from studio.quality.stats import mean_ci, spearman, t_quantile
from studio.store import Project
from studio.transactions.attribute_data import AttributeData
from studio.transactions.records import Transaction, Turn, sequential_turns
from studio.transactions.store import save_transactions

N = None
# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", reliability data with
# four coders, twelve units and missing values; the paper reports these alphas.
KRIPPENDORFF_2011 = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, N, N, N],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, N, 3],
    [N, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, N],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, N],
]


def test_percentage_maps_one_to_zero_and_five_to_hundred() -> None:
    assert [to_percent(s) for s in (1, 2, 3, 4, 5)] == [0.0, 25.0, 50.0, 75.0, 100.0]


def test_t_quantiles_match_the_tables() -> None:
    assert t_quantile(0.975, 1) == pytest.approx(12.7062, abs=1e-4)
    assert t_quantile(0.975, 4) == pytest.approx(2.7764, abs=1e-4)
    assert t_quantile(0.975, 30) == pytest.approx(2.0423, abs=1e-4)
    assert t_quantile(0.975, 10**6) == pytest.approx(1.95996, abs=1e-4)
    assert t_quantile(0.025, 4) == pytest.approx(-2.7764, abs=1e-4)


def test_mean_ci_by_hand() -> None:
    # 1..5: mean 3, s = sqrt(2.5), half width = 2.7764 * sqrt(2.5) / sqrt(5) = 1.9632
    ci = mean_ci([1, 2, 3, 4, 5])
    assert (ci.mean, ci.n) == (3.0, 5)
    assert ci.low == pytest.approx(1.0368, abs=1e-4) and ci.high == pytest.approx(4.9632, abs=1e-4)
    single = mean_ci([4])
    assert (single.mean, single.low, single.high) == (4.0, None, None)


@pytest.mark.parametrize(("metric", "expected"),
                         [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849)])
def test_krippendorff_2011_example(metric: str, expected: float) -> None:
    assert krippendorff_alpha(KRIPPENDORFF_2011, metric) == pytest.approx(expected, abs=5e-4)


def test_krippendorff_binary_example_from_the_paper() -> None:
    data = [[0, 1, 0, 0, 0, 0, 0, 0, 1, 0], [1, 1, 1, 0, 0, 1, 0, 0, 0, 0]]
    assert krippendorff_alpha(data, "nominal") == pytest.approx(0.095, abs=5e-4)
    assert krippendorff_alpha(data, "ordinal") == pytest.approx(0.095, abs=5e-4)  # two values


def test_krippendorff_small_cases_by_hand() -> None:
    # Coincidences o11 = o22 = o12 = o21 = 2, n1 = n2 = 4, n = 8:
    # alpha = 1 - (n - 1) * (o12 + o21) / (2 * n1 * n2) = 1 - 7 * 4 / 32 = 0.125.
    assert krippendorff_alpha([[1, 1, 2, 2], [1, 2, 1, 2]], "nominal") == pytest.approx(0.125)
    assert krippendorff_alpha([[1, 2, 3], [1, 2, 3]], "ordinal") == 1.0
    # Units (1,1), (2,3), (3,3): n1 = 2, n2 = 1, n3 = 3, n = 6; o23 = o32 = 1.
    # Ordinal d(c,k) = (sum of n_g from c to k - (n_c + n_k) / 2)^2:
    # d12 = (3 - 1.5)^2 = 2.25, d13 = (6 - 2.5)^2 = 12.25, d23 = (4 - 2)^2 = 4.
    # D_o = o23*d23 + o32*d32 = 8; D_e = 2 * (2*1*2.25 + 2*3*12.25 + 1*3*4) / (n - 1) = 36.
    data = [[1, 2, 3], [1, 3, 3]]
    assert krippendorff_alpha(data, "ordinal") == pytest.approx(1 - 8 / 36)
    assert math.isnan(krippendorff_alpha([[3, 3], [3, 3]], "ordinal"))  # no variation at all
    assert math.isnan(krippendorff_alpha([[1, N], [N, 2]], "ordinal"))  # nothing pairable


def test_spearman_by_hand() -> None:
    assert spearman([1, 2, 3, 4], [1, 3, 2, 4]) == pytest.approx(0.8)
    assert spearman([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)
    assert spearman([1, 1, 2, 2], [1, 2, 3, 4]) == pytest.approx(0.8944, abs=1e-4)
    assert spearman([1, 2], [1, 2]) is None and spearman([1, 1, 1], [1, 2, 3]) is None


# -- a rated project ---------------------------------------------------------------------

SCORES = {  # rater -> score given on every criterion, per dataset
    "Ana": {"good": 5, "poor": 2},
    "Ben": {"good": 4, "poor": 1},
}


def rated_project(project: Project) -> None:
    good = [Transaction("good", f"g{n}", (f"dress-{n:05d}", f"dress-{n + 1:05d}"),
                        sequential_turns(["is blue with long sleeves"])) for n in range(10)]
    poor = [Transaction("poor", f"p{n}", (f"shirt-{n:05d}", f"shirt-{n + 1:05d}"),
                        sequential_turns(["different"])) for n in range(10)]
    save_transactions(project, good + poor, "lead")
    create_sample(project, SampleOptions(raters=("Ana", "Ben"), share=1.0), "lead")
    datasets = dict(project.db.execute("SELECT id, dataset FROM transactions").fetchall())
    for rater, per_dataset in SCORES.items():
        while (item := next_item(project, "main", rater)) is not None:
            tid = project.db.execute("SELECT transaction_id FROM rating_assignments WHERE id = :assignment_id",
                                     {"assignment_id": item.assignment_id}).fetchone()[0]
            score = per_dataset[datasets[tid]]
            save_scores(project, item.assignment_id, rater, dict.fromkeys(CRITERION_KEYS, score))
            set_status(project, item.assignment_id, rater, "done")


@pytest.fixture
def project(demo_project_dir: Path):
    with Project.open(demo_project_dir) as project:
        rated_project(project)
        yield project


def test_report_percentages_intervals_and_counts(project: Project) -> None:
    report = build_report(project)
    assert list(report.rows) == ["good", "poor"]
    good = report.rows["good"]["accuracy"]
    # Every item's mean is (5 + 4) / 2 = 4.5 -> (4.5 - 1) / 4 = 87.5 %, no spread.
    assert (good.percent, good.items, good.ratings) == (87.5, 10, 20)
    assert good.low == pytest.approx(87.5) and good.high == pytest.approx(87.5)
    assert report.rows["poor"]["mean"].percent == pytest.approx(12.5)
    # Ana is always one point above Ben: the order agrees, but the values never do.
    alpha, pairable = report.agreement["accuracy"]
    assert pairable == 20 and 0.0 < alpha < 1.0


def test_report_cli_json_csv_markdown_png(demo_project_dir: Path, project: Project,
                                          tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "out"
    assert main(["quality", "report", "--project", str(demo_project_dir), "--json",
                 "--csv", str(out / "q.csv"), "--markdown", str(out / "q.md"),
                 "--png", str(out / "q.png")]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["datasets"]["good"]["accuracy"]["percent"] == 87.5
    assert data["columns"] == {"accuracy": "Acc", "historical_awareness": "HA",
                               "granularity": "Gra", "consistency": "Con", "coverage": "Cov",
                               "mean": "Mean"}
    assert "(mean score − 1) / 4 × 100" in data["formula"]
    csv_lines = (out / "q.csv").read_text().splitlines()
    assert csv_lines[0].startswith("dataset,items,ratings,Acc_percent,Acc_ci_low")
    assert csv_lines[1].startswith("good,10,20,87.5,87.5,87.5")
    markdown = (out / "q.md").read_text()
    assert "| Dataset | Acc | HA | Gra | Con | Cov | Mean | Items | Ratings |" in markdown
    assert "Krippendorff" in markdown and "Student's t" in markdown
    assert (out / "q.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_exports_agree_with_the_report(project: Project) -> None:
    report = build_report(project)
    assert "| poor | 12.5 % (12.5–12.5)" in to_markdown(report)
    assert to_csv(report).count("\n") == 3


def test_indicators_correlate_with_human_scores(project: Project) -> None:
    report = build_report(project)
    named = report.correlations["attribute_count"]["accuracy"]
    # "is blue with long sleeves" names two attributes and was scored high; "different"
    # names none and was scored low.
    assert named == (pytest.approx(1.0), 20)
    assert "embedding_consistency" not in report.correlations
    assert any("Embedding consistency was not computed" in n for n in report.notes)


def test_sample_cli(demo_project_dir: Path, capsys: pytest.CaptureFixture) -> None:
    with Project.open(demo_project_dir) as project:
        save_transactions(project, [Transaction(
            "d", "k", ("dress-00001", "dress-00002"), sequential_turns(["is red"]))], "t")
    assert main(["quality", "sample", "--project", str(demo_project_dir), "--share", "0.2",
                 "--raters", "A,B", "--per-item", "2", "--seed", "0", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["assignments_per_rater"] == {"A": 1, "B": 1}
    assert main(["quality", "sample", "--project", str(demo_project_dir),
                 "--raters", "A", "--per-item", "2"]) == 2


# -- indicators on their own -------------------------------------------------------------

def test_refers_back_finds_templates_ordinals_and_earlier_attributes() -> None:
    data = AttributeData("catalog", {
        "a": {"color": "red", "sleeve": "long"},
        "b": {"color": "blue", "sleeve": "long"},
        "c": {"color": "red", "sleeve": "short"},
    }, "test")
    images = ("a", "b", "c")
    assert refers_back("I still prefer the item from the first turn, but shorter", 2, 1, images,
                       data)
    assert refers_back("keep the colour of the first turn and has short sleeves", 2, 1, images,
                       data)
    assert refers_back("like the original one but with short sleeves", 2, 1, images, data)
    # red belonged to image a, not to the reference b, and the target c is red again
    assert refers_back("is red with short sleeves", 2, 1, images, data)
    assert not refers_back("has short sleeves", 2, 1, images, data)
    assert not refers_back("is blue", 1, 0, images, data)


def test_embedding_consistency_rewards_texts_that_move_toward_the_target(
    demo_project_dir: Path,
) -> None:
    with Project.open(demo_project_dir) as project:
        transaction = Transaction("d", "k", ("dress-00001", "dress-00002", "dress-00003"),
                                  (Turn(1, "toward", 0), Turn(2, "away", 1)))
        (tid,), _ = save_transactions(project, [transaction], "t")
        vectors = {"dress-00001": np.array([1.0, 0.0, 0.0]),
                   "dress-00002": np.array([0.0, 1.0, 0.0]),
                   "dress-00003": np.array([0.6, 0.8, 0.0])}
        text_vectors = {"toward": np.array([0.0, 1.0, 0.0]), "away": np.array([-1.0, 0.0, 0.0])}
        embedder = ArrayEmbedder(vectors, lambda texts: [text_vectors[t] for t in texts])
        result = compute_indicators(project, [(tid, 1), (tid, 2)], embedder)
    assert result.values[(tid, 1)].embedding_consistency > 0.5
    assert result.values[(tid, 2)].embedding_consistency < 0.0


def test_without_an_index_the_consistency_indicator_is_skipped_with_a_reason(
    project: Project,
) -> None:
    from studio.quality.embedding_source import project_embedder

    embedder, reason = project_embedder(project, "demo", "cpu")
    assert embedder is None and "no index for model 'demo'" in reason
    report = build_report(project, embedder=embedder, no_embedder_reason=reason)
    assert any(reason in note for note in report.notes)


@pytest.mark.slow
def test_consistency_from_the_project_index(project: Project, demo_model) -> None:
    from studio.index_service import build_index
    from studio.quality.embedding_source import project_embedder

    build_index(project, demo_model)
    embedder, reason = project_embedder(project, "demo", "cpu")
    assert embedder is not None, reason
    report = build_report(project, embedder=embedder)
    rho, items = report.correlations["embedding_consistency"]["accuracy"]
    assert items == 20 and rho is not None


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


def _report_of_two_items(folder: Path):
    """The report of two turns scored as far apart as the scale allows."""
    _rated_project(folder, 2)
    with Project.open(folder) as project:
        return build_report(project, indicators=False)


def test_report_intervals_stay_within_0_and_100_and_few_items_are_marked(
    demo_project_dir: Path,
) -> None:
    from studio.quality.report_export import table_rows

    report = _report_of_two_items(demo_project_dir)
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

    report = _report_of_two_items(demo_project_dir)
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


@pytest.mark.parametrize("text", [
    "I prefer the item from the last turn, but red",
    "go back to the previous one and make it shorter",
    "I would rather take the item from the previous turn",
    "keep the colour of the last turn and has short sleeves",
])
def test_refers_back_counts_every_turn_reference_the_sessions_follow(text: str) -> None:
    """A turn the session engine reads as a rollback or a keep is one that refers back."""
    from studio.language.turns import parse_turn_text

    parsed = parse_turn_text(text)
    assert parsed.rollback_to is not None or parsed.keeps  # the sessions go back
    data = AttributeData("catalog", {"a": {}, "b": {}, "c": {}}, "test")
    assert refers_back(text, 2, 1, ("a", "b", "c"), data)
