"""``cir-studio simulate``, ``cir-studio evaluate`` and ``cir-studio experiments``."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from studio.cli.progress import TerminalProgress
from studio.cli.project_arg import add_project_argument, cli_user, open_project
from studio.errors import StudioError
from studio.wording import count


def register(subparsers: argparse._SubParsersAction) -> None:
    simulate = subparsers.add_parser(
        "simulate",
        help="multi-turn or chat retrieval with a simulated user, N targets × T turns",
        description="Run N dialogs of T turns with a simulated user on the project's index. "
        "Every strategy sees the same seeded list of (target, start image) pairs. Prints "
        "Recall@1/5/10/20/50, ranking percentile, cumulative Hits@10 and mean rank per turn "
        "with 95 % confidence intervals, and stores the run in the project.",
    )
    add_project_argument(simulate)
    simulate.add_argument("--strategy", default="history", help="composition strategy: history, sum, text, image or combiner:NAME (history)")
    simulate.add_argument("--base", metavar="combiner:NAME",
                          help="with --strategy history: a trained combiner as its base composition")
    simulate.add_argument("--simulator", default="attribute", help="simulated user: attribute, retrospective or chat (attribute)")
    simulate.add_argument("--questioner", default="infogain", help="chat questioner: infogain or random (infogain)")
    simulate.add_argument("--turns", type=int, default=5, help="turns or chat rounds (5)")
    simulate.add_argument("--n", type=int, default=200, help="number of dialogs (200)")
    simulate.add_argument("--seed", type=int, default=0, help="seed of the dialog list (0)")
    simulate.add_argument("--split", default="test",
                          help="targets from this split ('all' for every image; test)")
    simulate.add_argument("--users", default="learned",
                          choices=("learned", "realistic", "catalog"),
                          help="how the simulated users speak: learned (the relative "
                          "captioner learned from Fashion IQ's captions, in annotators' own "
                          "words), realistic (hand-written templates with comparatives, "
                          "negations and typos) or catalog (the catalog's own words) (learned)")
    simulate.add_argument("--captioner", metavar="NAME",
                          help="learned users: a captioner trained with 'train captioner' "
                          "(default: the shipped one, trained on Fashion IQ's captions)")
    simulate.add_argument("--dialogs", type=Path, metavar="FILE",
                          help="write every turn as a JSON line: dialog, turn, reference, "
                          "target, text (as typed) and requests (what was meant)")
    simulate.add_argument("--comparative", type=float, default=None,
                          help="share of comparative phrases (realistic 0.6, catalog 0.3)")
    simulate.add_argument("--typo-rate", type=float, default=None,
                          help="chance of a typo per word of 4+ letters (realistic 0.03, "
                          "catalog 0)")
    simulate.add_argument("--noise", type=float, default=None,
                          help="chance that a phrase names a wrong value (realistic 0.03, "
                          "catalog 0)")
    _model_arguments(simulate)
    simulate.set_defaults(func=run_simulate)

    evaluate = subparsers.add_parser(
        "evaluate",
        help="the standard single-turn protocols on imported datasets",
        description="Fashion IQ: one split (--split, val by default), each category searched "
        "in its own gallery (its split file's images, reference kept), captions joined as "
        "'c1 and c2'; prints R@10 and R@50 (%) per category with queries and gallery size, "
        "their average and the score (R@10 + R@50) / 2. CIRR: reference removed, R@1/5/10/50 "
        "and Recall_subset@1/2/3. ChatIR: cumulative Hits@10 after each dialog round 0-10 "
        "per questioner (--png plots them). CIRCO: mAP@5/10/25/50 over all ground truths, "
        "Recall@K of the named target and mAP@10 per semantic aspect, as the authors' server "
        "computes them; --predictions scores a submission file without a model. Every run is "
        "stored in the project.",
    )
    evaluate.add_argument("protocol", choices=("fashioniq", "cirr", "chatir", "circo"))
    add_project_argument(evaluate)
    evaluate.add_argument("--split", default="val",
                          help="Fashion IQ: the split to evaluate, by name (val, the official "
                          "protocol)")
    evaluate.add_argument("--category", help="Fashion IQ: only this category")
    evaluate.add_argument("--predictions", type=Path, metavar="FILE",
                          help="CIRCO: score this submission file (query id -> top-50 image "
                          "ids) instead of ranking with a model")
    evaluate.add_argument("--dataset", help="ChatIR: only this dialogue file (its stem, e.g. "
                          "Human_BLIP2)")
    evaluate.add_argument("--strategy", default="sum", help="how image and text combine: sum, history, text, image or combiner:NAME (sum)")
    evaluate.add_argument("--base", metavar="combiner:NAME",
                          help="with --strategy history: a trained combiner as its base composition")
    evaluate.add_argument("--source", help="only pairs imported from this dataset")
    _model_arguments(evaluate)
    evaluate.set_defaults(func=run_evaluate)

    experiments = subparsers.add_parser("experiments", help="stored simulation runs")
    actions = experiments.add_subparsers(dest="experiments_command", metavar="ACTION",
                                         required=True)
    listing = actions.add_parser("list", help="list stored runs")
    add_project_argument(listing)
    listing.add_argument("--json", action="store_true", help="print JSON")
    listing.set_defaults(func=run_list)
    plot = actions.add_parser("plot", help="plot stored runs side by side as a PNG")
    add_project_argument(plot)
    plot.add_argument("png", type=Path, help="the PNG to write")
    plot.add_argument("--runs", help="comma-separated run ids, simulate or chatir runs "
                      "(default: every simulate run)")
    plot.add_argument("--csv", type=Path, help="also write the runs' per-turn figures as CSV")
    plot.set_defaults(func=run_plot)
    from studio.cli.queries_cmd import register_actions

    register_actions(actions)


def _model_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--model", default="demo", help="embedding model (demo)")
    parser.add_argument("--device", default=None, help="auto, cpu, cuda or mps")
    parser.add_argument("--json", type=Path, metavar="FILE", help="write the results as JSON")
    parser.add_argument("--keep-top", type=int, default=50, metavar="K",
                        help="keep each query's top K result ids and scores with the run "
                        "(see 'experiments queries'; 50)")
    if parser.prog.endswith("simulate"):
        parser.add_argument("--csv", type=Path, metavar="FILE", help="write per-turn CSV")
    parser.add_argument("--png", type=Path, metavar="FILE",
                        help="plot the run as PNG (simulate; evaluate chatir)")


def _context(
    args: argparse.Namespace, project, where: str = "", build_missing: bool = False
):
    from studio.sessions.setup import load_session_context

    if build_missing:
        _build_missing_index(project, args.model, args.device)
    try:
        return load_session_context(project, args.model, args.device)
    except StudioError as error:
        if not where:
            raise
        raise StudioError(f"{where}: nothing to evaluate: {error}") from error


def _build_missing_index(project, model_name: str, device: str | None) -> None:
    """A project without an index for the model gets one first (as mining and exports do),
    so ``simulate`` runs on a fresh demo; an existing index is left as it is."""
    from studio.index_service import build_index, index_folder, load_project_model, read_state

    if read_state(index_folder(project, model_name)) is not None:
        return
    model = load_project_model(model_name, device)
    with TerminalProgress(f"Building the {model_name} index (first use)") as progress:
        build_index(project, model, progress=progress)


def query_log(project, kind: str, args: argparse.Namespace, first_turn: int = 1):
    """The run's per-query log (``--keep-top K`` results per query)."""
    from studio.experiments.query_log import QueryLog

    if args.keep_top < 1:
        raise StudioError("--keep-top must be at least 1.")
    return QueryLog.for_project(project, kind, args.keep_top, first_turn)


