"""``cir-studio evaluate chatir`` (registered by the evaluate command; ``import chatir``
is declared in ``studio/importers/formats/chatir.py``)."""

from __future__ import annotations

import argparse

from studio.cli.progress import TerminalProgress
from studio.cli.project_arg import cli_user, open_project


def run_evaluate_chatir(args: argparse.Namespace) -> int:
    from studio.chatir.protocol import evaluate_chatir, official_json, save_hits_plot, table
    from studio.cli.interrupt import stop_on_first_interrupt
    from studio.cli.simulate_cmd import query_log
    from studio.sessions.setup import load_session_context
    from studio.simulation.outputs import store_run, write_json

    with open_project(args) as project:
        context = load_session_context(project, args.model, args.device)
        logs = {}

        def log_for(name: str):
            logs[name] = query_log(project, "chatir", args, first_turn=0)
            return logs[name]

        try:
            with TerminalProgress("Evaluating ChatIR") as progress, \
                    stop_on_first_interrupt("this batch of dialogs") as stop:
                report = evaluate_chatir(context, args.dataset, progress=progress,
                                         cancel=stop, log_for=log_for, keep_partial=True)
        finally:
            for log in logs.values():
                log.close()
        for name, summary in report["datasets"].items():
            summary["config"] = {"protocol": "chatir", "dataset": name, "model": args.model}
            summary["run_id"] = store_run(project, "chatir", summary, [], cli_user(),
                                          logs.get(name))
    if args.json:
        write_json(args.json, official_json(report))
    if args.png:
        save_hits_plot(args.png, report)
    print(table(report))
    from studio.stopped_runs import stopped_text

    for name, summary in report["datasets"].items():
        said = stopped_text(summary, "dialogs")
        if said:
            print(f"{name}: {said}")
    if report.get("not_begun"):
        print(f"Stopped before {', '.join(report['not_begun'])}: not evaluated, no run stored.")
    return 0
