"""Every run keeps its queries: evaluate fashioniq|cirr|circo|chatir and simulate write one
Parquet file per run (``studio.experiments.query_log``) with each query's texts, ranks and
top results; a run stored before keeps listing and says it has none."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from studio.cli.main import main
from studio.experiments.query_log import NO_QUERIES, QueryLog, read_queries, run_queries
from studio.simulation.outputs import list_runs, store_run
from studio.store import Project
from tests.unit.test_chatir import import_and_index, write_chatir
from tests.unit.test_fashioniq_protocol import indexed  # noqa: F401  (a fixture)
from tests.unit.test_import_circo import ON_DISK, VAL, write_circo


def last_run(project: Path) -> tuple[int, object]:
    with Project.open(project) as opened:
        run = list_runs(opened)[-1]
        return run["id"], run_queries(opened, run["id"])


def test_simulate_keeps_every_dialog_turn_by_turn(indexed_demo_dir: Path, tmp_path) -> None:
    out = tmp_path / "run.json"
    assert main(["simulate", "--project", str(indexed_demo_dir), "--strategy", "sum",
                 "--turns", "3", "--n", "6", "--split", "all", "--keep-top", "7",
                 "--json", str(out)]) == 0
    run_id, table = last_run(indexed_demo_dir)
    assert table is not None and len(table) == 6 and table.kind == "simulate"
    with Project.open(indexed_demo_dir) as opened:
        stored = json.loads(opened.db.execute(
            "SELECT ranks FROM experiment_runs WHERE id = :run_id", {"run_id": run_id}).fetchone()[0])
    for n, dialog in enumerate(stored):
        row = table.row(n)
        assert row["query"] == f"{dialog['start']}>{dialog['target']}"
        assert row["ranks"] == [None if r is None else int(r) for r in dialog["ranks"]]
        assert len(row["texts"]) == 3 and row["texts"][0]
        assert 1 <= len(row["top_ids"]) <= 7 and len(row["top_scores"]) == len(row["top_ids"])
        assert row["top_scores"] == sorted(row["top_scores"], reverse=True)
        if row["rank"] is not None and row["rank"] <= 7 and row["ranks"][-2:] != [1, 1]:
            assert row["top_ids"][row["rank"] - 1] == dialog["target"]
    recall = json.loads(out.read_text())["per_turn"][-1]["recall_at"]["5"]
    assert table.hits(5).mean() == pytest.approx(recall)


def test_evaluate_fashioniq_keeps_each_pair_with_its_captions_and_top_k(indexed) -> None:  # noqa: F811
    project, _ = indexed
    assert main(["evaluate", "fashioniq", "--project", str(project), "--keep-top", "12"]) == 0
    _, table = last_run(project)
    assert table is not None and len(table) == 6 + 6 + 7
    assert sorted(set(table.category)) == ["dress", "shirt", "toptee"]
    row = table.row(0)
    assert row["texts"] == ["is darker", "has a different print"]
    assert len(row["top_ids"]) == 12 and row["reference"] and row["target"]
    ranks = table.rank
    assert np.isfinite(ranks).all()  # galleries of 20: every target is ranked
    for n in range(len(table)):
        row = table.row(n)
        if row["rank"] <= 12:
            assert row["top_ids"][row["rank"] - 1] == row["target"]
        else:
            assert row["target"] not in row["top_ids"]


def test_evaluate_circo_keeps_each_ground_truths_rank(tmp_path: Path) -> None:
    root = write_circo(tmp_path / "circo")
    project = tmp_path / "p"
    assert main(["import", "circo", str(root), "--project", str(project)]) == 0
    assert main(["index", "build", "--project", str(project), "--model", "demo"]) == 0
    assert main(["evaluate", "circo", "--project", str(project)]) == 0
    _, table = last_run(project)
    assert table is not None and list(table.query) == ["0", "1"]
    first = table.row(0)
    assert first["ground_truths"] == ["21", "22", "23"]
    assert first["ranks"][2] is None  # 23 has no picture: never ranked
    assert first["ranks"][:2] == [first["top_ids"].index(i) + 1 for i in ("21", "22")]
    assert first["rank"] == first["ranks"][0]  # the named target, 21
    assert sorted(first["top_ids"]) == sorted(str(i) for i in ON_DISK)


def test_evaluate_chatir_keeps_each_dialogs_rank_after_every_round(tmp_path: Path) -> None:
    from studio.demo.placeholders import draw_placeholders

    space = [f"unlabeled2017/{i:012d}.jpg" for i in range(30)]
    draw_placeholders(tmp_path / "img", space)
    write_chatir(tmp_path / "chatir", space, [space[0], space[5], space[9]])
    project = import_and_index(tmp_path)
    assert main(["evaluate", "chatir", "--project", str(project)]) == 0
    with Project.open(project) as opened:
        runs = list_runs(opened, "chatir")
        tables = {run["summary"]["config"]["dataset"]: run_queries(opened, run["id"])
                  for run in runs}
    assert set(tables) == {"Human_BLIP2", "ChatGPT_BLIP2"}
    table = tables["Human_BLIP2"]
    assert table is not None and len(table) == 3 and table.first_turn == 0
    row = table.row(1)
    assert row["query"] == "Human_BLIP2:1" and len(row["ranks"]) == 11
    assert row["texts"][0] == "a photo number 1" and len(row["top_ids"]) == 30
    summary = next(r["summary"] for r in runs if r["summary"]["config"]["dataset"]
                   == "Human_BLIP2")
    hits = (table.first_top(10) >= 0).mean() * 100
    assert hits == pytest.approx(summary["hits_at_10"][-1])


def test_a_run_stored_before_has_no_queries_and_still_lists(indexed_demo_dir: Path,
                                                          capsys) -> None:
    with Project.open(indexed_demo_dir) as opened:
        run_id = store_run(opened, "simulate", {"label": "old", "per_turn": []}, [], "tests")
        assert run_queries(opened, run_id) is None
    assert main(["experiments", "list", "--project", str(indexed_demo_dir)]) == 0
    assert "old" in capsys.readouterr().out
    assert main(["experiments", "queries", "--project", str(indexed_demo_dir),
                 str(run_id)]) == 0
    assert NO_QUERIES in capsys.readouterr().out


def test_a_cancelled_run_keeps_the_queries_it_finished(tmp_path: Path) -> None:
    from studio.experiments import query_log

    written = []
    with pytest.raises(KeyboardInterrupt), QueryLog(tmp_path, "simulate") as log:  # noqa: PT012
        for n in range(query_log.ROW_GROUP + 10):
            log.add(str(n), ranks=[n + 1], top_ids=["a"], top_scores=[1.0])
            written.append(n)
        raise KeyboardInterrupt
    table = read_queries(log.path)
    assert len(table) == len(written) and table.rank[-1] == len(written)


def test_a_simulation_stopped_by_hand_is_stored_with_the_dialogs_it_finished(
    indexed_demo_dir: Path,
) -> None:
    """Cancel (the Experiments tab's button, or a first Ctrl+C in a terminal) stops a
    simulation after the current dialog; the run is stored, lists, says it stopped, and its
    queries open like any run's. Without ``keep_partial`` cancel still raises."""
    from studio.jobs import CancelToken, JobCancelled
    from studio.sessions.setup import load_session_context
    from studio.simulation.run_list import dialog_shortfall
    from studio.simulation.runner import RunConfig, run_simulation

    config = RunConfig(strategy="sum", simulator="attribute", turns=2, n=8, model="demo")
    with Project.open(indexed_demo_dir) as project:
        context = load_session_context(project, "demo", "cpu")
        token = CancelToken()

        def stop_after_three(done: int, _total: int, _message: str = "") -> None:
            if done == 3:
                token.cancel()

        with pytest.raises(JobCancelled):
            run_simulation(context, config, progress=stop_after_three, cancel=token)
        token = CancelToken()
        with QueryLog.for_project(project, "simulate") as log:
            result = run_simulation(context, config, progress=stop_after_three, cancel=token,
                                    log=log, keep_partial=True)
        summary = result.summary()
        assert summary["queries"] == 3 and summary["stopped"] == {"finished": 3, "planned": 8}
        assert summary["label"].endswith("(stopped)")
        assert dialog_shortfall(summary) == (
            "Stopped after 3 of 8 dialogs; the run keeps the dialogs it finished.")
        run_id = store_run(project, "simulate", summary, result.queries, "tests", log)
        table = run_queries(project, run_id)
        assert table is not None and len(table) == 3
        assert [r["id"] for r in list_runs(project)][-1] == run_id


def stoppable_project(protocol: str, request, tmp_path: Path) -> tuple[Path, int]:
    """A small indexed project to evaluate with ``protocol`` and how many queries (ChatIR:
    dialogs of the first dataset evaluated) it plans: more than one batch, so a Ctrl+C
    after the first batch leaves queries not done."""
    if protocol in ("fashioniq", "cirr"):
        project, _ = request.getfixturevalue("indexed")
        return project, 19
    if protocol == "circo":
        from studio.circo.protocol import BATCH

        planned = BATCH + 12
        val = [{**VAL[n % 2], "id": n} for n in range(planned)]
        root = write_circo(tmp_path / "circo", val)
        project = tmp_path / "p"
        assert main(["import", "circo", str(root), "--project", str(project)]) == 0
        assert main(["index", "build", "--project", str(project), "--model", "demo"]) == 0
        return project, planned
    from studio.chatir.protocol import BATCH, ROUNDS
    from studio.demo.placeholders import draw_placeholders

    planned = 2 * (BATCH // ROUNDS + 1) + 3
    space = [f"unlabeled2017/{i:012d}.jpg" for i in range(planned)]
    draw_placeholders(tmp_path / "img", space)
    write_chatir(tmp_path / "chatir", space, space)
    return import_and_index(tmp_path), planned


@pytest.mark.parametrize("protocol", ["fashioniq", "cirr", "circo", "chatir"])
def test_an_evaluation_stopped_by_ctrl_c_keeps_the_queries_it_did(
        protocol: str, request, tmp_path: Path, monkeypatch, capsys) -> None:
    """A first Ctrl+C stops ``evaluate`` after the query (Fashion IQ, CIRCO: the batch;
    ChatIR: the batch of dialogs) under way; the run is stored marked stopped with the
    queries done, its figures are over those, and the runs list and ``experiments
    queries`` say so."""
    import os
    import signal

    from studio.cli.progress import TerminalProgress
    from studio.experiments.evaluation_runs import evaluation_lines

    project, planned = stoppable_project(protocol, request, tmp_path)
    draw = TerminalProgress.__call__
    pressed: list[int] = []

    def ctrl_c_after_five(self, done: int, total: int, message: str = "") -> None:
        draw(self, done, total, message)
        if done >= 5 and not pressed:  # the person presses Ctrl+C once
            pressed.append(done)
            os.kill(os.getpid(), signal.SIGINT)

    monkeypatch.setattr(TerminalProgress, "__call__", ctrl_c_after_five)
    capsys.readouterr()
    assert main(["evaluate", protocol, "--project", str(project)]) == 0
    out = capsys.readouterr().out
    run_id, table = last_run(project)
    assert table is not None and len(table) == pressed[0] < planned
    with Project.open(project) as opened:
        runs = list_runs(opened)
        run = runs[-1]
    summary = run["summary"]
    assert summary["stopped"] == {"finished": len(table), "planned": planned}
    assert summary["label"].endswith("(stopped)")
    unit = "dialogs" if protocol == "chatir" else "queries"
    assert f"Stopped after {len(table)} of {planned} {unit}" in out
    if protocol == "cirr":  # the figures are over the queries done
        assert summary["queries"] == len(table)
        assert summary["recall@10"]["value"] == pytest.approx(table.hits(10).mean())
    elif protocol == "fashioniq":
        assert sum(c["queries"] for c in summary["categories"].values()) == len(table)
        assert summary["average"]["R@10"] == pytest.approx(100 * table.hits(10).mean())
    elif protocol == "circo":
        assert summary["queries"] == len(table)
        assert summary["recall"]["10"] == pytest.approx(100 * table.hits(10).mean())
    else:  # ChatIR: the dataset under way is stored, the one not begun is not
        assert len(runs) == 1 and summary["dialogs"] == len(table)
        hits = (table.first_top(10) >= 0).mean() * 100
        assert summary["hits_at_10"][-1] == pytest.approx(hits, abs=0.01)
    if protocol != "chatir":
        assert f"stopped after {len(table)} of {planned}" in " · ".join(evaluation_lines(run))
    assert main(["experiments", "queries", "--project", str(project), str(run_id)]) == 0
    assert f"stopped after {len(table)} of {planned} queries" in capsys.readouterr().out


def test_a_chatir_evaluation_stopped_between_datasets_says_which_it_did_not_begin(
        request, tmp_path: Path, monkeypatch, capsys) -> None:
    """Ctrl+C during the first questioner's last batch: that dataset is whole and stored,
    and the evaluation says it stopped before the other, which has no run."""
    import os
    import signal

    from studio.cli.progress import TerminalProgress

    project, planned = stoppable_project("chatir", request, tmp_path)
    draw = TerminalProgress.__call__
    pressed: list[int] = []

    def ctrl_c_in_the_last_batch(self, done: int, total: int, message: str = "") -> None:
        draw(self, done, total, message)
        if done == planned and not pressed:  # the first dataset's last batch
            pressed.append(done)
            os.kill(os.getpid(), signal.SIGINT)

    monkeypatch.setattr(TerminalProgress, "__call__", ctrl_c_in_the_last_batch)
    capsys.readouterr()
    assert main(["evaluate", "chatir", "--project", str(project)]) == 0
    out = capsys.readouterr().out
    assert pressed == [planned]
    with Project.open(project) as opened:
        runs = list_runs(opened, "chatir")
        assert len(runs) == 1 and "stopped" not in runs[0]["summary"]
        table = run_queries(opened, runs[0]["id"])
    assert table is not None and len(table) == planned
    assert "Stopped before Human_BLIP2: not evaluated, no run stored." in out


def test_a_runs_top_results_are_read_only_for_the_query_shown(tmp_path: Path) -> None:
    """The top K ids and scores are most of a run's file: the list opens without them,
    a query shows its own (from any row group), and an export still has every column."""
    from studio.experiments import query_log
    from studio.experiments.query_log import export_queries

    count = query_log.ROW_GROUP * 2 + 5
    with QueryLog(tmp_path, "evaluate-cirr", keep_top=3) as log:
        for n in range(count):
            log.add(f"q{n}", ranks=[n + 1], texts=[f"text {n}"],
                    top_ids=[f"a{n}", f"b{n}", f"c{n}"], top_scores=[3.0, 2.0, float(n)])
    table = read_queries(log.path)
    assert "top_ids" not in table.table.column_names  # not read to open the list
    for n in (0, query_log.ROW_GROUP + 1, count - 1, 7):
        row = table.row(n)
        assert row["query"] == f"q{n}" and row["top_ids"] == [f"a{n}", f"b{n}", f"c{n}"]
        assert row["top_scores"] == [3.0, 2.0, float(n)]
    exported = export_queries(table, tmp_path / "out.parquet")
    again = read_queries(exported)
    assert again.row(count - 1)["top_ids"] == [f"a{count - 1}", f"b{count - 1}", f"c{count - 1}"]
    csv_text = export_queries(table, tmp_path / "out.csv").read_text()
    assert "a5 | b5 | c5" in csv_text


def test_a_runs_caption_flags_are_the_captions_panes_for_every_query(tmp_path: Path) -> None:
    """Each query's flags are the kinds ``text_flags`` raises for its captions (each checked
    against the others), also when queries share a caption the log read once."""
    from studio.captions.flags import text_flags

    queries = [
        ["is red", "is blue"],
        ["is red", "is not red"],
        ["is red", "is red"],
        ["", "is longer with a blue collar"],
        ["is shorter", "is longer"],
        ["is shorter", "has red letters and is black"],
        ["red", "is darker and has no sleeves"],
    ]
    with QueryLog(tmp_path, "evaluate-fashioniq") as log:
        for n, texts in enumerate(queries):
            log.add(f"q{n}", texts=texts, ranks=[n + 1])
    table = read_queries(log.path)
    for n, texts in enumerate(queries):
        expected: list[str] = []
        for m, text in enumerate(texts):
            for flag in text_flags(text, [o for k, o in enumerate(texts) if k != m]):
                if flag.kind not in expected:
                    expected.append(flag.kind)
        assert table.row(n)["flags"] == expected, texts
    assert table.row(0)["flags"] == ["colour_conflict"]
    assert table.row(1)["flags"] == ["contradiction"]
    assert table.row(2)["flags"] == ["duplicate"]


def _flags_of_a_run(folder: Path, groups: list[list[str]]) -> list[list[str]]:
    with QueryLog(folder, "evaluate-fashioniq") as log:
        for n, texts in enumerate(groups):
            log.add(f"q{n}", texts=texts, ranks=[n + 1])
    table = read_queries(log.path)
    return [table.row(n)["flags"] for n in range(len(groups))]


def test_a_split_evaluated_again_takes_its_caption_flags_from_the_earlier_run(
        tmp_path: Path) -> None:
    """The kinds found for a group of captions are remembered beside the runs: the next run
    over the same captions takes them from there instead of reading the captions again
    (the remembered kinds are altered here to see where the second run's come from)."""
    import pyarrow.parquet as pq

    from studio.experiments.flag_memory import FILE_NAME

    groups = [["is red", "is not red"], ["is darker with longer sleeves", "has a floral print"],
              ["red", "red"]]
    first = _flags_of_a_run(tmp_path, groups)
    assert first == [["contradiction"], [], ["short", "duplicate"]]
    memory = tmp_path / "queries" / FILE_NAME
    table = pq.read_table(memory)
    kinds = [["remembered"] for _ in range(table.num_rows)]
    altered = table.set_column(1, "kinds", [kinds])
    pq.write_table(altered, memory)
    assert _flags_of_a_run(tmp_path, [*groups, ["is blue", "is blue"]]) == [
        ["remembered"], ["remembered"], ["remembered"], ["duplicate"]]
    # the new group joined the remembered ones
    assert pq.read_table(memory).num_rows == 4


def test_remembered_flags_of_other_rules_or_a_damaged_file_are_read_again(
        tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from studio.experiments.flag_memory import FILE_NAME

    groups = [["is red", "is not red"]]
    memory = tmp_path / "queries" / FILE_NAME
    memory.parent.mkdir(parents=True)
    stale = pa.table({"texts": ["is red\x1fis not red"], "kinds": [["remembered"]]})
    pq.write_table(stale.replace_schema_metadata({"rules": "older rules"}), memory)
    assert _flags_of_a_run(tmp_path, groups) == [["contradiction"]]
    memory.write_bytes(b"not a parquet file")
    assert _flags_of_a_run(tmp_path, groups) == [["contradiction"]]
    assert pq.read_table(memory).column("kinds").to_pylist() == [["contradiction"]]