def run_simulate(args: argparse.Namespace) -> int:
    from studio.cli.interrupt import stop_on_first_interrupt
    from studio.sessions.strategies import with_base
    from studio.simulation.outputs import save_plot, store_run, write_csv, write_json
    from studio.simulation.runner import RunConfig, run_simulation

    config = RunConfig(
        strategy=with_base(args.strategy, args.base), simulator=args.simulator, turns=args.turns, n=args.n,
        seed=args.seed, model=args.model, split=None if args.split == "all" else args.split,
        questioner=args.questioner, comparative=args.comparative, noise=args.noise,
        users=args.users, typo_rate=args.typo_rate,
    )
    with open_project(args) as project:
        context = _context(args, project, build_missing=True)
        captioner = None
        if args.captioner:
            from studio.training.captioner import load_captioner

            captioner = load_captioner(project, args.captioner)
        with query_log(project, "simulate", args, 0 if config.simulator == "chat" else 1) as log, \
                TerminalProgress(f"Simulating {config.label}") as progress, \
                stop_on_first_interrupt() as stop:
            result = run_simulation(context, config, progress=progress, cancel=stop,
                                    captioner=captioner, log=log, keep_partial=True)
        summary = result.summary()
        summary["run_id"] = store_run(project, "simulate", summary, result.queries, cli_user(),
                                      log)
    if args.json:
        write_json(args.json, summary)
    if args.dialogs:
        from studio.simulation.outputs import write_jsonl

        write_jsonl(args.dialogs, result.turns_said)
    if args.csv:
        write_csv(args.csv, [summary])
    if args.png:
        save_plot(args.png, [summary])
    print(_table(summary))
    from studio.simulation.run_list import dialog_shortfall

    shortfall = dialog_shortfall(summary)
    if shortfall:
        print(shortfall)
    return 0


def _table(summary: dict) -> str:
    lines = [f"{summary['label']}: {summary['queries']} dialogs, run {summary['run_id']}",
             "turn   R@1    R@5    R@10   R@20   R@50   P      Hits@10 mean rank"]
    for row in summary["per_turn"]:
        r = row["recall_at"]
        lines.append(
            f"{row['turn']:>4}  " + "  ".join(f"{r[k]:.3f}" for k in ("1", "5", "10", "20", "50"))
            + f"  {row['percentile']['value']:.3f}  {row['hits_at_10']['value']:.3f}"
            + f"   {row['mean_rank']['value']:.1f}"
        )
    return "\n".join(lines)


def run_evaluate(args: argparse.Namespace) -> int:
    from studio.sessions.strategies import with_base

    args.strategy = with_base(args.strategy, args.base)
    if args.protocol == "fashioniq":
        return _run_fashioniq(args)
    if args.protocol == "chatir":
        from studio.cli.chatir_cmd import run_evaluate_chatir

        return run_evaluate_chatir(args)
    if args.protocol == "circo":
        return _run_circo(args)
    from studio.cli.interrupt import stop_on_first_interrupt
    from studio.simulation.outputs import store_run, write_json
    from studio.simulation.protocols import evaluate_cirr

    with open_project(args) as project:
        context = _context(args, project, "CIRR")
        with query_log(project, "evaluate-cirr", args) as log, \
                TerminalProgress("Evaluating (cirr)") as progress, \
                stop_on_first_interrupt("this query") as stop:
            report = evaluate_cirr(context, args.strategy, args.source, progress=progress,
                                   cancel=stop, log=log, keep_partial=True)
        report["run_id"] = store_run(project, "evaluate-cirr", report, [], cli_user(), log)
    if args.json:
        write_json(args.json, report)
    print(json.dumps(report, indent=2, allow_nan=False))
    _say_stopped(report)
    return 0


def _say_stopped(report: dict) -> None:
    """An evaluation stopped by a first Ctrl+C says so under its figures."""
    from studio.stopped_runs import stopped_text

    said = stopped_text(report)
    if said:
        print(said)


def _run_circo(args: argparse.Namespace) -> int:
    from studio.circo.protocol import evaluate_circo, evaluate_submission, table
    from studio.simulation.outputs import store_run, write_json

    with open_project(args) as project, query_log(project, "evaluate-circo", args) as log:
        if args.predictions:
            report = evaluate_submission(project, args.split, args.predictions, log)
        else:
            from studio.cli.interrupt import stop_on_first_interrupt

            context = _context(args, project, f"CIRCO {args.split}")
            with TerminalProgress(f"Evaluating CIRCO {args.split}") as progress, \
                    stop_on_first_interrupt("this batch of queries") as stop:
                report = evaluate_circo(context, args.split, args.strategy, progress=progress,
                                        cancel=stop, log=log, keep_partial=True)
        report["run_id"] = store_run(project, "evaluate-circo", report, [], cli_user(), log)
    if args.json:
        write_json(args.json, report)
    print(table(report))
    _say_stopped(report)
    return 0


def _run_fashioniq(args: argparse.Namespace) -> int:
    from studio.cli.interrupt import stop_on_first_interrupt
    from studio.simulation.fashioniq_protocol import evaluate_fashioniq, official_json, table
    from studio.simulation.outputs import store_run, write_json

    where = f"Fashion IQ {args.category + '/' if args.category else ''}{args.split}"
    with open_project(args) as project:
        context = _context(args, project, where)
        with query_log(project, "evaluate-fashioniq", args) as log, \
                TerminalProgress(f"Evaluating {where}") as progress, \
                stop_on_first_interrupt("this batch of queries") as stop:
            report = evaluate_fashioniq(context, args.split, args.category,
                                        strategy=args.strategy, source=args.source,
                                        progress=progress, cancel=stop, log=log,
                                        keep_partial=True)
        report["label"] = f"{where} · {args.strategy} · score {report['average']['score']:.2f}"
        if "stopped" in report:
            report["label"] += " (stopped)"
        report["run_id"] = store_run(project, "evaluate-fashioniq", report, [], cli_user(),
                                     log)
    if args.json:
        write_json(args.json, official_json(report))
    print(table(report))
    _say_stopped(report)
    return 0


def run_list(args: argparse.Namespace) -> int:
    from studio.simulation.outputs import list_runs

    with open_project(args) as project:
        runs = list_runs(project)
    if args.json:
        print(json.dumps(runs))
        return 0
    if not runs:
        print("No stored runs yet; run 'cir-studio simulate' or 'cir-studio evaluate'.")
    for run in runs:
        label = run["summary"].get("label", run["kind"])
        print(f"{run['id']:>4}  {run['created_at'][:19]}  {run['kind']:<18} {label}")
    return 0


def run_plot(args: argparse.Namespace) -> int:
    from studio.simulation.outputs import list_runs, save_plot, write_csv

    with open_project(args) as project:
        runs = list_runs(project, "simulate")
        if args.runs:  # ChatIR protocol runs have the same per-round shape
            runs = sorted(runs + list_runs(project, "chatir"), key=lambda run: run["id"])
    if args.runs:
        try:
            wanted = {int(part) for part in args.runs.split(",")}
        except ValueError:
            raise StudioError("--runs takes comma-separated run ids, e.g. --runs 3,4") from None
        runs = [r for r in runs if r["id"] in wanted]
    if not runs:
        raise StudioError("No simulate runs to plot; run 'cir-studio simulate' first.")
    summaries = [run["summary"] for run in runs]
    save_plot(args.png, summaries)
    if args.csv:
        write_csv(args.csv, summaries)
    print(f"Plotted {count(len(runs), 'run')} into {args.png}.")
    return 0
